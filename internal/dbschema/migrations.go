package dbschema

import (
	"slices"
	"strings"
)

// migrations is the schema's history, oldest first. A released migration
// never changes: a change to the schema is a new entry at the end.
//
// Version 1 is the export's tables; version 2 is reserved for the webhook
// inbox's events table; version 3 adds the group hierarchy.
var migrations = []Migration{
	{Version: 1, Name: "export tables", Statements: func(d Dialect) []string {
		var out []string
		for _, t := range exportTables {
			out = append(out, t.create(d)...)
		}
		return out
	}},
	{Version: 2, Name: "webhook events", Statements: eventsTable.create},
	{Version: 3, Name: "group children", Statements: groupChildrenTable.create},
	{Version: 4, Name: "export budget", Statements: exportBudgetTable.create},
}

// groupChildrenTable is the export's group_children kind: each group's
// direct children (version 3).
var groupChildrenTable = Table{Name: "group_children", Key: []string{"parent_id", "child_id"}, Indexes: [][]string{{"child_id"}, {"edapp_run"}},
	Columns: cols("parent_id text, child_id text" + runCol)}

// exportBudgetTable keeps what the last export spent of the request
// budget (version 4): one row, id 1, whose admissions are the start times
// of its requests in the window current when it saved them, as a JSON
// array, so that a resumed export counts them.
var exportBudgetTable = Table{Name: "edapp_export_budget", Key: []string{"id"},
	Columns: cols("id int, admissions json, saved_at time")}

// Columns every table of the export shares, at the end of its row: raw is
// the record as the service sent it (on the tables that hold service
// records), edapp_run the export run that last saw the row (on mirrored
// tables, whose unseen rows a complete fetch deletes).
const (
	rawCol = ", raw json"
	runCol = ", edapp_run int"
)

// Shared column lists.
const (
	progressEventCols = "user_id text, user_email text, user_first_name text, user_last_name text, course_id text, course_title text, " +
		"course_external_id text, lesson_id text, lesson_title text, lesson_external_id text, event_name text, event_date_time time, lesson_score real"
)

// exportTables are the export's tables as version 1 made them: one per
// kind, named after it, with the kind's CSV columns in snake_case; then
// the engine's own. A table added later has a migration of its own.
var exportTables = []Table{
	{Name: "users", Key: []string{"id"}, Indexes: [][]string{{"external_id"}, {"edapp_run"}},
		Columns: cols("id text, name text, email text, first_name text, last_name text, external_id text, time_zone text, roles json, " +
			"user_groups json, managed_user_groups json, custom_fields json, last_active_date time" + rawCol + runCol)},
	{Name: "user_custom_fields", Key: []string{"user_id", "name"}, Indexes: [][]string{{"name"}, {"edapp_run"}},
		Columns: cols("user_id text, name text, value text" + runCol)},
	{Name: "groups", Key: []string{"id"}, Indexes: [][]string{{"edapp_run"}},
		Columns: cols("id text, name text, invite_code text, has_children bool" + rawCol + runCol)},
	{Name: "group_members", Key: []string{"group_id", "user_id"}, Indexes: [][]string{{"user_id"}, {"edapp_run"}},
		Columns: cols("group_id text, user_id text, user_external_id text" + runCol)},
	{Name: "collections", Key: []string{"id"}, Indexes: [][]string{{"edapp_run"}},
		Columns: cols("id text, title text, description text" + rawCol + runCol)},
	{Name: "collection_courses", Key: []string{"collection_id", "course_id"}, Indexes: [][]string{{"course_id"}, {"edapp_run"}},
		Columns: cols("collection_id text, course_id text" + runCol)},
	{Name: "courses", Key: []string{"id"}, Indexes: [][]string{{"external_id"}, {"edapp_run"}},
		Columns: cols("id text, external_id text, title text, description text, status text, locale text, duration int, thumbnail_url text, " +
			"created_date_time time, modified_date_time time" + rawCol + runCol)},
	{Name: "lessons", Key: []string{"id"}, Indexes: [][]string{{"course_id"}, {"edapp_run"}},
		Columns: cols("id text, course_id text, external_id text, title text, description text, status text, minimum_score real" + rawCol + runCol)},
	{Name: "course_statistics", Key: []string{"course_id"}, Indexes: [][]string{{"edapp_run"}},
		Columns: cols("course_id text, total_users int, completed_count int, opened_count int" + rawCol + runCol)},
	{Name: "lesson_statistics", Key: []string{"lesson_id"}, Indexes: [][]string{{"course_id"}, {"edapp_run"}},
		Columns: cols("lesson_id text, course_id text, lesson_title text, total_users int, opened_count int, completed_count int" + rawCol + runCol)},
	{Name: "survey_questions", Key: []string{"id"}, Indexes: [][]string{{"course_id"}, {"lesson_id"}, {"edapp_run"}},
		Columns: cols("id text, course_id text, lesson_id text, slide_id text, question_type text, question_content text, answers json" + rawCol + runCol)},
	{Name: "attempts", Key: []string{"id"},
		Indexes: [][]string{{"user_id"}, {"course_id"}, {"lesson_id"}, {"started_date_time"}},
		Columns: cols("id text, user_id text, user_external_id text, course_id text, course_external_id text, lesson_id text, lesson_external_id text, " +
			"started_date_time time, completed_date_time time, score real, success bool, earned_stars int" + rawCol)},
	{Name: "course_progress", Key: []string{"user_id", "course_id"}, Indexes: [][]string{{"course_id"}, {"completed_date_time"}},
		Columns: cols("user_id text, user_external_id text, user_name text, user_first_name text, user_last_name text, course_id text, " +
			"course_external_id text, course_title text, unlocked bool, unlocked_date_time time, opened bool, opened_date_time time, " +
			"completed bool, completed_date_time time, lessons_total int, lessons_unlocked int, lessons_completed int, archived bool, " +
			"percentage_completed real, score real" + rawCol)},
	{Name: "lesson_progress_events", Key: []string{"user_id", "lesson_id", "event_name", "event_date_time"},
		Indexes: [][]string{{"course_id"}, {"lesson_id"}, {"event_date_time"}},
		Columns: cols(progressEventCols + rawCol)},
	{Name: "survey_answers", Key: []string{"id"}, Indexes: [][]string{{"user_id"}, {"course_id"}, {"lesson_id"}, {"answered_date_time"}},
		Columns: cols("id text, course_id text, course_external_id text, lesson_id text, lesson_external_id text, slide_id text, user_id text, " +
			"user_external_id text, attempt_id text, question_id text, question_content text, answer_definition_id text, answer_content text, " +
			"answered_date_time time" + rawCol)},
	{Name: "user_lesson_progress", Key: []string{"user_id", "lesson_id"}, Indexes: [][]string{{"course_id"}, {"lesson_id"}, {"edapp_run"}},
		Columns: cols("user_id text, course_id text, lesson_id text, lesson_title text, opened bool, opened_date_time time, completed bool, " +
			"completed_date_time time, score real, attempts int" + rawCol + runCol)},
	{Name: "user_lesson_progress_events", Key: []string{"user_id", "lesson_id", "event_name", "event_date_time"},
		Indexes: [][]string{{"course_id"}, {"lesson_id"}, {"event_date_time"}},
		Columns: cols(progressEventCols + rawCol)},

	// The engine's own: where each kind's fetch stands, and who holds the
	// database. See package export.
	{Name: "edapp_export_kinds", Key: []string{"kind"},
		Columns: cols("kind text, cursor time, walk_run int, walk_from time, walk_started time, walk_pages int, completed_at time")},
	{Name: "edapp_export_lock", Key: []string{"id"},
		Columns: cols("id int, holder text, pid int, host text, heartbeat_at time, runs int")},
}

// ExportTables returns the export's tables as the latest migration leaves
// them, kinds first, then the engine's own (edapp_export_*).
func ExportTables() []Table {
	i := slices.IndexFunc(exportTables, func(t Table) bool { return strings.HasPrefix(t.Name, "edapp_export_") })
	return slices.Concat(exportTables[:i], []Table{groupChildrenTable}, exportTables[i:], []Table{exportBudgetTable})
}
