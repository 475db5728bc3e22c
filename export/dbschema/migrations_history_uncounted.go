package dbschema

// Migration 21: the history triggers no longer count the versions a walk
// opens and closes. Migration 20's triggers added each row's versions to
// the kind's one row of edapp_export_kinds, an UPDATE of the same hot row
// for every row that opened or closed a version; the export now counts a
// walk's versions once, at its end, in the history tables (the versions
// whose valid_from or valid_to is the walk's time). The triggers write the
// same versions as before. The versions a walk closed are found in a
// partial index of the closed versions (closedVersionsIndex), which only a
// closing writes to; those it opened, from migration 24 on, in an index of
// their own (openedVersionsFirstIndex since migration 25).

// uncountedHistoryVersion is the migration that takes the counting out of
// the history triggers.
const uncountedHistoryVersion = 21

// uncountedHistorySteps are migration 21's.
func uncountedHistorySteps() []step {
	steps := make([]step, 0, 2*len(historyTables))
	for _, t := range historyTables {
		steps = append(steps, uncountedHistoryTrigger{t})
	}
	for _, t := range historyTables {
		steps = append(steps, createIndex{t.Name, closedVersionsIndex})
	}
	return steps
}

// closedVersionsIndex finds a source's versions closed at a time: the
// end of a walk counts those it closed.
var closedVersionsIndex = Index{Columns: []string{"source", "valid_to"}, Where: "valid_to IS NOT NULL"}

// uncountedHistoryTrigger makes again the history trigger that
// historyTrigger made, without the counting: on SQLite it drops and
// creates the two triggers, on PostgreSQL it replaces the trigger
// function (the trigger that calls it stays).
type uncountedHistoryTrigger struct{ History Table }

func (s uncountedHistoryTrigger) apply(sh *shape) error { return historyTrigger(s).apply(sh) }

// parts are historyTrigger's but for the counting.
func (s uncountedHistoryTrigger) parts(d Dialect) historyParts {
	p := historyTrigger(s).parts(d)
	p.counts = false
	return p
}

// SQL is the statements that replace the trigger in d.
func (s uncountedHistoryTrigger) SQL(d Dialect) []string {
	p := s.parts(d)
	if d == Postgres {
		return []string{p.postgresFunction()}
	}
	return append([]string{`DROP TRIGGER IF EXISTS ` + p.h + `_insert`, `DROP TRIGGER IF EXISTS ` + p.h + `_update`}, p.sqlite()...)
}
