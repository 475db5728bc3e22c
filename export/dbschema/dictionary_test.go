package dbschema

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// schemaDoc is the generated data dictionary, at the repository's root.
var schemaDoc = filepath.Join("..", "..", "docs", "schema.md")

// TestMarkdownMatchesDoc fails when docs/schema.md differs from the
// schema's dictionary.
// go test -run TestMarkdownMatchesDoc ./export/dbschema/ -update
// rewrites it.
func TestMarkdownMatchesDoc(t *testing.T) {
	t.Parallel()
	got := markdown()
	if *update {
		if err := os.WriteFile(schemaDoc, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(schemaDoc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the schema: run go test -run TestMarkdownMatchesDoc ./export/dbschema/ -update", schemaDoc)
	}
}

// TestDictionaryDescribesEveryColumn checks that every table and column
// has a one-line meaning and an origin, and that a unit is given for each
// score-like column.
func TestDictionaryDescribesEveryColumn(t *testing.T) {
	t.Parallel()
	for _, tb := range Dictionary() {
		if tb.Description == "" || strings.Contains(tb.Description, "\n") {
			t.Errorf("%s: no one-line description", tb.Name)
		}
		for _, c := range tb.Columns {
			if c.Description == "" || strings.Contains(c.Description, "\n") || strings.Contains(c.Unit, "\n") {
				t.Errorf("%s.%s: no one-line description", tb.Name, c.Name)
			}
			if strings.HasPrefix(c.Origin.String(), "Origin(") {
				t.Errorf("%s.%s: no origin", tb.Name, c.Name)
			}
			if strings.Contains(c.Name, "score") && c.Unit == "" {
				t.Errorf("%s.%s: a score without its scale", tb.Name, c.Name)
			}
		}
	}
}

func TestOriginString(t *testing.T) {
	t.Parallel()
	for o, want := range map[Origin]string{FromEdApp: "EdApp", FromSafetyCulture | FromEdApp: "EdApp and SafetyCulture", FromEngine: "edapp", 0: "Origin(0)"} {
		if got := o.String(); got != want {
			t.Errorf("%d: %q, want %q", o, got, want)
		}
	}
}

// TestDictionarySQLQuotes checks that a quote in a description is doubled
// in both dialects' statements.
func TestDictionarySQLQuotes(t *testing.T) {
	t.Parallel()
	for _, d := range []Dialect{SQLite, Postgres} {
		all := strings.Join(dictionarySQL(d), "\n")
		if !strings.Contains(all, "The user''s EdApp id.") {
			t.Errorf("%v: the users.id description is not quoted as a literal", d)
		}
	}
}
