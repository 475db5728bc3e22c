package dbschema

// Migration 10: views for BI that read across the move, over identities.

// CreateView makes a view from a query both dialects take as written.
// Views hold no rows: the fold of the schema's tables ignores them, and
// MigrateRecreating makes a view again that was dropped. On PostgreSQL a
// table a view reads cannot be dropped without it: a later RebuildTable of
// such a table must drop the view first and make it again after.
type CreateView struct {
	Name  string
	Query string
}

// SQL is one CREATE VIEW statement.
func (s CreateView) SQL(Dialect) []string {
	return []string{"CREATE VIEW " + s.Name + " AS\n" + s.Query}
}

func (CreateView) apply(*shape) error { return nil }

// trainingCompletionsView is one row per completed course progress row of
// either service, with the person's and the course's identity.
var trainingCompletionsView = CreateView{Name: "training_completions", Query: `SELECT p.source, ip.id AS person_id, COALESCE(u.email, p.user_id) AS person,
  ic.id AS course_identity_id, COALESCE(c.title, p.course_title) AS course, p.completed_date_time AS completed_at, p.score
FROM course_progress p
LEFT JOIN identities ip ON ip.kind = 'person' AND ((p.source = 'edapp' AND ip.edapp_id = p.user_id)
  OR (p.source = 'safetyculture' AND ip.safetyculture_id = p.user_id))
LEFT JOIN identities ic ON ic.kind = 'course' AND ((p.source = 'edapp' AND ic.edapp_id = p.course_id)
  OR (p.source = 'safetyculture' AND ic.safetyculture_id = p.course_id))
LEFT JOIN users u ON u.source = p.source AND u.id = p.user_id
LEFT JOIN courses c ON c.source = p.source AND c.id = p.course_id
WHERE p.completed_date_time IS NOT NULL`}

// peopleView is one row per person known to either service.
var peopleView = CreateView{Name: "people", Query: `SELECT id AS person_id, edapp_id, safetyculture_id, email, edapp_external_id, safetyculture_external_id, matched_by
FROM identities WHERE kind = 'person'`}

// views are the views of the schema, in the order made.
func views() []CreateView {
	var out []CreateView
	for _, m := range migrations {
		for _, st := range m.Steps {
			if v, ok := st.(CreateView); ok {
				out = append(out, v)
			}
		}
	}
	return out
}
