package export

import "testing"

func person(id, ext, email string) entity {
	return entity{id: id, ext: ext, email: email, extKey: ext, secondKey: email}
}

// TestMatchIdentities: external id first, else the second key; two ways
// that disagree, several candidates or two claimants are conflicts, and
// every entity of either side has one row.
func TestMatchIdentities(t *testing.T) {
	t.Parallel()
	ed := []entity{
		person("e1", "X1", "a@x"),   // both ways agree
		person("e2", "X2", "old@x"), // email changed: external id only
		person("e3", "", "c@x"),     // email only
		person("e4", "X4", "d@x"),   // external id says s4, email says s5
		person("e5", "", "dup@x"),   // two SafetyCulture people share the email
		person("e6", "", "none@x"),  // nobody
	}
	sc := []entity{
		person("s1", "X1", "a@x"), person("s2", "X2", "new@x"), person("s3", "", "c@x"),
		person("s4", "X4", "other@x"), person("s5", "", "d@x"),
		person("s6", "", "dup@x"), person("s7", "", "dup@x"), person("s8", "", "only@x"),
	}
	want := map[string]string{
		"e1": "s1 external_id", "e2": "s2 external_id", "e3": "s3 email", "e4": " conflict", "e5": " conflict", "e6": " none",
		"s4": "conflict", "s5": "conflict", "s6": "conflict", "s7": "conflict", "s8": "none",
	}
	rows := match("person", "email", ed, sc)
	if len(rows) != len(want) {
		t.Errorf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for _, r := range rows {
		key, got := r.edappID, r.scID+" "+r.matchedBy
		if key == "" {
			key, got = r.scID, r.matchedBy
		}
		if want[key] != got {
			t.Errorf("%s: %q, want %q", key, got, want[key])
		}
	}
}

func TestDatabaseIdentitiesChanged(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		source, kind string
		changed      bool
		want         bool
	}{
		{SourceEdApp, "users", true, true},
		{SourceEdApp, "courses", true, true},
		{SourceEdApp, "lessons", true, true},
		{SourceEdApp, "users", false, false},
		{SourceEdApp, "attempts", true, false}, // identities read SafetyCulture's attempts only
		{SourceEdApp, "groups", true, false},
		{SourceSafetyCulture, "attempts", true, true},
		{SourceSafetyCulture, "course_progress", true, true},
		{SourceSafetyCulture, "lesson_progress_events", true, false},
	} {
		x := newDatabase(nil, nil, SQLite)
		x.source = c.source
		if got := x.identitiesChanged(c.kind, c.changed) != ""; got != c.want {
			t.Errorf("%s %s, changed %v: marks identities changed %v, want %v", c.source, c.kind, c.changed, got, c.want)
		}
	}
}
