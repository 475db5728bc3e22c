package main

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
)

// sourceVersion is the schema version that gave every table its source.
const sourceVersion = 7

// schemaAt makes db's schema as version v of the migrations leaves it,
// as the release that stopped at v would have.
func schemaAt(t *testing.T, db *sql.DB, d dbschema.Dialect, v int) {
	t.Helper()
	stmts := []string{`CREATE TABLE edapp_schema (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at ` + dbschema.Time.SQL(d) + ` NOT NULL)`}
	for _, m := range dbschema.Migrations()[:v] {
		stmts = append(stmts, m.SQL(d)...)
		stmts = append(stmts, rebind(d, `INSERT INTO edapp_schema (version, name, applied_at) VALUES (?, ?, CURRENT_TIMESTAMP)`))
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	n := 0
	for _, s := range stmts {
		var args []any
		if strings.HasPrefix(s, "INSERT INTO edapp_schema") {
			n++
			args = []any{n, dbschema.Migrations()[n-1].Name}
		}
		if _, err := tx.Exec(s, args...); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// tablesAt is the tables of the schema at version v.
func tablesAt(t *testing.T, v int) map[string]dbschema.Table {
	t.Helper()
	out := map[string]dbschema.Table{}
	for _, tb := range dbschema.Migrations()[v-1].Tables() {
		out[tb.Name] = tb
	}
	return out
}

// copyRows copies the rows of from's table, where, into to's table of the
// same name: the columns of shape.
func copyRows(t *testing.T, from, to *sql.DB, d dbschema.Dialect, shape dbschema.Table, where string) {
	t.Helper()
	var cols []string
	for _, c := range shape.Columns {
		cols = append(cols, c.Name)
	}
	rows, err := from.Query(`SELECT ` + strings.Join(cols, ", ") + ` FROM ` + shape.Name + ` ` + where)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	insert := rebind(d, `INSERT INTO `+shape.Name+` (`+strings.Join(cols, ", ")+`) VALUES (`+strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")+`)`)
	for rows.Next() {
		vals := scanAny(t, rows, len(cols))
		for i, c := range shape.Columns {
			if b, ok := vals[i].([]byte); ok && c.Type == dbschema.JSON {
				vals[i] = string(b)
			}
		}
		if _, err := to.Exec(insert, vals...); err != nil {
			t.Fatalf("%s: %v", shape.Name, err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// sameKind is a new, empty database of url's kind.
func sameKind(t *testing.T, url string) string {
	if strings.HasPrefix(url, "sqlite:") {
		return dbtest.SQLite(t)
	}
	return dbtest.Postgres(t)
}

// edappDatabaseAtVersion6 is a database at schema version 6 holding what
// an export of srv into url wrote: the export's tables and its cursors,
// as the release before the source column would have left them.
func edappDatabaseAtVersion6(t *testing.T, url string) string {
	t.Helper()
	old := sameKind(t, url)
	from, d := openTestDB(t, url)
	to, _ := openTestDB(t, old)
	schemaAt(t, to, d, sourceVersion-1)
	v6 := tablesAt(t, sourceVersion-1)
	for _, tb := range exportTables() {
		copyRows(t, from, to, d, v6[tb.Name], `WHERE source = 'edapp'`)
	}
	copyRows(t, from, to, d, v6["edapp_export_kinds"], `WHERE source = 'edapp'`)
	if _, err := to.Exec(`INSERT INTO edapp_export_lock (id, runs) VALUES (1, 1)`); err != nil {
		t.Fatal(err)
	}
	return old
}

// releasedReadmeQueries are the README's queries as the release before the
// source column printed them: what users of an EdApp-only database run.
var releasedReadmeQueries = map[string]string{
	"completions per course this month (SQLite)": `SELECT c.title, COUNT(*) AS completions
FROM course_progress p JOIN courses c ON c.id = p.course_id
WHERE p.completed AND p.completed_date_time >= strftime('%Y-%m-01T00:00:00', 'now')
GROUP BY c.title ORDER BY completions DESC, c.title`,
	"completions per course this month (PostgreSQL)": `SELECT c.title, COUNT(*) AS completions
FROM course_progress p JOIN courses c ON c.id = p.course_id
WHERE p.completed AND p.completed_date_time >= date_trunc('month', now())
GROUP BY c.title ORDER BY completions DESC, c.title`,
	"learners with no activity in 30 days (SQLite)": `SELECT u.id, u.name, MAX(a.started_date_time) AS last_attempt
FROM users u LEFT JOIN attempts a ON a.user_id = u.id
GROUP BY u.id, u.name
HAVING MAX(a.started_date_time) IS NULL OR MAX(a.started_date_time) < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-30 days')
ORDER BY u.name`,
	"learners with no activity in 30 days (PostgreSQL)": `SELECT u.id, u.name, MAX(a.started_date_time) AS last_attempt
FROM users u LEFT JOIN attempts a ON a.user_id = u.id
GROUP BY u.id, u.name
HAVING MAX(a.started_date_time) IS NULL OR MAX(a.started_date_time) < now() - interval '30 days'
ORDER BY u.name`,
	"average score per lesson (SQLite)": `SELECT l.title AS lesson, COUNT(*) AS attempts, ROUND(AVG(a.score), 1) AS average_score
FROM attempts a JOIN lessons l ON l.id = a.lesson_id
WHERE a.completed_date_time IS NOT NULL
GROUP BY l.id, l.title ORDER BY l.title`,
	"average score per lesson (PostgreSQL)": `SELECT l.title AS lesson, COUNT(*) AS attempts, ROUND(AVG(a.score)::numeric, 1) AS average_score
FROM attempts a JOIN lessons l ON l.id = a.lesson_id
WHERE a.completed_date_time IS NOT NULL
GROUP BY l.id, l.title ORDER BY l.title`,
}

// TestMigrateSourceKeepsReadmeAnswers: an EdApp-only database at schema
// version 6 migrates forward in place (its rows get source 'edapp'), the
// README's queries answer on it what the released ones answered before,
// and the next export resumes from its cursors and changes nothing.
func TestMigrateSourceKeepsReadmeAnswers(t *testing.T) {
	t.Parallel()
	srv, _ := queryFixture(t)
	want := expectedAnswers(t, srv)
	queries := readmeQueries(t)
	bothDBs(t, func(t *testing.T, url string) {
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url), exitOK)
		old := edappDatabaseAtVersion6(t, url)
		d := map[bool]string{true: "SQLite", false: "PostgreSQL"}[strings.HasPrefix(url, "sqlite:")]
		before := map[string][][]string{}
		for name, check := range want {
			before[name] = rowsOf(t, old, releasedReadmeQueries[name+" ("+d+")"])
			if g := check(before[name]); g != "" {
				t.Fatalf("before: %s: %s", name, g)
			}
		}
		db, dialect := openTestDB(t, old)
		if err := dbschema.NewMigrator(db, dialect).Up(context.Background()); err != nil {
			t.Fatal(err)
		}
		for name := range want {
			if got := rowsOf(t, old, queries[name+" ("+d+")"]); !slices.EqualFunc(got, before[name], slices.Equal) {
				t.Errorf("%s: after the migration %v, before %v", name, got, before[name])
			}
		}
		var others int
		if err := db.QueryRow(`SELECT COUNT(*) FROM users WHERE source <> 'edapp'`).Scan(&others); err != nil || others != 0 {
			t.Errorf("users of another source: %d, %v", others, err)
		}
		migrated := snapshot(t, db)
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", old), exitOK)
		diffSnapshots(t, "the export after the migration", migrated, snapshot(t, db))
		exported, _ := openTestDB(t, url)
		diffSnapshots(t, "the migrated database against a new export", snapshot(t, exported), migrated)
	})
}

// sourceSnapshot is snapshot of one source's rows, and its rows of the
// export's own tables.
func sourceSnapshot(t *testing.T, db *sql.DB, source string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for name, rows := range snapshot(t, db) {
		for _, r := range rows {
			if strings.HasPrefix(r, "source="+source+"|") {
				out[name] = append(out[name], r)
			}
		}
	}
	for _, q := range []string{`SELECT kind, cursor, completed_at FROM edapp_export_kinds WHERE source = '` + source + `'`,
		`SELECT holder, runs FROM edapp_export_lock WHERE source = '` + source + `'`} {
		out[q] = nil
		for _, r := range rowsOfDB(t, db, q) {
			out[q] = append(out[q], strings.Join(r, "|"))
		}
		slices.Sort(out[q])
	}
	return out
}
