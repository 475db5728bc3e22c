package sqldest

import (
	"strings"
	"testing"
)

func person(id, ext, email string) entity {
	e := entity{id: id, ext: ext, held: email, extKey: ext}
	emailEntity(&e, asHeld)
	return e
}

// TestMatchIdentities: external id first, else the second key; two ways
// that disagree, several candidates or two claimants are conflicts, and
// every entity of either side has one row.
func TestMatchIdentities(t *testing.T) {
	t.Parallel()
	ed := []entity{
		person("e1", "X1", "a@x"),    // both ways agree
		person("e2", "X2", "old@x"),  // email changed: external id only
		person("e3", "", "c@x"),      // email only
		person("e4", "X4", "d@x"),    // external id says s4, email says s5
		person("e5", "", "dup@x"),    // two SafetyCulture people share the email
		person("e6", "", "none@x"),   // nobody
		person("e7", "", "kelvin@x"), // a Kelvin sign K only looks alike
		person("e8", "", "Tim@x"),    // ASCII case does not matter
	}
	sc := []entity{
		person("s1", "X1", "a@x"), person("s2", "X2", "new@x"), person("s3", "", "c@x"),
		person("s4", "X4", "other@x"), person("s5", "", "d@x"),
		person("s6", "", "dup@x"), person("s7", "", "dup@x"), person("s8", "", "only@x"),
		person("s9", "", "\u212Aelvin@x"), person("s10", "", "tim@X"),
	}
	want := map[string]string{
		"e1": "s1 external_id", "e2": "s2 external_id", "e3": "s3 email", "e4": " conflict", "e5": " conflict", "e6": " none", "e7": " conflict", "e8": "s10 email",
		"s4": "conflict", "s5": "conflict", "s6": "conflict", "s7": "conflict", "s8": "none", "s9": "conflict",
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
		if got := identitiesChanged(x.source, c.kind, c.changed) != ""; got != c.want {
			t.Errorf("%s %s, changed %v: marks identities changed %v, want %v", c.source, c.kind, c.changed, got, c.want)
		}
	}
}

// TestKeysOfEmail: addresses match in NFC with only ASCII letters folded;
// a non-ASCII letter whose fold or NFC gives an ASCII one makes the
// address risky, and look keys tell look-alikes.
func TestKeysOfEmail(t *testing.T) {
	t.Parallel()
	nfd2nfc := func(s string) string { return strings.ReplaceAll(s, "e\u0301", "\u00e9") } // NFC for these inputs
	for _, c := range []struct {
		a, b       string
		nfc        Normalizer
		same, look bool
	}{
		{"Ann@X.com", "ann@x.com", asHeld, true, true},
		{"\u212Aelvin@x", "kelvin@x", asHeld, false, true},    // Kelvin sign
		{"\u0130nes@x", "ines@x", asHeld, false, true},        // dotted capital I
		{"jos\u00e9@x", "jose\u0301@x", nfd2nfc, true, true},  // NFC and NFD spellings
		{"jos\u00e9@x", "jose\u0301@x", asHeld, false, false}, // no NFC to hand
		{"\u00c9mile@x", "\u00e9mile@x", asHeld, false, true}, // non-ASCII case differs
	} {
		ea, eb := entity{held: c.a}, entity{held: c.b}
		emailEntity(&ea, c.nfc)
		emailEntity(&eb, c.nfc)
		same, alike := splitAlike(ea, []entity{eb}, []int{0})
		look := ea.secondKey == eb.secondKey
		if look != c.look || (len(same) == 1) != c.same || look && len(same)+len(alike) != 1 {
			t.Errorf("%q, %q: look alike %v, same %v; want %v, %v", c.a, c.b, look, len(same) == 1, c.look, c.same)
		}
	}
}

// TestNameKey: names compare trimmed and case-folded; blank and "NA" never pair.
func TestNameKey(t *testing.T) {
	t.Parallel()
	if nameKey("  Ann  Lee ", asHeld) != nameKey("ann lee", asHeld) {
		t.Error("spaces and case count")
	}
	for _, n := range []string{"", " ", "NA", "na"} {
		if nameKey(n, asHeld) != "" {
			t.Errorf("%q is a name", n)
		}
	}
}
