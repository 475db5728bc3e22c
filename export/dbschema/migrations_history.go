package dbschema

import (
	"fmt"
	"slices"
	"strings"
)

// Migration 20: every mirrored table T (and course_progress) gains
// T_history, which keeps every version of its rows: T's columns, then
// valid_from and valid_to. Triggers on T write the versions, in the
// statement that changes T, on every path a row takes into T (a plain
// insert, an upsert under its digest condition, PostgreSQL's merge from a
// copied table, a row-by-row replay), so a version commits with its row
// or not at all, and a write that changes nothing adds nothing. A row is
// compared with its open version, not with T's row: a T emptied by hand
// and refilled adds nothing for an unchanged row. The export closes the
// versions of the rows a complete walk no longer returns, from the keys
// it deletes (a DELETE by hand closes nothing), and seeds an empty
// T_history from T when it opens the database (see the export), not the
// migration: an inbox that migrates the database first copies nothing.
//
// The time of a version is the walk's, kept in edapp_export_kinds
// (walk_time); migration 20's triggers count the versions a walk opened
// and closed there, for its summary (migration 21 moves that count to the
// walk's end). A write outside a walk (by hand) takes the current time and
// counts nothing.

// historyVersion is the migration that adds the history tables; its
// applied_at is the "known since" of the versions seeded from the rows
// the tables held then.
const historyVersion = 20

// HistoryVersion is the schema version from which a database holds the
// history tables (users_history and the others) and identities marks the
// people who left (edapp_left, safetyculture_left).
const HistoryVersion = historyVersion

// historySteps are migration 20's.
func historySteps() []step {
	steps := make([]step, 0, len(historyTables)+6)
	for _, t := range historyTables {
		steps = append(steps, createTable{t})
	}
	steps = append(steps,
		createIndex{"users_history", Index{Columns: []string{"source", "email"}}},
		createIndex{"users_history", Index{Columns: []string{"source", "external_id"}}},
		addColumn{"edapp_export_kinds", Column{Name: "walk_time", Type: Time, Origin: FromEngine, Nullable: true, Description: "The start, by the export's clock, of the run that began the walk in progress: the time of the versions it opens and closes in the history tables."}},
		addColumn{"edapp_export_kinds", Column{Name: "versions_opened", Type: Int, Origin: FromEngine, Nullable: true, Description: "The versions the walk in progress (or the last one) opened in the kind's history tables."}},
		addColumn{"edapp_export_kinds", Column{Name: "versions_closed", Type: Int, Origin: FromEngine, Nullable: true, Description: "The versions the walk in progress (or the last one) closed in the kind's history tables."}},
	)
	steps = append(steps,
		addColumn{"identities", Column{Name: "edapp_left", Type: Bool, Origin: FromEngine, Nullable: true, Description: "For a person with an EdApp id: whether they left, found in users_history only (no longer in users); NULL otherwise."}},
		addColumn{"identities", Column{Name: "safetyculture_left", Type: Bool, Origin: FromEngine, Nullable: true, Description: "For a person with a SafetyCulture id: whether they left, found in users_history only (no longer in users); NULL otherwise."}},
	)
	for _, t := range historyTables {
		steps = append(steps, historyTrigger{t})
	}
	return steps
}

// historyTrigger makes the trigger that records the versions of a
// table's rows in its history table H: on SQLite two triggers (insert and
// update), on PostgreSQL a trigger function and its trigger.
type historyTrigger struct{ History Table }

// historyVersionDrop are the columns of users whose change alone opens no
// version: last_active_date changes at every sign-in (and raw with it), so
// a version per sign-in would fill users_history with nothing new. The
// open version takes their new values in place.
var historyVersionDrop = map[string][]string{"users": {"last_active_date", "raw"}}

// historyTableOf is the table whose history h is.
func historyTableOf(h string) string { return strings.TrimSuffix(h, "_history") }

// historyKindOf is the export kind whose walk writes table t.
func historyKindOf(t string) string {
	if t == "user_custom_fields" {
		return "users"
	}
	return t
}

func (s historyTrigger) apply(sh *shape) error {
	h, err := sh.find(s.History.Name)
	if err != nil {
		return err
	}
	t, err := sh.find(historyTableOf(h.Name))
	if err != nil {
		return err
	}
	names := func(cs []Column) []string {
		var out []string
		for _, c := range cs {
			if c.Name != "valid_from" && c.Name != "valid_to" {
				out = append(out, c.Name)
			}
		}
		return out
	}
	// A trigger names every column: one made from a shape of the table
	// other than the current one would leave one out.
	if !slices.Equal(names(s.History.Columns), names(h.Columns)) || !slices.Equal(names(h.Columns), names(t.Columns)) {
		return fmt.Errorf("%s: the trigger's columns are not those of %s and %s", h.Name, h.Name, t.Name)
	}
	return nil
}

// parts are the pieces of a history trigger's statements.
type historyParts struct {
	t, h, kind string
	counts     bool     // the trigger counts its versions in edapp_export_kinds (migration 20's)
	cols       []string // T's columns, as the history table declares them
	key        string   // H's key columns but valid_from = NEW's, ANDed
	changed    string   // the open version's values differ from NEW's, in the versioned columns
	set        string   // every column but the key's = NEW's
	newCols    string   // NEW.col, ...
}

func (s historyTrigger) parts(d Dialect) historyParts {
	h := s.History
	p := historyParts{t: historyTableOf(h.Name), h: h.Name, counts: true}
	p.kind = historyKindOf(p.t)
	var keys, set, versioned, newVersioned, news []string
	for _, c := range h.Columns {
		if c.Name == "valid_from" || c.Name == "valid_to" {
			continue
		}
		p.cols = append(p.cols, c.Name)
		news = append(news, "NEW."+c.Name)
		if slices.Contains(h.Key, c.Name) {
			keys = append(keys, c.Name+" = NEW."+c.Name)
			continue
		}
		set = append(set, c.Name+" = NEW."+c.Name)
		if c.Name != "edapp_run" && c.Name != "edapp_digest" && !slices.Contains(historyVersionDrop[p.t], c.Name) {
			versioned, newVersioned = append(versioned, c.Name), append(newVersioned, "NEW."+c.Name)
		}
	}
	p.key, p.set, p.newCols = strings.Join(keys, " AND "), strings.Join(set, ", "), strings.Join(news, ", ")
	differs, row := " IS NOT ", "("
	if d == Postgres {
		differs, row = " IS DISTINCT FROM ", "ROW("
	}
	p.changed = "edapp_digest" + differs + "NEW.edapp_digest"
	if _, drop := historyVersionDrop[p.t]; drop {
		p.changed = row + strings.Join(versioned, ", ") + ")" + differs + row + strings.Join(newVersioned, ", ") + ")"
	}
	return p
}

// SQL is the trigger's statements in d.
func (s historyTrigger) SQL(d Dialect) []string { return s.parts(d).create(d) }

// sqlite is two triggers, after an insert and after an update, with one
// body: close the open version that differs, refresh in place the one that
// differs only in columns that open no version (or that this walk opened),
// open one where none is, and (migration 20's) count what it closed and
// opened.
func (p historyParts) sqlite() []string {
	walk := `(SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = '` + p.kind + `')`
	w := `COALESCE(` + walk + `, strftime('%Y-%m-%dT%H:%M:%f000Z', 'now'))`
	open := p.key + ` AND valid_to IS NULL`
	count := func(col string) string {
		return `UPDATE edapp_export_kinds SET ` + col + ` = COALESCE(` + col + `, 0) + changes() WHERE source = NEW.source AND kind = '` + p.kind + `' AND walk_time IS NOT NULL AND changes() > 0;`
	}
	closeChanged := `UPDATE ` + p.h + ` SET valid_to = ` + w + ` WHERE ` + open + ` AND valid_from < ` + w + ` AND ` + p.changed + `;`
	refresh := `UPDATE ` + p.h + ` SET ` + p.set + ` WHERE ` + open + ` AND edapp_digest IS NOT NEW.edapp_digest;`
	openNew := `INSERT INTO ` + p.h + ` (` + strings.Join(p.cols, ", ") + `, valid_from, valid_to) SELECT ` + p.newCols + `, ` + w + `, NULL WHERE NOT EXISTS (SELECT 1 FROM ` + p.h + ` WHERE ` + open + `);`
	stmts := []string{closeChanged, refresh, openNew}
	if p.counts {
		stmts = []string{closeChanged, count("versions_closed"), refresh, openNew, count("versions_opened")}
	}
	body := strings.Join(stmts, "\n  ")
	var out []string
	for _, event := range []string{"INSERT", "UPDATE"} {
		out = append(out, `CREATE TRIGGER `+p.h+`_`+strings.ToLower(event)+` AFTER `+event+` ON `+p.t+` FOR EACH ROW WHEN NEW.edapp_digest IS NOT NULL BEGIN
  `+body+`
END`)
	}
	return out
}

// postgres is a trigger function doing what sqlite's triggers do, and
// its trigger.
func (p historyParts) postgres() []string {
	trigger := `CREATE TRIGGER ` + p.h + ` AFTER INSERT OR UPDATE ON ` + p.t + ` FOR EACH ROW WHEN (NEW.edapp_digest IS NOT NULL) EXECUTE FUNCTION ` + p.h + `_record()`
	return []string{p.postgresFunction(), trigger}
}

// postgresFunction is the trigger function of postgres.
func (p historyParts) postgresFunction() string {
	walk, closeChanged, refresh, openNew := p.postgresStatements()
	if !p.counts {
		return historyFunction(p.h, nil, walk, closeChanged, refresh, openNew, `RETURN NULL;`)
	}
	return historyFunction(p.h, []string{`hist_closed bigint := 0;`, `hist_opened bigint := 0;`},
		walk, closeChanged, `GET DIAGNOSTICS hist_closed = ROW_COUNT;`, refresh, openNew, `GET DIAGNOSTICS hist_opened = ROW_COUNT;`,
		`IF hist_walk IS NOT NULL AND hist_closed + hist_opened > 0 THEN
    UPDATE edapp_export_kinds SET versions_closed = COALESCE(versions_closed, 0) + hist_closed, versions_opened = COALESCE(versions_opened, 0) + hist_opened
    WHERE source = NEW.source AND kind = '`+p.kind+`';
  END IF;`, `RETURN NULL;`)
}

// historyFunction is the statement that defines, or redefines, the
// trigger function of history table h: its variables are hist_walk and
// declare, its body the statements, a line each.
func historyFunction(h string, declare []string, statements ...string) string {
	var b strings.Builder
	b.WriteString(`CREATE OR REPLACE FUNCTION ` + h + "_record() RETURNS trigger LANGUAGE plpgsql AS $$\nDECLARE\n  hist_walk timestamptz;\n")
	for _, d := range declare {
		b.WriteString("  " + d + "\n")
	}
	b.WriteString("BEGIN\n")
	for _, s := range statements {
		b.WriteString("  " + s + "\n")
	}
	b.WriteString("END\n$$")
	return b.String()
}

// eachHistoryTable is a step for each history table, made by stepFor.
func eachHistoryTable(stepFor func(Table) step) []step {
	steps := make([]step, 0, len(historyTables))
	for _, t := range historyTables {
		steps = append(steps, stepFor(t))
	}
	return steps
}

// postgresStatements are the statements of postgresFunction's body: read
// the walk's time, close the open version that differs, refresh the one
// that differs only in columns that open no version, open one where none is.
func (p historyParts) postgresStatements() (walk, closeChanged, refresh, openNew string) {
	open := p.key + ` AND valid_to IS NULL`
	walk = `SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = '` + p.kind + `';`
	closeChanged = `UPDATE ` + p.h + ` SET valid_to = COALESCE(hist_walk, now()) WHERE ` + open + ` AND valid_from < COALESCE(hist_walk, now()) AND ` + p.changed + `;`
	refresh = `UPDATE ` + p.h + ` SET ` + p.set + ` WHERE ` + open + ` AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;`
	openNew = `INSERT INTO ` + p.h + ` (` + strings.Join(p.cols, ", ") + `, valid_from, valid_to) SELECT ` + p.newCols + `, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM ` + p.h + ` WHERE ` + open + `);`
	return walk, closeChanged, refresh, openNew
}

// historyTriggerSQL is the SQL that makes again the history trigger of
// table t, which dropping t dropped, as the latest migration defines it
// (migration 21's, which counts nothing, with migration 23's function on
// PostgreSQL); nothing for a table without history.
func historyTriggerSQL(t string, d Dialect) []string {
	for _, h := range historyTables {
		if historyTableOf(h.Name) == t {
			out := uncountedHistoryTrigger{h}.parts(d).create(d)
			if d == Postgres {
				out[0] = insertOpensHistoryOnceTrigger{h}.SQL(d)[0]
			}
			return out
		}
	}
	return nil
}

// create is the statements that make the trigger (and on PostgreSQL its
// function) of p.
func (p historyParts) create(d Dialect) []string {
	if d == Postgres {
		return p.postgres()
	}
	return p.sqlite()
}
