package export

import (
	"testing"
	"time"
)

func TestRowKey(t *testing.T) {
	t.Parallel()
	tb := &table{key: []int{0, 1, 2}}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	keys := map[string][]any{}
	for _, row := range [][]any{
		{"a", at, "edapp"}, {"a", at.Add(time.Nanosecond), "edapp"}, {"a", at, "safetyculture"},
		{"b", at, "edapp"}, {"a", int64(7), "edapp"}, {"a", "", "edapp"},
	} {
		k := rowKey(tb, row)
		if other, dup := keys[k]; dup {
			t.Errorf("%v and %v have one key %q", other, row, k)
		}
		keys[k] = row
	}
	if got, want := rowKey(tb, []any{"a", at, "edapp"}), "a\x1f2026-01-02T03:04:05.000000006Z\x1fedapp\x1f"; got != want {
		t.Errorf("rowKey %q, want %q", got, want)
	}
}

// BenchmarkRowKey: the key of a progress event's row (four columns and
// source, one a time), computed for every row a write builds.
func BenchmarkRowKey(b *testing.B) {
	tb := &table{key: []int{0, 1, 2, 3, 4}}
	row := []any{"8f4b2c1e-aaaa-bbbb-cccc-1234567890ab", "8f4b2c1e-aaaa-bbbb-cccc-1234567890ab", "completed", time.Now().UTC().Round(0), "edapp"}
	for b.Loop() {
		_ = rowKey(tb, row)
	}
}
