package dbschema

// Migration 25: no secondary index of a history table begins with source.
// Migration 24's index of each history table on (source, valid_from)
// becomes one on (valid_from, source), and users_history's on (source,
// email) and (source, external_id) become (email, source) and
// (external_id, source); each serves the same lookups, which give every
// column. But PostgreSQL's generic plan for the history trigger's
// statements on a key's open version (source and the key's columns,
// valid_to IS NULL), which a trigger's cached plans become, could take an
// index whose first column is source, and read every version of the
// source for each row written: under migration 24 a first run cost the
// server several times the CPU it did before. An index that begins with
// another column offers those statements nothing, so they keep to the
// table's primary key.

// historyIndexesByKeyVersion is the migration that takes source out of
// the front of the history tables' secondary indexes.
const historyIndexesByKeyVersion = 25

// historyIndexesByKeySteps are migration 25's.
func historyIndexesByKeySteps() []step {
	steps := make([]step, 0, 2*len(historyTables)+4)
	for _, t := range historyTables {
		steps = append(steps, dropIndex{t.Name, openedVersionsIndex.Columns}, createIndex{t.Name, openedVersionsFirstIndex})
	}
	for _, c := range []string{"email", "external_id"} {
		steps = append(steps, dropIndex{"users_history", []string{"source", c}}, createIndex{"users_history", Index{Columns: []string{c, "source"}}})
	}
	return steps
}

// openedVersionsFirstIndex finds the versions opened at a time, a
// source's among them: the end of a walk counts those it opened.
var openedVersionsFirstIndex = Index{Columns: []string{"valid_from", "source"}}
