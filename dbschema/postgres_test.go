package dbschema

import (
	"encoding/json"
	"testing"
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

func TestPostgresArgs(t *testing.T) {
	args := []any{"a\x00", `{"a":"\u0000"}`, 7, nil}
	PostgresArgs(args, func(i int) bool { return i == 1 })
	want := []any{"a\uFFFD", `{"a":"\ufffd"}`, 7, nil}
	for i := range want {
		if args[i] != want[i] {
			t.Errorf("arg %d = %#v, want %#v", i, args[i], want[i])
		}
	}
}
