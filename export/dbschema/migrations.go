package dbschema

import (
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Migration is one version of the schema: typed steps, applied in one
// transaction. A released migration never changes (its golden files under
// testdata/migrations hold it): a change to the schema is a new migration
// at the end.
type Migration struct {
	Version int
	Name    string
	Steps   []Step
}

// SQL is the migration's statements in d, in order.
func (m Migration) SQL(d Dialect) []string {
	var out []string
	for _, s := range m.Steps {
		out = append(out, s.SQL(d)...)
	}
	return out
}

// migrations is the schema's history, oldest first: one literal list of
// steps per version. A released migration (one on main) never changes; a
// change to the schema is a new migration at the end.
var migrations = []Migration{
	{Version: 1, Name: "export tables", Steps: createTables(
		usersTable, userCustomFieldsTable, groupsTable, groupMembersTable, collectionsTable, collectionCoursesTable,
		coursesTable, lessonsTable, courseStatisticsTable, lessonStatisticsTable, surveyQuestionsTable, attemptsTable,
		courseProgressTable, lessonProgressEventsTable, surveyAnswersTable, userLessonProgressTable,
		userLessonProgressEventsTable, edappExportKindsTable, edappExportLockTable)},
	{Version: 2, Name: "webhook events", Steps: createTables(eventsTable)},
	{Version: 3, Name: "group children", Steps: createTables(groupChildrenTable)},
	{Version: 4, Name: "export budget", Steps: createTables(edappExportBudgetTable)},
	{Version: 5, Name: "rejects", Steps: createTables(rejectsTable)},
	{Version: 6, Name: "hash indexes", Steps: []Step{PostgresOnly{hashIndexes(map[string][]string{
		"users": {"external_id"}, "user_custom_fields": {"name"}, "group_members": {"user_id"},
		"group_children": {"child_id"}, "collection_courses": {"course_id"}, "courses": {"external_id"},
		"lessons": {"course_id"}, "lesson_statistics": {"course_id"}, "survey_questions": {"course_id", "lesson_id"},
		"attempts": {"user_id", "course_id", "lesson_id"}, "course_progress": {"course_id"},
		"lesson_progress_events": {"course_id", "lesson_id"}, "survey_answers": {"user_id", "course_id", "lesson_id"},
		"user_lesson_progress": {"course_id", "lesson_id"}, "user_lesson_progress_events": {"course_id", "lesson_id"},
		"events": {"user_id", "course_id"},
	})}}},
	{Version: 7, Name: "source", Steps: sourceSteps},
	{Version: 8, Name: "safetyculture kinds", Steps: safetyCultureSteps},
	{Version: 9, Name: "identities", Steps: []Step{CreateTable{identitiesTable}}},
	{Version: 10, Name: "views", Steps: []Step{trainingCompletionsView, peopleView}},
	{Version: 11, Name: "safetyculture analytics", Steps: safetyCultureAnalyticsSteps},
	{Version: 12, Name: "btree indexes", Steps: btreeSteps},
	{Version: 13, Name: "unchanged rows", Steps: unchangedRowsSteps},
	{Version: 14, Name: "identities changed", Steps: identitiesChangedSteps},
	{Version: 15, Name: "open attempts", Steps: []Step{CreateIndex{"attempts", openAttemptsIndex}}},
	{Version: IdentityPairsVersion, Name: "identity pairs", Steps: identityPairsSteps()},
	{Version: 17, Name: "safetyculture zero scores", Steps: zeroScoreSteps},
	{Version: 18, Name: "schema version bigint", Steps: []Step{BigintColumn{edappSchemaTable.Name, "version"}}},
	{Version: RejectsByRecordVersion, Name: "rejects by record", Steps: rejectsByRecordSteps()},
	{Version: historyVersion, Name: "history", Steps: historySteps()},
}

// openAttemptsIndex finds the oldest open attempt of a source at once,
// which each export's plan of attempts reads (export's Kind.OpenField):
// without it, that read went through every attempt of the open window,
// on a table just loaded each one read from the heap for the first time.
var openAttemptsIndex = Index{Columns: []string{"source", "started_date_time"}, Where: "completed_date_time IS NULL"}

// hashIndexes rebuilds the indexes on each table's columns USING hash, in
// the order of the tables' names.
func hashIndexes(columns map[string][]string) []Step {
	var steps []Step
	for _, table := range slices.Sorted(maps.Keys(columns)) {
		for _, c := range columns[table] {
			steps = append(steps, DropIndex{table, []string{c}}, CreateIndex{table, Index{Columns: []string{c}, Hash: true}})
		}
	}
	return steps
}

func createTables(tables ...Table) []Step {
	steps := make([]Step, len(tables))
	for i, t := range tables {
		steps[i] = CreateTable{t}
	}
	return steps
}

// Migrations returns the schema's history, oldest first.
func Migrations() []Migration { return slices.Clone(migrations) }

// Latest is the schema version Migrator.Up brings a database to.
func Latest() int { return latest() }

// latest is the version of the last migration.
func latest() int { return migrations[len(migrations)-1].Version }

// Fold applies the steps of ms in order to an empty schema and returns the
// tables they leave, in the order they were created; an error names the
// first step that does not fit the tables before it.
func Fold(ms []Migration) ([]Table, error) {
	var s shape
	for _, m := range ms {
		for i, st := range m.Steps {
			if err := st.apply(&s); err != nil {
				return nil, fmt.Errorf("dbschema: migration %d, step %d: %w", m.Version, i+1, err)
			}
		}
	}
	return s.tables, nil
}

var latestTables = sync.OnceValues(func() ([]Table, error) { return Fold(migrations) })

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
	for _, t := range Tables() {
		if t.Name == name {
			return t, true
		}
	}
	return Table{}, false
}
