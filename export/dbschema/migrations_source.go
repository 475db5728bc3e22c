package dbschema

import "slices"

// Migration 7 puts both services in one database: every export table, and
// the engine's own tables, gain the column source, part of their primary
// key. The rows a database already holds came from EdApp.

// sourceColumn names the service a row came from.
var sourceColumn = Column{Name: "source", Type: Text, Origin: FromEngine, Description: "The service the row came from: edapp or safetyculture."}

// sourceSteps rebuilds each export table with source first among its
// columns and last in its key (joins on a record's id alone still use the
// key's index), and the engine's tables keyed on source. The tables'
// shapes are written out in migrations_source_tables.go as this migration
// left them: a released migration never reads the history before it.
var sourceSteps = []step{
	rebuildTable{Table: usersBySource, Copy: []string{"id", "name", "email", "first_name", "last_name", "external_id", "time_zone", "roles", "user_groups", "managed_user_groups", "custom_fields", "last_active_date", "raw", "edapp_run"}, Fill: edappSource},
	rebuildTable{Table: userCustomFieldsBySource, Copy: []string{"user_id", "name", "value", "edapp_run"}, Fill: edappSource},
	rebuildTable{Table: groupsBySource, Copy: []string{"id", "name", "invite_code", "has_children", "raw", "edapp_run"}, Fill: edappSource},
	rebuildTable{Table: groupMembersBySource, Copy: []string{"group_id", "user_id", "user_external_id", "edapp_run"}, Fill: edappSource},
	rebuildTable{Table: collectionsBySource, Copy: []string{"id", "title", "description", "raw", "edapp_run"}, Fill: edappSource},
	rebuildTable{Table: collectionCoursesBySource, Copy: []string{"collection_id", "course_id", "edapp_run"}, Fill: edappSource},
	rebuildTable{Table: coursesBySource, Copy: []string{"id", "external_id", "title", "description", "status", "locale", "duration", "thumbnail_url", "created_date_time", "modified_date_time", "raw", "edapp_run"}, Fill: edappSource},
	rebuildTable{Table: lessonsBySource, Copy: []string{"id", "course_id", "external_id", "title", "description", "status", "minimum_score", "raw", "edapp_run"}, Fill: edappSource},
	rebuildTable{Table: courseStatisticsBySource, Copy: []string{"course_id", "total_users", "completed_count", "opened_count", "raw", "edapp_run"}, Fill: edappSource},
	rebuildTable{Table: lessonStatisticsBySource, Copy: []string{"lesson_id", "course_id", "lesson_title", "total_users", "opened_count", "completed_count", "raw", "edapp_run"}, Fill: edappSource},
	rebuildTable{Table: surveyQuestionsBySource, Copy: []string{"id", "course_id", "lesson_id", "slide_id", "question_type", "question_content", "answers", "raw", "edapp_run"}, Fill: edappSource},
	rebuildTable{Table: attemptsBySource, Copy: []string{"id", "user_id", "user_external_id", "course_id", "course_external_id", "lesson_id", "lesson_external_id", "started_date_time", "completed_date_time", "score", "success", "earned_stars", "raw"}, Fill: edappSource},
	rebuildTable{Table: courseProgressBySource, Copy: []string{"user_id", "user_external_id", "user_name", "user_first_name", "user_last_name", "course_id", "course_external_id", "course_title", "unlocked", "unlocked_date_time", "opened", "opened_date_time", "completed", "completed_date_time", "lessons_total", "lessons_unlocked", "lessons_completed", "archived", "percentage_completed", "score", "raw"}, Fill: edappSource},
	rebuildTable{Table: lessonProgressEventsBySource, Copy: []string{"user_id", "user_email", "user_first_name", "user_last_name", "course_id", "course_title", "course_external_id", "lesson_id", "lesson_title", "lesson_external_id", "event_name", "event_date_time", "lesson_score", "raw"}, Fill: edappSource},
	rebuildTable{Table: surveyAnswersBySource, Copy: []string{"id", "course_id", "course_external_id", "lesson_id", "lesson_external_id", "slide_id", "user_id", "user_external_id", "attempt_id", "question_id", "question_content", "answer_definition_id", "answer_content", "answered_date_time", "raw"}, Fill: edappSource},
	rebuildTable{Table: userLessonProgressBySource, Copy: []string{"user_id", "course_id", "lesson_id", "lesson_title", "opened", "opened_date_time", "completed", "completed_date_time", "score", "attempts", "raw", "edapp_run"}, Fill: edappSource},
	rebuildTable{Table: userLessonProgressEventsBySource, Copy: []string{"user_id", "user_email", "user_first_name", "user_last_name", "course_id", "course_title", "course_external_id", "lesson_id", "lesson_title", "lesson_external_id", "event_name", "event_date_time", "lesson_score", "raw"}, Fill: edappSource},
	rebuildTable{Table: groupChildrenBySource, Copy: []string{"parent_id", "child_id", "edapp_run"}, Fill: edappSource},
	rebuildTable{Table: edappExportKindsBySource, Copy: []string{"kind", "cursor", "walk_run", "walk_from", "walk_started", "walk_pages", "completed_at"}, Fill: edappSource},
	rebuildTable{Table: edappExportLockBySource, Copy: []string{"holder", "pid", "host", "heartbeat_at", "runs"}, Fill: edappSource},
	rebuildTable{Table: edappExportBudgetBySource, Copy: []string{"admissions", "saved_at"}, Fill: edappSource},
}

// edappSource fills source for the rows a database held before migration 7.
var edappSource = map[string]string{"source": "'edapp'"}

func columnNames(t Table) []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

var edappExportKindsBySource = Table{Name: "edapp_export_kinds", Description: "The export's own: where each kind's fetch stands, per source.", Key: []string{"source", "kind"},
	Columns: slices.Concat([]Column{sourceColumn}, edappExportKindsTable.Columns),
}

var edappExportLockBySource = Table{Name: "edapp_export_lock", Description: "The export's own: who holds the database for each source's export.", Key: []string{"source"},
	Columns: []Column{
		{Name: "source", Type: Text, Origin: FromEngine, Description: "The service whose export the row is about: edapp or safetyculture."},
		{Name: "holder", Type: Text, Origin: FromEngine, Nullable: true, Description: "Who holds the database for the source (\"pid N on HOST\"); NULL when no export does."},
		{Name: "pid", Type: Int, Origin: FromEngine, Nullable: true, Description: "The process id of the holder."},
		{Name: "host", Type: Text, Origin: FromEngine, Nullable: true, Description: "The host name of the holder."},
		{Name: "heartbeat_at", Type: Time, Origin: FromEngine, Nullable: true, Description: "When the holder last committed a page (SQLite)."},
		{Name: "runs", Type: Int, Origin: FromEngine, Nullable: true, Description: "How many export runs of the source the database has seen; numbers its runs."},
	},
}

var edappExportBudgetBySource = Table{Name: "edapp_export_budget", Description: "The export's own: what each source's last export spent of its request budget.", Key: []string{"source"},
	Columns: []Column{
		{Name: "source", Type: Text, Origin: FromEngine, Description: "The service whose budget the row holds: edapp or safetyculture."},
		{Name: "admissions", Type: JSON, Origin: FromEngine, Nullable: true, Description: "The start times of the last export's requests in the budget's window when it saved them, a JSON array."},
		{Name: "saved_at", Type: Time, Origin: FromEngine, Nullable: true, Description: "When the last export saved them."},
	},
}
