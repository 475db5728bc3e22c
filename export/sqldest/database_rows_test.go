package sqldest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/dbschema"
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

// TestBuildRows: the rows come out in the records' order, a chunk of per
// records at a time, whatever order the builders finish in; closing stop
// ends the building.
func TestBuildRows(t *testing.T) {
	t.Parallel()
	x := newDatabase(nil, nil, SQLite)
	tb, err := x.rows.table(kindNamed(t, "attempts"))
	if err != nil {
		t.Fatal(err)
	}
	var records []export.Record
	for i := range 500 {
		r, err := export.NewRecord(edapp.Attempt{ID: fmt.Sprintf("a%03d", i), UserID: "u1"})
		if err != nil {
			t.Fatal(err)
		}
		records = append(records, r)
	}
	id := slices.IndexFunc(tb.cols, func(c dbschema.Column) bool { return c.Name == "id" })
	stop := make(chan struct{})
	var got []string
	for c := range x.rows.buildRows(tb, records, 1, 7, 4, stop) {
		if c.err != nil || len(c.rows) != min(7, len(records)-len(got)) {
			t.Fatalf("chunk of %d rows (%v) after %d", len(c.rows), c.err, len(got))
		}
		for _, row := range c.rows {
			got = append(got, row[id].(string))
		}
	}
	if len(got) != len(records) || !slices.IsSorted(got) {
		t.Fatalf("%d rows, in order %v; want %d in order", len(got), slices.IsSorted(got), len(records))
	}
	chunks := x.rows.buildRows(tb, records, 1, 7, 4, stop)
	<-chunks
	close(stop)
	for range chunks { // closed once stopped
	}
}
