package dbschema

// Migration 10: views for BI that read across the move, over identities.

// createView makes a view from a query both dialects take as written.
// Views hold no rows: the fold of the schema's tables ignores them, and
// Migrator.Repair makes a view again that was dropped. On PostgreSQL a
// table a view reads cannot be dropped without it: a later rebuildTable of
// such a table must drop the view first and make it again after.
type createView struct {
	Name  string
	Query string
}

// SQL is one CREATE VIEW statement.
func (s createView) SQL(Dialect) []string {
	return []string{"CREATE VIEW " + s.Name + " AS\n" + s.Query}
}

func (createView) apply(*shape) error { return nil }

// trainingCompletionsView is one row per completed course progress row of
// either service, with the person's and the course's identity.
var trainingCompletionsView = createView{Name: "training_completions", Query: `SELECT p.source, ip.id AS person_id, COALESCE(u.email, p.user_id) AS person,
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
var peopleView = createView{Name: "people", Query: `SELECT id AS person_id, edapp_id, safetyculture_id, email, edapp_external_id, safetyculture_external_id, matched_by
FROM identities WHERE kind = 'person'`}

// replaceView makes a view again with a new query: a view's columns may
// change, which PostgreSQL's CREATE OR REPLACE VIEW refuses, and SQLite
// has no such statement.
type replaceView struct{ View createView }

// SQL drops the view, then makes it.
func (s replaceView) SQL(d Dialect) []string {
	return append([]string{"DROP VIEW IF EXISTS " + s.View.Name}, s.View.SQL(d)...)
}

func (replaceView) apply(*shape) error { return nil }

// execSQL is statements that change rows, not the schema's shape, written
// for both dialects as they are.
type execSQL struct{ Statements []string }

// SQL is the statements.
func (s execSQL) SQL(Dialect) []string { return s.Statements }

func (execSQL) apply(*shape) error { return nil }

// views are the views of the schema, in the order first made, each as its
// latest migration defines it.
func views() []createView {
	var out []createView
	for _, m := range migrations {
		for _, st := range m.steps {
			switch v := st.(type) {
			case createView:
				out = append(out, v)
			case replaceView:
				for i := range out {
					if out[i].Name == v.View.Name {
						out[i] = v.View
					}
				}
			}
		}
	}
	return out
}
