package sqldest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
)

// keyDriver is a database/sql driver that records the statements it runs
// and refuses the first plain insert with SQLite's primary key error.
type keyDriver struct {
	mu      sync.Mutex
	stmts   []string
	refused bool
}

type keyConn struct{ d *keyDriver }

type liteError int

func (e liteError) Error() string { return "constraint failed" }
func (e liteError) Code() int     { return int(e) }

func (d *keyDriver) Connect(context.Context) (driver.Conn, error) { return keyConn{d}, nil }
func (d *keyDriver) Driver() driver.Driver                        { return nil }

func (c keyConn) Prepare(q string) (driver.Stmt, error) { return keyStmt{c, q}, nil }
func (c keyConn) Close() error                          { return nil }
func (c keyConn) Begin() (driver.Tx, error)             { return c, nil }
func (c keyConn) Commit() error                         { return nil }
func (c keyConn) Rollback() error                       { return nil }

func (c keyConn) ExecContext(_ context.Context, q string, _ []driver.NamedValue) (driver.Result, error) {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	c.d.stmts = append(c.d.stmts, q)
	if strings.HasPrefix(q, "INSERT OR FAIL INTO attempts") && !strings.Contains(q, "ON CONFLICT") && !c.d.refused {
		c.d.refused = true
		return nil, liteError(1555)
	}
	return driver.RowsAffected(1), nil
}

type keyStmt struct {
	c keyConn
	q string
}

func (s keyStmt) Close() error  { return nil }
func (s keyStmt) NumInput() int { return -1 }
func (s keyStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.c.ExecContext(context.Background(), s.q, nil)
}
func (s keyStmt) Query([]driver.Value) (driver.Rows, error) { return nil, errors.ErrUnsupported }

// TestDatabaseWritePlainThenUpsert: into tables empty at the walk's start
// a batch goes in by plain inserts; a key the table holds already makes
// Write write that batch again by upserts, and the batches after it.
func TestDatabaseWritePlainThenUpsert(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := &keyDriver{}
	conn, err := sql.OpenDB(d).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	x := newDatabase(conn, nil, SQLite)
	k := kindNamed(t, "attempts")
	tb, err := x.rows.table(k)
	if err != nil {
		t.Fatal(err)
	}
	x.kinds.set(k.Name, &dbKind{t: tb, fresh: true, walk: walkState{run: 1}})
	r, err := export.NewRecord(edapp.Attempt{ID: "a1", UserID: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := x.Write(ctx, &export.Batch{Kind: k, Records: []export.Record{r}, Pages: 1, Started: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	var inserts []string
	for _, q := range d.stmts {
		if strings.Contains(q, "INTO attempts") {
			inserts = append(inserts, map[bool]string{true: "upsert", false: "plain"}[strings.Contains(q, "ON CONFLICT")])
			if !strings.HasPrefix(q, "INSERT OR FAIL INTO") {
				t.Errorf("on SQLite %.40q…, want INSERT OR FAIL: no statement journal", q)
			}
		}
	}
	if got := strings.Join(inserts, " "); got != "plain upsert upsert" {
		t.Errorf("inserts %s, want plain (refused), then upsert for that batch and the next", got)
	}
}
