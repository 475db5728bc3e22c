package sqldest

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// spanDatabase is a SQLite Database on a fake driver, whose spans last
// age.
func spanDatabase(t *testing.T, age time.Duration) (*Database, *fakeDriver) {
	t.Helper()
	d := &fakeDriver{journal: "wal"}
	x := openFakeDatabase(t, d, 0)
	t.Cleanup(func() { x.Close() })
	x.own.spanAge = age
	return x, d
}

// spanWrite is a group's write of rows rows through writeTx, under the
// lock Write holds: f, or else the statement stmt.
func spanWrite(ctx context.Context, x *Database, rows int, stmt string, f func(*sql.Tx) error) error {
	if f == nil {
		f = func(tx *sql.Tx) error {
			_, err := tx.Exec(stmt)
			return err
		}
	}
	x.own.mu.Lock()
	defer x.own.mu.Unlock()
	return x.own.writeTx(ctx, rows, func(tx *sql.Tx, _ bool) error { return f(tx) })
}

// ranSince is what the export's connection ran from its first BEGIN on,
// joined by "; ".
func ranSince(d *fakeDriver) string {
	ran := d.ran(1)
	if i := slices.Index(ran, "BEGIN"); i >= 0 {
		ran = ran[i:]
	}
	return strings.Join(ran, "; ")
}

// TestWriteTx: on SQLite the groups' writes share one transaction until
// another call takes the connection, or until it holds spanRows rows; with
// no span (spanAge 0), each group commits on its own.
func TestWriteTx(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		age     time.Duration
		rows    int
		held    string // before another call takes the connection
		release string
	}{
		{"a span", time.Hour, 10, "BEGIN; INSERT a; INSERT b", "BEGIN; INSERT a; INSERT b; COMMIT"},
		{"spanRows", time.Hour, spanRows / 2, "BEGIN; INSERT a; INSERT b; COMMIT", "BEGIN; INSERT a; INSERT b; COMMIT"},
		{"no span", 0, 10, "BEGIN; INSERT a; COMMIT; BEGIN; INSERT b; COMMIT", "BEGIN; INSERT a; COMMIT; BEGIN; INSERT b; COMMIT"},
	} {
		x, d := spanDatabase(t, tc.age)
		for _, s := range []string{"INSERT a", "INSERT b"} {
			if err := spanWrite(context.Background(), x, tc.rows, s, nil); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		if got := ranSince(d); got != tc.held {
			t.Errorf("%s: the connection ran %q, want %q", tc.name, got, tc.held)
		}
		release, err := x.own.hold()
		if err != nil {
			t.Fatalf("%s: hold: %v", tc.name, err)
		}
		release()
		if got := ranSince(d); got != tc.release {
			t.Errorf("%s: once held, the connection ran %q, want %q", tc.name, got, tc.release)
		}
	}
}

// TestBeginSpan: a span that no group or call follows commits at spanAge.
func TestBeginSpan(t *testing.T) {
	t.Parallel()
	x, d := spanDatabase(t, 20*time.Millisecond)
	if err := spanWrite(context.Background(), x, 1, "INSERT a", nil); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ranSince(d) != "BEGIN; INSERT a; COMMIT" && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if got := ranSince(d); got != "BEGIN; INSERT a; COMMIT" {
		t.Fatalf("the connection ran %q, want the span committed by its timer", got)
	}
}

// TestLoseSpan: a group that fails leaves the span open for its write
// again; once lost, the span is rolled back and every later call fails
// with errSpanLost.
func TestLoseSpan(t *testing.T) {
	t.Parallel()
	x, d := spanDatabase(t, time.Hour)
	if err := spanWrite(context.Background(), x, 1, "INSERT a", nil); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused")
	err := spanWrite(context.Background(), x, 1, "", func(*sql.Tx) error { return refused })
	if err != refused || !x.own.span.open {
		t.Fatalf("a failed group: %v, span open %v; want its error and the span kept", err, x.own.span.open)
	}
	x.own.mu.Lock()
	err = x.own.loseSpan(err)
	x.own.mu.Unlock()
	if !errors.Is(err, errSpanLost) || !errors.Is(err, refused) {
		t.Fatalf("loseSpan: %v, want errSpanLost wrapping the group's error", err)
	}
	if got := ranSince(d); got != "BEGIN; INSERT a; ROLLBACK" {
		t.Errorf("the connection ran %q, want the span rolled back", got)
	}
	if err := spanWrite(context.Background(), x, 1, "INSERT b", nil); !errors.Is(err, errSpanLost) {
		t.Errorf("a write after the span was lost: %v, want errSpanLost", err)
	}
	if err := x.SaveBudget(context.Background(), nil); !errors.Is(err, errSpanLost) {
		t.Errorf("SaveBudget after the span was lost: %v, want errSpanLost", err)
	}
}

// TestBeginSpanOutlivesItsCtx: the span stays open, and commits, after the
// ctx of the write that opened it ends.
func TestBeginSpanOutlivesItsCtx(t *testing.T) {
	t.Parallel()
	x, d := spanDatabase(t, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	if err := spanWrite(ctx, x, 1, "INSERT a", nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	time.Sleep(20 * time.Millisecond) // database/sql rolls back a transaction whose ctx ended, in a goroutine of its own
	release, err := x.own.hold()
	if err != nil {
		t.Fatalf("hold after the write's ctx ended: %v", err)
	}
	release()
	if got := ranSince(d); got != "BEGIN; INSERT a; COMMIT" {
		t.Errorf("the connection ran %q, want the span committed", got)
	}
}
