package dbwrite

import (
	"encoding/json"
	"testing"

	"github.com/edapp-go/edapp/export/dbschema"
)

func TestPostgresText(t *testing.T) {
	for in, want := range map[string]string{
		"":           "",
		"plain":      "plain",
		"a\x00b\x00": "a\uFFFDb\uFFFD",
	} {
		if got := PostgresText(in); got != want {
			t.Errorf("PostgresText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPostgresJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":"x"}`:                 `{"a":"x"}`,
		`{"a":"x\u0000y"}`:          `{"a":"x\ufffdy"}`,
		`{"a":"\\u0000"}`:           `{"a":"\\u0000"}`, // an escaped backslash, then text
		`{"a":"\\\u0000","b":"\n"}`: `{"a":"\\\ufffd","b":"\n"}`,
		`["\u00001"]`:               `["\ufffd1"]`,
	} {
		got := PostgresJSON(in)
		if got != want {
			t.Errorf("PostgresJSON(%s) = %s, want %s", in, got, want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("PostgresJSON(%s) = %s: not JSON", in, got)
		}
	}
}

func TestValidUTF8(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                     "",
		"plain é":              "plain é",
		"a\xffb":               "a\uFFFDb",
		"\xe9t\xe9":            "\uFFFDt\uFFFD",       // Latin-1
		"\xe2\x82":             "\uFFFD\uFFFD",        // a cut sequence: one per byte
		"{\"x\":\"\xc3\x28\"}": "{\"x\":\"\uFFFD(\"}", // inside JSON, which stays JSON
	} {
		if got := ValidUTF8(in); got != want {
			t.Errorf("ValidUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanArgs(t *testing.T) {
	t.Parallel()
	isJSON := func(i int) bool { return i == 1 }
	args := []any{"a\x00\xff", `{"a":"\u0000` + "\xff" + `"}`, 7, nil}
	CleanArgs(dbschema.Postgres, args, isJSON)
	want := []any{"a\uFFFD\uFFFD", `{"a":"\ufffd` + "\uFFFD" + `"}`, 7, nil}
	for i := range want {
		if args[i] != want[i] {
			t.Errorf("postgres: arg %d = %#v, want %#v", i, args[i], want[i])
		}
	}
	args = []any{"a\x00\xff", `{"a":"\u0000"}`}
	CleanArgs(dbschema.SQLite, args, isJSON)
	if args[0] != "a\x00\uFFFD" || args[1] != `{"a":"\u0000"}` {
		t.Errorf("sqlite: %#v", args)
	}
}

// BenchmarkCleanArgs cleans a row of clean strings, as almost every row is.
func BenchmarkCleanArgs(b *testing.B) {
	row := []any{"edapp", "user-00042", "jane.doe@example.com", "Jane", "Doe", "course-1", "Safety basics", 3, nil, `{"id":"user-00042","name":"Jane Doe"}`}
	isJSON := func(i int) bool { return i == len(row)-1 }
	b.ReportAllocs()
	for b.Loop() {
		CleanArgs(dbschema.Postgres, row, isJSON)
	}
}
