package dbschema

// Migration 10: views for BI that read across the move, over identities.

// CreateView makes a view from a query both dialects take as written.
// Views hold no rows: the fold of the schema's tables ignores them, and
// Migrator.Repair makes a view again that was dropped. On PostgreSQL a
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

// ReplaceView makes a view again with a new query: a view's columns may
// change, which PostgreSQL's CREATE OR REPLACE VIEW refuses, and SQLite
// has no such statement.
type ReplaceView struct{ View CreateView }

// SQL drops the view, then makes it.
func (s ReplaceView) SQL(d Dialect) []string {
	return append([]string{"DROP VIEW IF EXISTS " + s.View.Name}, s.View.SQL(d)...)
}

func (ReplaceView) apply(*shape) error { return nil }

// Exec is statements that change rows, not the schema's shape, written
// for both dialects as they are.
type Exec struct{ Statements []string }

// SQL is the statements.
func (s Exec) SQL(Dialect) []string { return s.Statements }

func (Exec) apply(*shape) error { return nil }

// views are the views of the schema, in the order first made, each as its
// latest migration defines it.
func views() []CreateView {
	var out []CreateView
	for _, m := range migrations {
		for _, st := range m.Steps {
			switch v := st.(type) {
			case CreateView:
				out = append(out, v)
			case ReplaceView:
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
