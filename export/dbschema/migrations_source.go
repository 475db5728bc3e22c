package dbschema

import "slices"

// Migration 7 puts both services in one database: every export table, and
// the engine's own tables, gain the column source, part of their primary
// key. The rows a database already holds came from EdApp.

// sourceColumn names the service a row came from.
var sourceColumn = Column{Name: "source", Type: Text, Origin: FromEngine, Description: "The service the row came from: edapp or safetyculture."}

// sourcedTables are the tables the export fills with records.
var sourcedTables = []string{
	"users", "user_custom_fields", "groups", "group_members", "collections", "collection_courses", "courses",
	"lessons", "course_statistics", "lesson_statistics", "survey_questions", "attempts", "course_progress",
	"lesson_progress_events", "survey_answers", "user_lesson_progress", "user_lesson_progress_events",
	"group_children",
}

// sourceSteps rebuilds each export table of the schema before (the
// released migrations 1-6) with source first among its columns and last in
// its key (joins on a record's id alone still use the key's index), and
// the engine's tables keyed on source.
func sourceSteps(before []Migration) []Step {
	tables, err := Fold(before)
	if err != nil {
		panic(err) // a mistake in migrations, which the package's tests find
	}
	var steps []Step
	for _, name := range sourcedTables {
		i := slices.IndexFunc(tables, func(t Table) bool { return t.Name == name })
		old := tables[i].clone()
		t := old.clone()
		t.Columns = slices.Concat([]Column{sourceColumn}, t.Columns)
		t.Key = append(t.Key, "source")
		steps = append(steps, RebuildTable{Table: t, Copy: columnNames(old), Fill: edappSource})
	}
	return append(steps,
		RebuildTable{Table: edappExportKindsBySource, Copy: columnNames(edappExportKindsTable), Fill: edappSource},
		RebuildTable{Table: edappExportLockBySource, Copy: []string{"holder", "pid", "host", "heartbeat_at", "runs"}, Fill: edappSource},
		RebuildTable{Table: edappExportBudgetBySource, Copy: []string{"admissions", "saved_at"}, Fill: edappSource},
	)
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
