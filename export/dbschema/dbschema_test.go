package dbschema

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// stmtDriver is a database that holds nothing: every query answers no
// row (a NULL for MAX), every statement succeeds but the one failOn
// names. It records the statements.
type stmtDriver struct {
	failOn string
	busy   int // BEGINs answered SQLITE_BUSY before one succeeds; -1: all
	mu     sync.Mutex
	stmts  []string
}

// busyError is SQLITE_BUSY as modernc.org/sqlite reports it: a Code()
// method, here with an extended code (SQLITE_BUSY_SNAPSHOT).
type busyError struct{}

func (busyError) Error() string { return "database is locked (517)" }
func (busyError) Code() int     { return 517 }

func (d *stmtDriver) Connect(context.Context) (driver.Conn, error) { return stmtConn{d}, nil }
func (d *stmtDriver) Driver() driver.Driver                        { return nil }

// count is how many statements were q.
func (d *stmtDriver) count(q string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, s := range d.stmts {
		if s == q {
			n++
		}
	}
	return n
}

type stmtConn struct{ d *stmtDriver }

func (c stmtConn) Prepare(string) (driver.Stmt, error) { return nil, errors.ErrUnsupported }
func (c stmtConn) Close() error                        { return nil }
func (c stmtConn) Begin() (driver.Tx, error)           { return nil, errors.ErrUnsupported }

func (c stmtConn) ExecContext(_ context.Context, q string, _ []driver.NamedValue) (driver.Result, error) {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	c.d.stmts = append(c.d.stmts, q)
	if strings.HasPrefix(q, "BEGIN") && c.d.busy != 0 {
		c.d.busy--
		return nil, busyError{}
	}
	if c.d.failOn != "" && strings.Contains(q, c.d.failOn) {
		return nil, errors.New("refused")
	}
	return driver.RowsAffected(0), nil
}

func (c stmtConn) QueryContext(_ context.Context, q string, _ []driver.NamedValue) (driver.Rows, error) {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	c.d.stmts = append(c.d.stmts, q)
	if q == liveCommentsSQL {
		return &tableRows{}, nil
	}
	return &nullRows{max: strings.HasPrefix(q, "SELECT MAX(") || strings.HasPrefix(q, "SELECT CAST(MAX(")}, nil
}

// tableRows answers liveCommentsSQL as a database that has every table
// of the dictionary, none of them commented.
type tableRows struct{ n int }

func (r *tableRows) Columns() []string { return []string{"t", "col", "txt"} }
func (r *tableRows) Close() error      { return nil }
func (r *tableRows) Next(dest []driver.Value) error {
	tables := Dictionary()
	if r.n == len(tables) {
		return io.EOF
	}
	dest[0], dest[1], dest[2] = tables[r.n].Name, "", ""
	r.n++
	return nil
}

// nullRows is no row, or one NULL for a MAX.
type nullRows struct{ max bool }

func (r *nullRows) Columns() []string { return []string{"v"} }
func (r *nullRows) Close() error      { return nil }
func (r *nullRows) Next(dest []driver.Value) error {
	if !r.max {
		return io.EOF
	}
	r.max = false
	dest[0] = nil
	return nil
}

// TestMigratorRepairIsOneTransaction: the migrations, the tables
// recreated and the data dictionary commit as one transaction, begun
// once (so that concurrent callers each wait for the write lock once),
// and a statement refused, even the last, rolls all of it back.
func TestMigratorRepairIsOneTransaction(t *testing.T) {
	t.Parallel()
	for _, d := range []Dialect{SQLite, Postgres} {
		begin := map[Dialect]string{SQLite: "BEGIN IMMEDIATE", Postgres: "BEGIN"}[d]
		drv := &stmtDriver{}
		db := sql.OpenDB(drv)
		if _, err := NewMigrator(db, d).Repair(context.Background()); err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		if b, c := drv.count(begin), drv.count("COMMIT"); b != 1 || c != 1 {
			t.Errorf("%v: %d %s and %d COMMIT for a new database, want one each", d, b, begin, c)
		}
		drv = &stmtDriver{failOn: map[Dialect]string{SQLite: "INSERT INTO edapp_columns", Postgres: "COMMENT ON"}[d]} // the data dictionary, last
		db = sql.OpenDB(drv)
		if _, err := NewMigrator(db, d).Repair(context.Background()); err == nil {
			t.Errorf("%v: a refused statement: no error", d)
		}
		if c, r := drv.count("COMMIT"), drv.count("ROLLBACK"); c != 0 || r != 1 {
			t.Errorf("%v: a refused statement: %d COMMIT and %d ROLLBACK, want only a ROLLBACK", d, c, r)
		}
	}
}

// TestMigratorUpSendsAMigrationAtOnce: a new database reads its
// version once, and gets each migration as one script (on PostgreSQL one
// round trip), then the data dictionary as one more.
func TestMigratorUpSendsAMigrationAtOnce(t *testing.T) {
	t.Parallel()
	for _, d := range []Dialect{SQLite, Postgres} {
		drv := &stmtDriver{}
		if err := NewMigrator(sql.OpenDB(drv), d).Up(context.Background()); err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		read := `SELECT MAX(version) FROM edapp_schema`
		if d == Postgres {
			read = `SELECT CAST(MAX(version) AS BIGINT) FROM edapp_schema`
		}
		if n := drv.count(read); n != 1 {
			t.Errorf("%v: read the version %d times, want once", d, n)
		}
		for _, m := range migrations {
			if stmts := m.SQL(d); len(stmts) > 0 && drv.count(strings.Join(stmts, ";\n")) == 0 {
				t.Errorf("%v: migration %d was not sent as one script", d, m.Version)
			}
		}
		if drv.count(strings.Join(dictionarySQL(d), ";\n")) == 0 {
			t.Errorf("%v: the data dictionary was not sent as one script", d)
		}
	}
}

// TestBeginWaiting: a migration asks again for SQLite's write lock while
// the answer is SQLITE_BUSY, and stops asking when ctx ends; another
// error, or PostgreSQL's answers, are not asked again.
func TestBeginWaiting(t *testing.T) {
	t.Parallel()
	d := &stmtDriver{busy: 3}
	db := sql.OpenDB(d)
	defer db.Close()
	if err := NewMigrator(db, SQLite).Up(context.Background()); err != nil {
		t.Fatalf("Up after three busy answers: %v", err)
	}
	if n := d.count("BEGIN IMMEDIATE"); n != 4 {
		t.Errorf("%d BEGIN IMMEDIATE, want 4", n)
	}

	held := &stmtDriver{busy: -1}
	db = sql.OpenDB(held)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := NewMigrator(db, SQLite).Up(ctx); !sqliteBusy(err) {
		t.Errorf("Up while the lock is held until ctx ends: %v, want SQLITE_BUSY", err)
	}

	refused := &stmtDriver{failOn: "BEGIN"}
	db = sql.OpenDB(refused)
	defer db.Close()
	if err := NewMigrator(db, SQLite).Up(context.Background()); err == nil || refused.count("BEGIN IMMEDIATE") != 1 {
		t.Errorf("Up with BEGIN refused: %v after %d BEGIN, want an error after 1", err, refused.count("BEGIN IMMEDIATE"))
	}
}
