package dbschema

// Migration 8 makes room for SafetyCulture Training's records: the tables
// of the kinds only it has, the columns only it sends of the kinds both
// have (NULL in EdApp's rows), and a run on course_progress, which
// SafetyCulture's feed mirrors in full where EdApp's is incremental.

var safetyCultureSteps = []step{
	createTable{sitesTable},
	createTable{siteMembersTable},
	addColumn{"users", Column{Name: "active", Type: Bool, Field: "active", Origin: FromSafetyCulture, Nullable: true, Description: "Whether the user's seat is active (SafetyCulture)."}},
	addColumn{"users", Column{Name: "seat_type", Type: Text, Field: "seatType", Origin: FromSafetyCulture, Nullable: true, Description: "The user's seat type, as SafetyCulture names it."}},
	addColumn{"users", Column{Name: "created_at", Type: Time, Field: "createdAt", Origin: FromSafetyCulture, Nullable: true, Description: "When the user was created (SafetyCulture)."}},
	addColumn{"course_progress", Column{Name: "user_email", Type: Text, Field: "userEmail", Origin: FromSafetyCulture, Nullable: true, Description: "The learner's email address (SafetyCulture's feed)."}},
	addColumn{"course_progress", Column{Name: "due_at", Type: Time, Field: "dueAt", Origin: FromSafetyCulture, Nullable: true, Description: "When the course is due for the learner (SafetyCulture); NULL when it has no due date."}},
	addColumn{"course_progress", Column{Name: "edapp_run", Type: Int, Origin: FromEngine, Nullable: true, Description: "The export run that last wrote the row: a run that finds it unchanged leaves it as it is. A complete fetch deletes the rows it did not see."}},
	createIndex{"course_progress", Index{Columns: []string{"edapp_run"}}},
}

var scRawColumn = Column{Name: "raw", Type: JSON, Origin: FromSafetyCulture, Nullable: true, Description: "The record as the service sent it, unknown fields included."}

var sitesTable = Table{Name: "sites", Description: "One row per SafetyCulture site (SafetyCulture only).", Key: []string{"id", "source"},
	Indexes: []Index{{Columns: []string{"edapp_run"}}},
	Columns: []Column{
		sourceColumn,
		{Name: "id", Type: Text, Field: "id", Origin: FromSafetyCulture, Description: "The site's SafetyCulture id."},
		{Name: "name", Type: Text, Field: "name", Origin: FromSafetyCulture, Nullable: true, Description: "The site's name."},
		{Name: "creator_id", Type: Text, Field: "creator_id", Origin: FromSafetyCulture, Nullable: true, Description: "The SafetyCulture id of the user who created the site."},
		{Name: "organisation_id", Type: Text, Field: "organisation_id", Origin: FromSafetyCulture, Nullable: true, Description: "The SafetyCulture organisation the site belongs to."},
		{Name: "deleted", Type: Bool, Field: "deleted", Origin: FromSafetyCulture, Nullable: true, Description: "Whether the site is deleted."},
		{Name: "site_uuid", Type: Text, Field: "site_uuid", Origin: FromSafetyCulture, Nullable: true, Description: "The site's UUID, which parent_id refers to."},
		{Name: "meta_label", Type: Text, Field: "meta_label", Origin: FromSafetyCulture, Nullable: true, Description: "The level of the site in the hierarchy, as the organisation names it."},
		{Name: "parent_id", Type: Text, Field: "parent_id", Origin: FromSafetyCulture, Nullable: true, Description: "The site_uuid of the site above it; empty at the top."},
		scRawColumn,
		runColumn,
	},
}

var siteMembersTable = Table{Name: "site_members", Description: "One row per site and user in it (SafetyCulture only).", Key: []string{"site_id", "member_id", "source"},
	Indexes: []Index{{Columns: []string{"member_id"}, Hash: true}, {Columns: []string{"edapp_run"}}},
	Columns: []Column{
		sourceColumn,
		{Name: "site_id", Type: Text, Field: "site_id", Origin: FromSafetyCulture, Description: "The SafetyCulture id of the site."},
		{Name: "member_id", Type: Text, Field: "member_id", Origin: FromSafetyCulture, Description: "The SafetyCulture id of a user in the site."},
		scRawColumn,
		runColumn,
	},
}
