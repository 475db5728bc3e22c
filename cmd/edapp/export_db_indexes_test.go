package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strings"
	"sync"
	"testing"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/export/sqldest"
)

// stmtLog is the statements an export ran, through loggingConnector.
type stmtLog struct {
	mu    sync.Mutex
	stmts []string
}

func (l *stmtLog) add(q string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stmts = append(l.stmts, q)
}

// withStmtLog makes the export open its database at url again, through
// hookedDB, recording each statement in l.
func withStmtLog(t *testing.T, url string, l *stmtLog) func(*factory) {
	return withHookedDB(url, l.add, func(db *sql.DB) { t.Cleanup(func() { db.Close() }) })
}

// withHookedDB makes the export open its database at url again, through
// hookedDB with onStmt, and hands the *sql.DB to opened (when not nil).
func withHookedDB(url string, onStmt func(q string), opened func(*sql.DB)) func(*factory) {
	return func(f *factory) {
		f.OpenDatabase = func(ctx context.Context, _ *sql.DB, d sqldest.Dialect, opts ...sqldest.DatabaseOption) (*sqldest.Database, error) {
			db, err := hookedDB(url, onStmt)
			if err != nil {
				return nil, err
			}
			if opened != nil {
				opened(db)
			}
			return sqldest.OpenDatabase(ctx, db, d, opts...)
		}
	}
}

// hookedDB opens the database at url through a connector whose
// connections call onStmt with each statement before the driver runs it.
func hookedDB(url string, onStmt func(q string)) (*sql.DB, error) {
	target, err := parseDBURL(url)
	if err != nil {
		return nil, err
	}
	plain, err := sql.Open(target.Driver, driverDSN(target))
	if err != nil {
		return nil, err
	}
	drv := plain.Driver()
	plain.Close()
	return sql.OpenDB(hookConnector{drv, driverDSN(target), onStmt}), nil
}

type hookConnector struct {
	drv    driver.Driver
	dsn    string
	onStmt func(q string)
}

func (c hookConnector) Driver() driver.Driver { return c.drv }

func (c hookConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	return hookConn{conn, c.onStmt}, err
}

// hookConn passes every call on, after onStmt has seen its statement.
type hookConn struct {
	driver.Conn
	onStmt func(q string)
}

func (c hookConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.onStmt(q)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c hookConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.onStmt(q)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c hookConn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, o)
}

func (c hookConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	c.onStmt(q)
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
}

// TestExportDBKeepsTheIndexesOfAnEmptyTable: a first run drops the
// indexes of the tables it loads while they are empty, and builds them
// after; a re-run, after that complete fetch, leaves them as they are,
// even those of a table the fetch left empty (an account without
// attempts).
func TestExportDBKeepsTheIndexesOfAnEmptyTable(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv := edapptest.New(t)
		t.Cleanup(srv.Close)
		if _, err := srv.AddUser(edapptest.UserSpec{Username: "learner", ExternalID: "L1"}); err != nil {
			t.Fatal(err)
		}
		db, _ := migratedTestDB(t, url)
		var first, again stmtLog
		args := []string{"--db", url, "--kinds", "users,attempts"}
		wantCode(t, runExport(t, context.Background(), srv, withStmtLog(t, url, &first), args...), exitOK)
		var rows int
		if err := db.QueryRow(`SELECT COUNT(*) FROM attempts`).Scan(&rows); err != nil || rows != 0 {
			t.Fatalf("attempts holds %d rows (%v), want none", rows, err)
		}
		if countPrefix(first.stmts, "DROP INDEX IF EXISTS attempts_") == 0 || countPrefix(first.stmts, "CREATE INDEX IF NOT EXISTS attempts_") == 0 {
			t.Fatalf("the first run did not drop and build the indexes of attempts:\n%s", strings.Join(first.stmts, "\n"))
		}
		wantCode(t, runExport(t, context.Background(), srv, withStmtLog(t, url, &again), args...), exitOK)
		for _, prefix := range []string{"DROP INDEX", "CREATE INDEX"} {
			if n := countPrefix(again.stmts, prefix); n != 0 {
				t.Errorf("the re-run ran %d %s statements, want none", n, prefix)
			}
		}
	})
}

// countPrefix is how many of stmts begin with prefix.
func countPrefix(stmts []string, prefix string) int {
	return countMatching(stmts, func(s string) bool { return strings.HasPrefix(s, prefix) })
}

// countMatching is how many of stmts match.
func countMatching(stmts []string, match func(string) bool) int {
	n := 0
	for _, s := range stmts {
		if match(s) {
			n++
		}
	}
	return n
}
