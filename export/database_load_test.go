package export

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

// TestUpserterLoad: a group's rows go to the temporary table and are
// merged into the kind's table; a group with no row to copy (a re-run's
// unchanged rows) merges nothing.
func TestUpserterLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, n := range []int{0, 2} {
		d := &keyDriver{}
		conn, err := sql.OpenDB(d).Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		x := newDatabase(conn, nil, Postgres)
		var copied [][]any
		x.bulk = sliceLoader{&copied}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		u := x.upserter(tx, seenTable())
		chunks := make(chan rowChunk, 1)
		chunks <- rowChunk{rows: [][]any{{"a", "x", int64(1), "d"}, {"b", "y", int64(1), "d"}}[:n]}
		close(chunks)
		if err := u.load(ctx, chunks); err != nil {
			t.Fatal(err)
		}
		merged := slices.ContainsFunc(d.stmts, func(s string) bool { return strings.HasPrefix(s, "INSERT INTO t ") })
		if len(copied) != n || merged != (n > 0) {
			t.Errorf("%d rows: %d copied, merged %v; want %d, %v", n, len(copied), merged, n, n > 0)
		}
	}
}
