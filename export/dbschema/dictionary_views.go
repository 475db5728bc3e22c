package dbschema

import "fmt"

// The views' part of the data dictionary: what a row of each view is and
// what its columns mean. A view's columns follow from its query, so a
// test compares them with the database's (a migration that replaces a
// view describes its columns here).

var viewDictionary = map[string]Table{
	trainingCompletionsView.Name: {Name: trainingCompletionsView.Name,
		Description: "A view: one row per completed course of either service (course_progress with a completion time), with the person's and the course's identity, for reports across the move.",
		Columns: []Column{
			{Name: "source", Type: Text, Origin: FromEngine, Description: "The service the completion was exported from: edapp or safetyculture."},
			{Name: "person_id", Type: Serial, Origin: FromEngine, Nullable: true, Description: "The person's identities.id: the same person in both services has one; NULL until identities are rebuilt."},
			{Name: "person", Type: Text, Origin: FromEdApp | FromSafetyCulture, Description: "The person, the same in both services' rows: the identity's email (EdApp's, else SafetyCulture's), else the email that service holds, else its user id."},
			{Name: "course_identity_id", Type: Serial, Origin: FromEngine, Nullable: true, Description: "The course's identities.id: the same course in both services has one; NULL until identities are rebuilt."},
			{Name: "course", Type: Text, Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The course, the same in both services' rows: the identity's title (EdApp's, else SafetyCulture's), else the title that service holds."},
			{Name: "completed_at", Type: Time, Origin: FromEdApp | FromSafetyCulture, Description: "When the person completed the course (course_progress.completed_date_time)."},
			{Name: "score", Type: Real, Origin: FromEdApp | FromSafetyCulture, Nullable: true, Unit: "as course_progress.score", Description: "The person's score in the course (course_progress.score): NULL when none was sent, and for a SafetyCulture score of 0 (see course_progress.score)."},
		}},
	peopleView.Name: {Name: peopleView.Name,
		Description: "A view: one row per person known to either service (the people of identities), with both services' ids.",
		Columns: []Column{
			{Name: "person_id", Type: Serial, Origin: FromEngine, Description: "The person's identities.id."},
			{Name: "edapp_id", Type: Text, Origin: FromEdApp, Nullable: true, Description: "The person's EdApp user id; NULL when EdApp has no match."},
			{Name: "safetyculture_id", Type: Text, Origin: FromSafetyCulture, Nullable: true, Description: "The person's SafetyCulture user id; NULL when SafetyCulture has no match."},
			{Name: "email", Type: Text, Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The person's email address: EdApp's, else SafetyCulture's."},
			{Name: "edapp_external_id", Type: Text, Origin: FromEdApp, Nullable: true, Description: "The external id EdApp holds."},
			{Name: "safetyculture_external_id", Type: Text, Origin: FromSafetyCulture, Nullable: true, Description: "The external id SafetyCulture holds (from its course-progress rows)."},
			{Name: "matched_by", Type: Text, Origin: FromEngine, Description: "How the two were matched: external_id, email, none (one service only) or conflict."},
			{Name: "person", Type: Text, Origin: FromEdApp | FromSafetyCulture, Description: "The person as training_completions names them: the email, else the EdApp id, else the SafetyCulture id."},
			{Name: "edapp_email", Type: Text, Origin: FromEdApp, Nullable: true, Description: "The person's email address as EdApp holds it; NULL when EdApp has no match."},
			{Name: "safetyculture_email", Type: Text, Origin: FromSafetyCulture, Nullable: true, Description: "The person's email address as SafetyCulture holds it; NULL when SafetyCulture has no match."},
		}},
}

// viewTables are the schema's views as the dictionary describes them, in
// the order they were made.
func viewTables() []Table {
	var out []Table
	for _, v := range views() {
		t, ok := viewDictionary[v.Name]
		if !ok {
			panic(fmt.Sprintf("dbschema: view %s is not in the dictionary", v.Name)) // the package's tests find it
		}
		out = append(out, t.clone())
	}
	return out
}

// isView reports whether name is one of the schema's views.
func isView(name string) bool {
	_, ok := viewDictionary[name]
	return ok
}
