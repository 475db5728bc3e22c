package sqldest

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
)

// sliceLoader is a BulkLoader that takes the rows next returns, and
// copies nothing.
type sliceLoader struct{ rows *[][]any }

func (l sliceLoader) CopyRows(_ context.Context, _ any, _ string, _ []string, next func() ([]any, error)) (int64, error) {
	for {
		row, err := next()
		if err != nil || row == nil {
			return int64(len(*l.rows)), err
		}
		*l.rows = append(*l.rows, row)
	}
}

// loadRows runs a PostgreSQL upserter's load of the first n of two rows
// into seenTable, the bulk loader having copied before or not, and
// returns the rows it copied and the statements the database ran.
func loadRows(t *testing.T, n int, copiedBefore bool) (copied [][]any, stmts []string) {
	t.Helper()
	ctx := context.Background()
	d := &keyDriver{}
	conn, err := sql.OpenDB(d).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	x := newDatabase(conn, nil, Postgres)
	x.shared.copies.Store(copiedBefore)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	chunks := make(chan rowChunk, 1)
	chunks <- rowChunk{rows: [][]any{{"a", "x", int64(1), "d"}, {"b", "y", int64(1), "d"}}[:n]}
	close(chunks)
	if err := x.groupsOn(x.own).upserter(tx, seenTable(), &writeState{}).load(ctx, sliceLoader{&copied}, chunks); err != nil {
		t.Fatal(err)
	}
	return copied, d.stmts
}

// ran reports whether one of stmts begins with prefix.
func ran(stmts []string, prefix string) bool {
	return slices.ContainsFunc(stmts, func(s string) bool { return strings.HasPrefix(s, prefix) })
}

// TestUpserterLoad: a group's rows go to the temporary table and are
// merged into the kind's table; a group with no row to copy (a re-run's
// unchanged rows) merges nothing.
func TestUpserterLoad(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 2} {
		copied, stmts := loadRows(t, n, false)
		if merged := ran(stmts, "INSERT INTO t "); len(copied) != n || merged != (n > 0) {
			t.Errorf("%d rows: %d copied, merged %v; want %d, %v", n, len(copied), merged, n, n > 0)
		}
	}
}

// TestUpserterLoadSkipsUnchangedGroups: once the loader has copied
// through a connection, a group with no row to copy creates no temporary
// table and sends no COPY; one with rows copies them all, the first
// included.
func TestUpserterLoadSkipsUnchangedGroups(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 2} {
		copied, stmts := loadRows(t, n, true)
		if created := ran(stmts, "CREATE TEMP TABLE"); len(copied) != n || created != (n > 0) {
			t.Errorf("%d rows: %d copied, a temporary table created %v; want %d, %v", n, len(copied), created, n, n > 0)
		}
		if n > 0 && copied[0][0] != "a" {
			t.Errorf("copied %v first, want the first row", copied[0])
		}
	}
}

// TestBuildIndexesYields: the indexes a first load left out are built
// each in a step of its own, and the calls waiting for the destination go
// before each (End's yield), so that the other kinds' writes need not wait
// for all of a table's indexes.
func TestBuildIndexesYields(t *testing.T) {
	t.Parallel()
	d := &fakeDriver{journal: "delete"} // no index there: all are missing
	x := openFakeDatabase(t, d, 2)
	yield := func() {
		(&fakeConn{d: d, id: 1}).record("yield") // the export's connection's log
	}
	if err := x.buildIndexes(context.Background(), "attempts", yield); err != nil {
		t.Fatal(err)
	}
	builds, yielded := 0, false
	for _, s := range d.ran(1) {
		switch {
		case s == "yield":
			yielded = true
		case strings.HasPrefix(s, "CREATE INDEX"):
			if !yielded {
				t.Errorf("%q ran with no yield since the step before: %q", s, d.ran(1))
			}
			builds, yielded = builds+1, false
		}
	}
	if builds < 2 {
		t.Fatalf("built %d indexes of attempts, want its secondary ones: %q", builds, d.ran(1))
	}
}
