package sqldest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strings"
	"sync"
	"testing"

	"github.com/edapp-go/edapp/export/dbtest"
)

// stmtLog is the statements an export ran, through loggedDB.
type stmtLog struct {
	mu    sync.Mutex
	stmts []string
}

func (l *stmtLog) add(q string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stmts = append(l.stmts, q)
}

// withStmtLog makes an export's destination record each statement it
// runs in l.
func withStmtLog(l *stmtLog) func(*dbRun) { return func(r *dbRun) { r.log = l } }

// loggedDB is a pool on url's database, as openTestDB opens it, whose
// connections record each statement in l before the driver runs it.
func loggedDB(t *testing.T, url string, l *stmtLog) *sql.DB {
	t.Helper()
	name, dsn := dbtest.DSN(url, SQLiteDSN)
	plain, err := sql.Open(name, dsn)
	if err != nil {
		t.Fatal(err)
	}
	drv := plain.Driver()
	plain.Close()
	db := sql.OpenDB(logConnector{drv, dsn, l})
	t.Cleanup(func() { db.Close() })
	if dbtest.IsPostgres(url) {
		db.SetMaxIdleConns(ParallelWrites + 1)
	}
	return db
}

type logConnector struct {
	drv driver.Driver
	dsn string
	log *stmtLog
}

func (c logConnector) Driver() driver.Driver { return c.drv }

func (c logConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	return logConn{conn, c.log}, err
}

// logConn passes every call on, after the log has its statement.
type logConn struct {
	driver.Conn
	log *stmtLog
}

func (c logConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.log.add(q)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c logConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.log.add(q)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c logConn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, o)
}

func (c logConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	c.log.add(q)
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
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
