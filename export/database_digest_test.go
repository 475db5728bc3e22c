package export

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/dbschema"
)

// seenTable is a table with a text key, a value, edapp_run and
// edapp_digest.
func seenTable() *table {
	t := &table{name: "t", key: []int{0}, cols: []dbschema.Column{
		{Name: "id", Type: dbschema.Text}, {Name: "v", Type: dbschema.Text},
		{Name: "edapp_run", Type: dbschema.Int}, {Name: "edapp_digest", Type: dbschema.Text},
	}}
	t.setDigest()
	return t
}

func TestPutDigest(t *testing.T) {
	t.Parallel()
	tb := seenTable()
	if !tb.leavesSame || tb.digest != 3 {
		t.Fatalf("leavesSame %v, digest %d", tb.leavesSame, tb.digest)
	}
	digest := func(v any, run int64) any {
		row := []any{"a", v, run, nil}
		tb.putDigest(row)
		return row[3]
	}
	if digest("x", 1) != digest("x", 2) {
		t.Error("edapp_run changed the digest")
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	values := []any{"x", "y", "", nil, int64(1), "1", float64(1), true, false, at, at.Add(time.Nanosecond)}
	var seen []any
	for _, v := range values {
		d := digest(v, 1)
		if slices.Contains(seen, d) {
			t.Errorf("%#v has the digest of an earlier value", v)
		}
		seen = append(seen, d)
	}
	if d, ok := digest("x", 1).(string); !ok || len(d) != 32 {
		t.Errorf("digest %#v, want 32 hex digits", d)
	}
}

func TestUpserterChanged(t *testing.T) {
	t.Parallel()
	tb := seenTable()
	row := func(id, v string) []any {
		r := []any{id, v, int64(2), nil}
		tb.putDigest(r)
		return r
	}
	known := &knownRows{rows: map[string]knownRow{}, unmet: 4}
	for _, r := range [][]any{row("a", "1"), row("b", "1"), row("d", "1")} {
		known.rows[rowKey(tb, r)] = knownRow{digest: r[3].(string)}
	}
	known.rows[rowKey(tb, row("e", "1"))] = knownRow{} // no digest: sent as it comes
	u := &upserter{x: &Database{d: SQLite, seenRun: 7}, t: tb, known: known}
	ids := func(rows [][]any) (out []string) {
		for _, r := range rows {
			out = append(out, r[0].(string))
		}
		return out
	}
	// a is unchanged, b changed, c is new.
	if got := ids(u.changed([][]any{row("a", "1"), row("b", "2"), row("c", "1")})); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("written %v, want [b c]", got)
	}
	// b comes again as it was: written, since the walk wrote it since.
	if got := ids(u.changed([][]any{row("a", "1"), row("b", "1")})); !slices.Equal(got, []string{"b"}) {
		t.Errorf("written %v, want [b]", got)
	}
	if u.same != 2 {
		t.Errorf("same %d, want 2", u.same)
	}
	// d is not met yet, so a row may be gone; once e and d come, none is.
	if known.unmet != 2 {
		t.Errorf("unmet %d, want 2 (d and e)", known.unmet)
	}
	if got := ids(u.changed([][]any{row("e", "1"), row("d", "1")})); !slices.Equal(got, []string{"e"}) {
		t.Errorf("written %v, want [e]", got)
	}
	if known.unmet != 0 {
		t.Errorf("unmet %d after every known row came, want 0", known.unmet)
	}
	var keys []string
	for _, k := range u.seen {
		keys = append(keys, k[0])
	}
	if want := []string{"a", "b", "c", "a", "b", "e", "d"}; !slices.Equal(keys, want) {
		t.Errorf("seen %v, want %v", keys, want)
	}
	// A plain insert records no key.
	u = &upserter{x: &Database{d: SQLite, seenRun: 7, fresh: true}, t: tb}
	if u.changed([][]any{row("a", "1")}); len(u.seen) != 0 {
		t.Errorf("a plain insert recorded %v", u.seen)
	}
}

func TestOnConflictLeavesSameRows(t *testing.T) {
	t.Parallel()
	tb := seenTable()
	for d, want := range map[Dialect]string{SQLite: " WHERE t.edapp_digest IS NOT excluded.edapp_digest", Postgres: " WHERE t.edapp_digest IS DISTINCT FROM excluded.edapp_digest"} {
		if got := onConflict(d, tb); !strings.HasSuffix(got, want) {
			t.Errorf("%v: %s, want it to end with %s", d, got, want)
		}
	}
	timeKey := &table{name: "e", key: []int{0}, cols: []dbschema.Column{
		{Name: "at", Type: dbschema.Time}, {Name: "v", Type: dbschema.Text}, {Name: "edapp_digest", Type: dbschema.Text},
	}}
	timeKey.setDigest()
	if got := onConflict(SQLite, timeKey); timeKey.leavesSame || strings.Contains(got, "WHERE") {
		t.Errorf("a table keyed on a time: leavesSame %v, %s", timeKey.leavesSame, got)
	}
}

func TestNothingGone(t *testing.T) {
	t.Parallel()
	c := &dbKind{known: map[string]*knownRows{"users": {unmet: 0}, "user_custom_fields": {unmet: 1}}}
	gone := nothingGone(c)
	if !gone("users") {
		t.Error("users: every known row met, yet the end would look for gone rows")
	}
	if gone("user_custom_fields") || gone("groups") {
		t.Error("a table with an unmet row, or whose rows were not read, reported nothing gone")
	}
}
