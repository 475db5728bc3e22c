package dbschema

// Migration 16: identities say what differs within a pair: each
// service's email of a person and title of a course or lesson. The views
// name a person and a course by their identity, so that a person whose
// email changed in the move is one person in them. Every kind's
// identities_changed becomes NULL, so that the next export of either
// source fills the new columns; the move report refuses the database
// until one has.

// IdentityPairsVersion is the schema version from which identities hold
// both services' emails and titles: the move report reads no database
// below it.
const IdentityPairsVersion = 16

var identityPairColumns = []Column{
	{Name: "edapp_email", Type: Text, Origin: FromEdApp, Nullable: true, Description: "A person's email address as EdApp holds it; NULL for a course or lesson, or when EdApp has no match."},
	{Name: "safetyculture_email", Type: Text, Origin: FromSafetyCulture, Nullable: true, Description: "A person's email address as SafetyCulture holds it; NULL for a course or lesson, or when SafetyCulture has no match."},
	{Name: "edapp_title", Type: Text, Origin: FromEdApp, Nullable: true, Description: "A course's or lesson's title as EdApp holds it; NULL for a person, or when EdApp has no match."},
	{Name: "safetyculture_title", Type: Text, Origin: FromSafetyCulture, Nullable: true, Description: "A course's or lesson's title as SafetyCulture holds it; NULL for a person, or when SafetyCulture has no match."},
}

// trainingCompletionsByIdentity is training_completions whose person and
// course are the identity's (EdApp's email or title, else
// SafetyCulture's), the same in both services' rows.
var trainingCompletionsByIdentity = createView{Name: "training_completions", Query: `SELECT p.source, ip.id AS person_id, COALESCE(ip.email, u.email, p.user_id) AS person,
  ic.id AS course_identity_id, COALESCE(ic.edapp_title, ic.safetyculture_title, c.title, p.course_title) AS course, p.completed_date_time AS completed_at, p.score
FROM course_progress p
LEFT JOIN identities ip ON ip.kind = 'person' AND ((p.source = 'edapp' AND ip.edapp_id = p.user_id)
  OR (p.source = 'safetyculture' AND ip.safetyculture_id = p.user_id))
LEFT JOIN identities ic ON ic.kind = 'course' AND ((p.source = 'edapp' AND ic.edapp_id = p.course_id)
  OR (p.source = 'safetyculture' AND ic.safetyculture_id = p.course_id))
LEFT JOIN users u ON u.source = p.source AND u.id = p.user_id
LEFT JOIN courses c ON c.source = p.source AND c.id = p.course_id
WHERE p.completed_date_time IS NOT NULL`}

// peopleByIdentity is people with person (as training_completions names
// them) and each service's email.
var peopleByIdentity = createView{Name: "people", Query: `SELECT id AS person_id, edapp_id, safetyculture_id, email, edapp_external_id, safetyculture_external_id, matched_by,
  COALESCE(email, edapp_id, safetyculture_id) AS person, edapp_email, safetyculture_email
FROM identities WHERE kind = 'person'`}

func identityPairsSteps() []step {
	steps := make([]step, 0, len(identityPairColumns)+4)
	for _, c := range identityPairColumns {
		steps = append(steps, addColumn{"identities", c})
	}
	return append(steps, replaceView{trainingCompletionsByIdentity}, replaceView{peopleByIdentity},
		execSQL{Statements: []string{`UPDATE edapp_export_kinds SET identities_changed = NULL`}})
}
