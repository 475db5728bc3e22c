package dbschema

// Migration 9: identities joins the two services' id spaces, one row per
// person, course and lesson known to either.

var identitiesTable = Table{Name: "identities", Description: "One row per person, course and lesson known to either service, joining their ids; rebuilt after each export.", Key: []string{"id"},
	Indexes: []Index{{Columns: []string{"kind", "edapp_id"}, Unique: true}, {Columns: []string{"kind", "safetyculture_id"}, Unique: true}},
	Columns: []Column{
		{Name: "id", Type: Serial, Origin: FromEngine, Description: "The identity's number (a surrogate key; it changes when the table is rebuilt)."},
		{Name: "kind", Type: Text, Origin: FromEngine, Description: "What the row identifies: person, course or lesson."},
		{Name: "edapp_id", Type: Text, Origin: FromEdApp, Nullable: true, Description: "The EdApp id (users.id, courses.id or lessons.id where source = 'edapp'); NULL when EdApp has no match."},
		{Name: "safetyculture_id", Type: Text, Origin: FromSafetyCulture, Nullable: true, Description: "The SafetyCulture id (where source = 'safetyculture'); NULL when SafetyCulture has no match."},
		{Name: "edapp_external_id", Type: Text, Origin: FromEdApp, Nullable: true, Description: "The external id EdApp holds."},
		{Name: "safetyculture_external_id", Type: Text, Origin: FromSafetyCulture, Nullable: true, Description: "The external id SafetyCulture holds (for a person: from its course-progress rows; its users feed has none)."},
		{Name: "email", Type: Text, Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "A person's email address: EdApp's, else SafetyCulture's; NULL for a course or lesson."},
		{Name: "matched_by", Type: Text, Origin: FromEngine, Description: "How the two were matched: external_id, email, title, none (one service only) or conflict (two ways disagree, or several candidates: never guessed)."},
	},
}
