package sqldest

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/export/internal/dbwrite"
	"github.com/jackc/pgx/v5/pgconn"
)

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// The tests below give connLost the errors the drivers return, built by
// the drivers themselves.

// TestConnLostPgError: a PgError is a lost connection by its SQLSTATE:
// class 08, and 57P01 to 57P03.
func TestConnLostPgError(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]bool{"08006": true, "08003": true, "57P01": true, "57P02": true, "57P03": true, "57014": false, "23505": false, "40001": false} {
		if got := connLost(&pgconn.PgError{Code: code}); got != want {
			t.Errorf("connLost(PgError %s) = %v, want %v", code, got, want)
		}
	}
}

// TestConnLostConnectError: pgconn's failed dial is a lost connection.
func TestConnLostConnectError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := pgconn.Connect(dctx, "postgres://u@"+closedPort(t)+"/d?sslmode=disable&connect_timeout=5")
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) || !connLost(err) {
		t.Errorf("connLost(%T %v) = %v, want a ConnectError, lost", err, err, connLost(err))
	}
}

// TestConnLostNetError: a net.Error is a lost connection.
func TestConnLostNetError(t *testing.T) {
	t.Parallel()
	_, err := net.DialTimeout("tcp", closedPort(t), 5*time.Second)
	var ne net.Error
	if !errors.As(err, &ne) || !connLost(err) {
		t.Errorf("connLost(%T %v) = %v, want a net.Error, lost", err, err, connLost(err))
	}
}

// TestConnLostConnDone: database/sql's closed connection is a lost one.
func TestConnLostConnDone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := openTestDB(t, dbtest.SQLite(t))
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	_, err = conn.ExecContext(ctx, `SELECT 1`)
	if !errors.Is(err, sql.ErrConnDone) || !connLost(err) {
		t.Errorf("connLost(%v) on a closed *sql.Conn = %v, want sql.ErrConnDone, lost", err, connLost(err))
	}
}

// TestConnLostEndedSession: the statements on a PostgreSQL session the
// server ended are told lost, the server's notice and the closed
// connection after it.
func TestConnLostEndedSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := openTestDB(t, dbtest.Postgres(t))
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var pid int64
	if err := conn.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // the server's notice, then the closed connection
		_, err := conn.ExecContext(ctx, `SELECT 1`)
		if err == nil || !connLost(err) {
			t.Errorf("statement %d after the session ended: connLost(%T %v) = false, want lost", i+1, err, err)
		}
	}
}

// TestConnLostSQLiteCodes: SQLite's result codes never say a connection
// was lost: a file has none to lose (busy and constraint errors are
// told apart by dbwrite.SQLiteBusy and IsDataError).
func TestConnLostSQLiteCodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := dbtest.SQLite(t)
	db, _ := openTestDB(t, url)
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (id TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	_, err := db.ExecContext(ctx, `INSERT INTO t VALUES ('a'), ('a')`)
	var coded interface{ Code() int }
	if !errors.As(err, &coded) || connLost(err) {
		t.Errorf("a constraint: connLost(%T %v) = %v, want a result code, not lost", err, err, connLost(err))
	}
	_, err = db.ExecContext(ctx, `SELECT * FROM missing`)
	if err == nil || connLost(err) {
		t.Errorf("no such table: connLost(%T %v) = %v, want not lost", err, err, connLost(err))
	}
	holder, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer holder.ExecContext(ctx, `ROLLBACK`)
	other, err := sql.Open("sqlite", "file:"+strings.TrimPrefix(url, "sqlite:")+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.ExecContext(ctx, `INSERT INTO t VALUES ('b')`)
	if !dbwrite.SQLiteBusy(err) || connLost(err) {
		t.Errorf("busy: connLost(%T %v) = %v, want SQLITE_BUSY, not lost", err, err, connLost(err))
	}
}
