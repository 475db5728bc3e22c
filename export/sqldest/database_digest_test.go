package sqldest

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/dbschema"
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
	u := &upserter{x: &groupWriter{d: SQLite}, w: &writeState{seenRun: 7}, t: tb, known: known, compares: true}
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
	u = &upserter{x: &groupWriter{d: SQLite}, w: &writeState{seenRun: 7, fresh: true}, t: tb}
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
	want := " WHERE (e.v, e.edapp_digest) IS NOT (excluded.v, excluded.edapp_digest)"
	if got := onConflict(SQLite, timeKey); timeKey.leavesSame || !strings.HasSuffix(got, want) {
		t.Errorf("a table keyed on a time: leavesSame %v, %s, want it to end with %s", timeKey.leavesSame, got, want)
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

// digestReads is how many reads of digests connection id ran.
func digestReads(d *fakeDriver, id int) int {
	n := 0
	for _, q := range d.ran(id) {
		if strings.Contains(q, "edapp_digest") {
			n++
		}
	}
	return n
}

// digestDatabase is a Database of dialect d on the driver's first
// connection, with a pool to lend its writers connections from.
func digestDatabase(t *testing.T, dd *fakeDriver, d Dialect) *Database {
	t.Helper()
	db := sql.OpenDB(dd)
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return newDatabase(conn, db, d)
}

// TestPrefetchKnown: on PostgreSQL a complete walk's known digests are
// read on a pooled connection as it begins, and its first write reads
// them no more; a read that failed leaves the write to read them on its
// own connection; SQLite reads them at the first write.
func TestPrefetchKnown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	k := &export.Kind{Name: "t"}
	wantKnown := func(t *testing.T, c *dbKind) {
		t.Helper()
		got := c.known["t"]
		if got == nil || got.unmet != 2 || got.rows["a\x1f"].digest != "d1" || got.rows["b\x1f"].digest != "d2" {
			t.Fatalf("known %+v, want a: d1 and b: d2, both unmet", got)
		}
	}
	t.Run("read as the walk begins", func(t *testing.T) {
		t.Parallel()
		dd := &fakeDriver{}
		x := digestDatabase(t, dd, Postgres)
		c := &dbKind{t: seenTable(), full: true}
		x.prefetchKnown(ctx, k, c)
		c.awaitKnown()
		wantKnown(t, c)
		if err := x.groupsOn(x.own).loadKnown(ctx, c); err != nil {
			t.Fatal(err)
		}
		if digestReads(dd, 1) != 0 || digestReads(dd, 2) != 1 {
			t.Errorf("digest reads: %d on the Database's connection 1, %d on the pooled 2; want 0, 1", digestReads(dd, 1), digestReads(dd, 2))
		}
	})
	t.Run("a failed read is read again", func(t *testing.T) {
		t.Parallel()
		dd := &fakeDriver{failDigests: true}
		x := digestDatabase(t, dd, Postgres)
		c := &dbKind{t: seenTable(), full: true}
		x.prefetchKnown(ctx, k, c)
		c.awaitKnown()
		if c.digests == digestsRead {
			t.Fatalf("known %v after a failed read", c.known)
		}
		dd.mu.Lock()
		dd.failDigests = false
		dd.mu.Unlock()
		if err := x.groupsOn(x.own).loadKnown(ctx, c); err != nil {
			t.Fatal(err)
		}
		wantKnown(t, c)
		if n := digestReads(dd, 1); n != 1 {
			t.Errorf("%d digest reads on the Database's connection 1, want 1", n)
		}
	})
	t.Run("not on SQLite, nor for a walk that needs none", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			d Dialect
			c *dbKind
		}{
			{SQLite, &dbKind{t: seenTable(), full: true}},
			{Postgres, &dbKind{t: seenTable(), full: true, fresh: true}},
			{Postgres, &dbKind{t: seenTable()}},
		} {
			x := digestDatabase(t, &fakeDriver{}, tc.d)
			x.prefetchKnown(ctx, k, tc.c)
			if tc.c.digests == digestsReading {
				t.Errorf("%v, fresh %v, full %v: a read started", tc.d, tc.c.fresh, tc.c.full)
			}
		}
	})
}
