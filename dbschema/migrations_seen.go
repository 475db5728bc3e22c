package dbschema

// Migration 13: a re-run leaves the rows it finds unchanged as they are.
// A complete fetch of a mirrored kind deletes the rows it did not see; it
// used to tell them by edapp_run, which it wrote into every row it saw,
// changed or not. It now keeps the keys it saw in edapp_export_seen, in
// the transaction of each group of pages, so that an interrupted fetch's
// next run knows them too, and deletes the rows whose keys are in none.

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
