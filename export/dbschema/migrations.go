package dbschema

import (
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Migration is one version of the schema: a list of typed steps,
// applied in one transaction. A released migration never
// changes (its golden files under testdata/migrations hold it): a change
// to the schema is a new migration at the end.
type Migration struct {
	Version int
	Name    string
	steps   []step
}

// Tables is the schema's tables as the migrations up to this one leave
// them (Tables for the last), in the order they were created: the
// database a release that stopped at this version made.
func (m Migration) Tables() []Table {
	i := slices.IndexFunc(migrations, func(k Migration) bool { return k.Version == m.Version })
	tables, err := fold(migrations[:i+1])
	if err != nil {
		panic(err) // a mistake in migrations, which the package's tests find
	}
	return tables
}

// SQL is the migration's statements in d, in order.
func (m Migration) SQL(d Dialect) []string {
	var out []string
	for _, s := range m.steps {
		out = append(out, s.SQL(d)...)
	}
	return out
}

// migrations is the schema's history, oldest first: one literal list of
// steps per version. A released migration (one on main) never changes; a
// change to the schema is a new migration at the end.
var migrations = []Migration{
	{Version: 1, Name: "export tables", steps: createTables(
		usersTable, userCustomFieldsTable, groupsTable, groupMembersTable, collectionsTable, collectionCoursesTable,
		coursesTable, lessonsTable, courseStatisticsTable, lessonStatisticsTable, surveyQuestionsTable, attemptsTable,
		courseProgressTable, lessonProgressEventsTable, surveyAnswersTable, userLessonProgressTable,
		userLessonProgressEventsTable, edappExportKindsTable, edappExportLockTable)},
	{Version: 2, Name: "webhook events", steps: createTables(eventsTable)},
	{Version: 3, Name: "group children", steps: createTables(groupChildrenTable)},
	{Version: 4, Name: "export budget", steps: createTables(edappExportBudgetTable)},
	{Version: 5, Name: "rejects", steps: createTables(rejectsTable)},
	{Version: 6, Name: "hash indexes", steps: []step{postgresOnly{hashIndexes(map[string][]string{
		"users": {"external_id"}, "user_custom_fields": {"name"}, "group_members": {"user_id"},
		"group_children": {"child_id"}, "collection_courses": {"course_id"}, "courses": {"external_id"},
		"lessons": {"course_id"}, "lesson_statistics": {"course_id"}, "survey_questions": {"course_id", "lesson_id"},
		"attempts": {"user_id", "course_id", "lesson_id"}, "course_progress": {"course_id"},
		"lesson_progress_events": {"course_id", "lesson_id"}, "survey_answers": {"user_id", "course_id", "lesson_id"},
		"user_lesson_progress": {"course_id", "lesson_id"}, "user_lesson_progress_events": {"course_id", "lesson_id"},
		"events": {"user_id", "course_id"},
	})}}},
	{Version: 7, Name: "source", steps: sourceSteps},
	{Version: 8, Name: "safetyculture kinds", steps: safetyCultureSteps},
	{Version: 9, Name: "identities", steps: []step{createTable{identitiesTable}}},
	{Version: 10, Name: "views", steps: []step{trainingCompletionsView, peopleView}},
	{Version: 11, Name: "safetyculture analytics", steps: safetyCultureAnalyticsSteps},
	{Version: 12, Name: "btree indexes", steps: btreeSteps},
	{Version: 13, Name: "unchanged rows", steps: unchangedRowsSteps},
	{Version: 14, Name: "identities changed", steps: identitiesChangedSteps},
	{Version: 15, Name: "open attempts", steps: []step{createIndex{"attempts", openAttemptsIndex}}},
	{Version: IdentityPairsVersion, Name: "identity pairs", steps: identityPairsSteps()},
	{Version: 17, Name: "safetyculture zero scores", steps: zeroScoreSteps},
	{Version: 18, Name: "schema version bigint", steps: []step{bigintColumn{edappSchemaTable.Name, "version"}}},
	{Version: rejectsByRecordVersion, Name: "rejects by record", steps: rejectsByRecordSteps()},
	{Version: historyVersion, Name: "history", steps: historySteps()},
	{Version: uncountedHistoryVersion, Name: "history counted at walk end", steps: uncountedHistorySteps()},
	{Version: insertOpensHistoryVersion, Name: "history inserts open versions", steps: insertOpensHistorySteps()},
	{Version: insertOpensHistoryOnceVersion, Name: "history inserts open versions at once", steps: insertOpensHistoryOnceSteps()},
	{Version: openedVersionsVersion, Name: "history opened versions index", steps: openedVersionsSteps()},
	{Version: historyIndexesByKeyVersion, Name: "history indexes led by other columns than source", steps: historyIndexesByKeySteps()},
}

// openAttemptsIndex finds the oldest open attempt of a source at once,
// which each export's plan of attempts reads (export's Kind.OpenField):
// without it, that read went through every attempt of the open window,
// on a table just loaded each one read from the heap for the first time.
var openAttemptsIndex = Index{Columns: []string{"source", "started_date_time"}, Where: "completed_date_time IS NULL"}

// hashIndexes rebuilds the indexes on each table's columns USING hash, in
// the order of the tables' names.
func hashIndexes(columns map[string][]string) []step {
	var steps []step
	for _, table := range slices.Sorted(maps.Keys(columns)) {
		for _, c := range columns[table] {
			steps = append(steps, dropIndex{table, []string{c}}, createIndex{table, Index{Columns: []string{c}, Hash: true}})
		}
	}
	return steps
}

func createTables(tables ...Table) []step {
	steps := make([]step, len(tables))
	for i, t := range tables {
		steps[i] = createTable{t}
	}
	return steps
}

// Migrations returns the schema's history, oldest first.
func Migrations() []Migration { return slices.Clone(migrations) }

// latest is the version of the last migration.
func latest() int { return migrations[len(migrations)-1].Version }

// Fold applies the steps of ms in order to an empty schema and returns the
// tables they leave, in the order they were created; an error names the
// first step that does not fit the tables before it.
func fold(ms []Migration) ([]Table, error) {
	var s shape
	for _, m := range ms {
		for i, st := range m.steps {
			if err := st.apply(&s); err != nil {
				return nil, fmt.Errorf("dbschema: migration %d, step %d: %w", m.Version, i+1, err)
			}
		}
	}
	return s.tables, nil
}

var latestTables = sync.OnceValues(func() ([]Table, error) { return fold(migrations) })

// Tables returns every table as the latest migration leaves it, in the
// order the migrations created them.
func Tables() []Table {
	tables, err := latestTables()
	if err != nil {
		panic(err) // a mistake in migrations, which the package's tests find
	}
	out := make([]Table, len(tables))
	for i, t := range tables {
		out[i] = t.clone()
	}
	return out
}

// Lookup returns the named table as the latest migration leaves it.
func Lookup(name string) (Table, bool) {
	tables, err := latestTables()
	if err != nil {
		panic(err) // as Tables
	}
	// Only the table found is copied: an export looks tables up by name
	// many times, and copying them all was a share of a re-run's CPU.
	for _, t := range tables {
		if t.Name == name {
			return t.clone(), true
		}
	}
	return Table{}, false
}
