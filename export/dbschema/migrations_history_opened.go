package dbschema

// Migration 24: an index of each history table on (source, valid_from),
// so that the end of a walk counts the versions it opened by seeking to
// them. The history tables' keys begin with the row's own key, so the
// count of migration 21 read all of a source's versions, a cost that grew
// with every walk kept. Migration 25 replaces this index with one on
// (valid_from, source): see there why.

// openedVersionsVersion is the migration that indexes the versions by the
// time they opened.
const openedVersionsVersion = 24

// openedVersionsSteps are migration 24's.
func openedVersionsSteps() []step {
	return eachHistoryTable(func(t Table) step { return createIndex{t.Name, openedVersionsIndex} })
}

// openedVersionsIndex is migration 24's index of the versions by the time
// they opened, which migration 25 drops.
var openedVersionsIndex = Index{Columns: []string{"source", "valid_from"}}
