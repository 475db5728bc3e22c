package dbschema

import "strings"

// Migration 22: on PostgreSQL, a history trigger fired by the insert of a
// row whose key has no open version (every row of a first run) opens the
// version with one plain INSERT, instead of running the two UPDATEs that
// find nothing to close or refresh and an INSERT that looks for the open
// version again. A row inserted where an open version is (its row was
// deleted and is back) and every update take migration 21's statements.
// The trigger writes the same versions as before; on SQLite, whose
// triggers run in the export's own process, nothing changes.

// insertOpensHistoryVersion is the migration that gives the history
// triggers their insert's short way.
const insertOpensHistoryVersion = 22

// insertOpensHistorySteps are migration 22's.
func insertOpensHistorySteps() []step {
	return eachHistoryTable(func(t Table) step { return insertOpensHistoryTrigger{t} })
}

// insertOpensHistoryTrigger replaces, on PostgreSQL, the trigger function
// of migration 21's history trigger by one whose insert of a key with no
// open version opens it at once (the trigger that calls it stays).
type insertOpensHistoryTrigger struct{ History Table }

func (s insertOpensHistoryTrigger) apply(sh *shape) error { return historyTrigger(s).apply(sh) }

// SQL is the statement that replaces the trigger function; none on SQLite.
func (s insertOpensHistoryTrigger) SQL(d Dialect) []string {
	if d != Postgres {
		return nil
	}
	p := uncountedHistoryTrigger(s).parts(d)
	walk, closeChanged, refresh, openNew := p.postgresStatements()
	open := p.key + ` AND valid_to IS NULL`
	opened := `INSERT INTO ` + p.h + ` (` + strings.Join(p.cols, ", ") + `, valid_from, valid_to) VALUES (` + p.newCols + `, COALESCE(hist_walk, now()), NULL);`
	return []string{historyFunction(p.h, nil, walk,
		`IF TG_OP = 'INSERT' AND NOT EXISTS (SELECT 1 FROM `+p.h+` WHERE `+open+`) THEN
    `+opened+`
    RETURN NULL;
  END IF;`,
		closeChanged, refresh, openNew, `RETURN NULL;`)}
}
