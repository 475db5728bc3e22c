package sqldest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/jackc/pgx/v5/stdlib"
)

// The owner's tests against real databases: the lock an export takes,
// and what its writers do once it is lost.

// txPooler is a connection that behaves as PgBouncer in transaction mode:
// each statement outside a transaction goes to the next of two server
// sessions; a transaction stays on the session it began on.
type txPooler struct {
	server [2]driver.Conn
	next   int
	pinned driver.Conn // the session of the transaction under way
}

func (p *txPooler) session() driver.Conn {
	if p.pinned != nil {
		return p.pinned
	}
	p.next++
	return p.server[p.next%2]
}

func (p *txPooler) Prepare(q string) (driver.Stmt, error) { return p.session().Prepare(q) }
func (p *txPooler) Close() error                          { return errors.Join(p.server[0].Close(), p.server[1].Close()) }
func (p *txPooler) Begin() (driver.Tx, error) {
	return p.BeginTx(context.Background(), driver.TxOptions{})
}

func (p *txPooler) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	s := p.session()
	tx, err := s.(driver.ConnBeginTx).BeginTx(ctx, o)
	if err == nil {
		p.pinned = s
	}
	return pooledTx{tx, p}, err
}

func (p *txPooler) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	return p.session().(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (p *txPooler) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	return p.session().(driver.ExecerContext).ExecContext(ctx, q, args)
}

type pooledTx struct {
	driver.Tx
	p *txPooler
}

func (t pooledTx) Commit() error   { t.p.pinned = nil; return t.Tx.Commit() }
func (t pooledTx) Rollback() error { t.p.pinned = nil; return t.Tx.Rollback() }

// txPoolerConnector opens a txPooler over two sessions of the database.
type txPoolerConnector struct{ url string }

func (c txPoolerConnector) Driver() driver.Driver { return stdlib.GetDefaultDriver() }

func (c txPoolerConnector) Connect(context.Context) (driver.Conn, error) {
	p := &txPooler{}
	for i := range p.server {
		conn, err := c.Driver().Open(c.url)
		if err != nil {
			return nil, err
		}
		p.server[i] = conn
	}
	return p, nil
}

// TestOpenDatabaseRefusesALockThePoolerDrops: behind a pooler in
// transaction mode, the export's session-level advisory lock is taken on
// one server session and checked from another; OpenDatabase refuses with
// ErrSessionLock instead of running unprotected.
func TestOpenDatabaseRefusesALockThePoolerDrops(t *testing.T) {
	t.Parallel()
	url := dbtest.Postgres(t)
	migratedTestDB(t, url)
	db := sql.OpenDB(txPoolerConnector{url})
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	x, err := OpenDatabase(context.Background(), db, Postgres, WithLockWait(0))
	if err == nil {
		x.Close()
	}
	if !errors.Is(err, ErrSessionLock) {
		t.Fatalf("OpenDatabase behind a pooler in transaction mode: %v, want ErrSessionLock", err)
	}
}

// TestOpenDatabaseLocksPerSource: while an EdApp export holds a database,
// a SafetyCulture export opens it, a second EdApp one is refused, and each
// numbers its runs on its own; an unknown source is invalid input.
func TestOpenDatabaseLocksPerSource(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, d := openTestDB(t, url)
		open := func(db *sql.DB, opts ...DatabaseOption) (*Database, error) {
			return OpenDatabase(ctx, db, d, append(opts, WithLockWait(0))...)
		}
		edappDB, err := open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer edappDB.Close()
		other, _ := openTestDB(t, url)
		scDB, err := open(other, WithSource(SourceSafetyCulture))
		if err != nil {
			t.Fatalf("a SafetyCulture export beside an EdApp one: %v", err)
		}
		defer scDB.Close()
		third, _ := openTestDB(t, url)
		if x, err := open(third); !errors.Is(err, ErrLocked) {
			t.Errorf("a second EdApp export: %v, want ErrLocked", err)
			if x != nil {
				x.Close()
			}
		}
		if _, err := open(third, WithSource("moodle")); !errors.Is(err, edapp.ErrInvalidInput) {
			t.Errorf("source moodle: %v", err)
		}
		for source, want := range map[string]string{"edapp": "1", "safetyculture": "1"} {
			if got := pairs(t, db, `SELECT source, runs FROM edapp_export_lock WHERE source = '`+source+`'`); len(got) != 1 || got[0] != source+" "+want {
				t.Errorf("%s runs: %v, want %s", source, got, want)
			}
		}
	})
}
