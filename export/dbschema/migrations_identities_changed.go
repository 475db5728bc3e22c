package dbschema

// Migration 14: the export rebuilds identities only when what they are
// built from changed. Each kind's row in edapp_export_kinds says whether
// its rows changed since the last rebuild, set in the transaction that
// changed them, so that a run that stopped before its rebuild leaves the
// next run to do it.

var identitiesChangedColumn = Column{Name: "identities_changed", Type: Bool, Origin: FromEngine, Nullable: true,
	Description: "Whether this kind changed rows that identities are built from (people, courses, lessons, SafetyCulture's course progress and attempts) since identities were last rebuilt: set by the transaction that changed them, cleared by the rebuild. The export rebuilds identities at its end only when a kind's is true or NULL (not known, as after the upgrade); set it to NULL to have the next export rebuild them."}

var identitiesChangedSteps = []step{addColumn{"edapp_export_kinds", identitiesChangedColumn}}
