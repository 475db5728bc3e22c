package dbschema

// Migration 13: a re-run leaves the rows it finds unchanged as they are.
// Every table the export writes gains edapp_digest, a digest of the row's
// values: a complete fetch reads the digests first and writes only the
// rows whose digest differs. It used to tell the rows it saw by edapp_run,
// which it wrote into every row it saw, changed or not; it now keeps the
// keys it saw in edapp_export_seen, in the transaction of each group of
// pages, so that an interrupted fetch's next run knows them too, and
// deletes the rows whose keys are in none.

var edappExportSeenTable = Table{Name: "edapp_export_seen", Description: "The export's own: the keys a complete fetch of a mirrored kind has seen so far, a row per table and group of pages; emptied when the fetch completes, after it deleted the rows it did not see.",
	Key: []string{"source", "table_name", "walk_run", "export_run", "part"},
	Columns: []Column{
		sourceColumn,
		{Name: "table_name", Type: Text, Origin: FromEngine, Description: "The table the keys are of."},
		{Name: "walk_run", Type: Int, Origin: FromEngine, Description: "The export run that began the fetch (edapp_export_kinds.walk_run): a fetch resumed by a later run keeps it."},
		{Name: "export_run", Type: Int, Origin: FromEngine, Description: "The export run that wrote the group."},
		{Name: "part", Type: Int, Origin: FromEngine, Description: "The group's number within that run."},
		{Name: "keys", Type: Text, Origin: FromEngine, Description: "The keys of the group's rows: a JSON array holding, per row, an array of its key columns' values, in the order of the table's key."},
	},
}

var digestColumn = Column{Name: "edapp_digest", Type: Text, Origin: FromEngine, Nullable: true, Description: "A digest of the row's values (all but edapp_run) as the export last wrote them: a complete fetch that finds the same values leaves the row as it is. Set it to NULL to have the next complete fetch write the row again."}

// unchangedRowsSteps creates edapp_export_seen and adds edapp_digest to
// every table that had edapp_run at version 12, in the order they were
// created.
var unchangedRowsSteps = []step{
	createTable{edappExportSeenTable},
	addColumn{"users", digestColumn},
	addColumn{"user_custom_fields", digestColumn},
	addColumn{"groups", digestColumn},
	addColumn{"group_members", digestColumn},
	addColumn{"collections", digestColumn},
	addColumn{"collection_courses", digestColumn},
	addColumn{"courses", digestColumn},
	addColumn{"lessons", digestColumn},
	addColumn{"course_statistics", digestColumn},
	addColumn{"lesson_statistics", digestColumn},
	addColumn{"survey_questions", digestColumn},
	addColumn{"course_progress", digestColumn},
	addColumn{"user_lesson_progress", digestColumn},
	addColumn{"group_children", digestColumn},
	addColumn{"sites", digestColumn},
	addColumn{"site_members", digestColumn},
	addColumn{"learning_paths", digestColumn},
	addColumn{"rapid_refresh_answers", digestColumn},
	addColumn{"slide_statistics", digestColumn},
	addColumn{"user_slide_statistics", digestColumn},
}
