package sqldest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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

// loadRows runs a PostgreSQL upserter's bulk load of the first n of two
// rows into seenTable, and returns the rows it copied and the statements
// the database ran.
func loadRows(t *testing.T, n int) (copied [][]any, stmts []string) {
	t.Helper()
	stmts, _ = loadRowsWith(t, n, sliceLoader{&copied})
	return copied, stmts
}

// loadRowsWith is loadRows through l, and returns the database after.
func loadRowsWith(t *testing.T, n int, l BulkLoader) (stmts []string, x *Database) {
	t.Helper()
	ctx := context.Background()
	d := &keyDriver{}
	conn, err := sql.OpenDB(d).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	x = newDatabase(conn, nil, Postgres)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	chunks := make(chan rowChunk, 1)
	chunks <- rowChunk{rows: [][]any{{"a", "x", int64(1), "d"}, {"b", "y", int64(1), "d"}}[:n]}
	close(chunks)
	tb := seenTable()
	tb.sql = map[int]string{}
	if err := (byCopy{l}).writeRows(ctx, x.groupsOn(x.own).upserter(tx, tb, &writeState{}), chunks); err != nil {
		t.Fatal(err)
	}
	return d.stmts, x
}

// refusingLoader is a BulkLoader that copies through no connection.
type refusingLoader struct{}

func (refusingLoader) CopyRows(context.Context, any, string, []string, func() ([]any, error)) (int64, error) {
	return 0, fmt.Errorf("no copy here: %w", errors.ErrUnsupported)
}

// TestUpserterLoadRefusedWritesByStatements: a group whose connection the
// loader refuses is written by statements, every row of it (the first,
// looked at before the loader, included), and so is the rest of the
// write.
func TestUpserterLoadRefusedWritesByStatements(t *testing.T) {
	t.Parallel()
	stmts, x := loadRowsWith(t, 2, refusingLoader{})
	inserts := slices.DeleteFunc(slices.Clone(stmts), func(s string) bool { return !strings.HasPrefix(s, "INSERT INTO t ") })
	if len(inserts) != 1 || strings.Count(inserts[0], "), (") != 1 {
		t.Errorf("statements %q, want one insert of both rows", stmts)
	}
	if _, ok := x.loader.(byStatements); !ok {
		t.Errorf("loader %T after a refusal, want byStatements", x.loader)
	}
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
		copied, stmts := loadRows(t, n)
		if merged := ran(stmts, "INSERT INTO t "); len(copied) != n || merged != (n > 0) {
			t.Errorf("%d rows: %d copied, merged %v; want %d, %v", n, len(copied), merged, n, n > 0)
		}
	}
}

// TestUpserterLoadSkipsUnchangedGroups: a group with no row to copy
// creates no temporary table and sends no COPY, on a connection the
// loader has not copied through yet too; one with rows copies them all,
// the first included.
func TestUpserterLoadSkipsUnchangedGroups(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 2} {
		copied, stmts := loadRows(t, n)
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
