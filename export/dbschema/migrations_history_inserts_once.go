package dbschema

import "strings"

// Migration 23: on PostgreSQL, the insert of a key with no open version
// (every row of a first run) costs its history trigger one statement, not
// migration 22's three: the INSERT that opens the version reads the walk's
// time itself and looks for an open version in its own WHERE. When it
// inserts nothing (the key has one), the function goes on with migration
// 21's statements, unchanged, as every update does; the versions written
// are the same.

// insertOpensHistoryOnceVersion is the migration that opens a first
// insert's version in one statement.
const insertOpensHistoryOnceVersion = 23

// insertOpensHistoryOnceSteps are migration 23's.
func insertOpensHistoryOnceSteps() []step {
	return eachHistoryTable(func(t Table) step { return insertOpensHistoryOnceTrigger{t} })
}

// insertOpensHistoryOnceTrigger replaces, on PostgreSQL, the trigger
// function of migration 22 by one whose insert of a key with no open
// version is one statement (the trigger that calls it stays).
type insertOpensHistoryOnceTrigger struct{ History Table }

func (s insertOpensHistoryOnceTrigger) apply(sh *shape) error { return historyTrigger(s).apply(sh) }

// SQL is the statement that replaces the trigger function; none on SQLite.
func (s insertOpensHistoryOnceTrigger) SQL(d Dialect) []string {
	if d != Postgres {
		return nil
	}
	p := uncountedHistoryTrigger(s).parts(d)
	walk, closeChanged, refresh, openNew := p.postgresStatements()
	walkTime := `(SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = '` + p.kind + `')`
	opened := strings.Replace(openNew, `COALESCE(hist_walk, now())`, `COALESCE(`+walkTime+`, now())`, 1)
	return []string{historyFunction(p.h, nil,
		`IF TG_OP = 'INSERT' THEN
    `+opened+`
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;`,
		walk, closeChanged, refresh, openNew, `RETURN NULL;`)}
}
