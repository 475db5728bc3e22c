package sqldest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/edapp-go/edapp/export"
)

// On PostgreSQL the kinds' groups are written in parallel, each in a
// transaction on a connection of its own from the pool, up to
// ParallelWrites at once: the server loads one kind while it indexes or
// commits another. The Database's own connection, which holds the
// export's lock, runs everything else (Resume, Begin, End, the budget),
// one call at a time. SQLite has one writer at a time whatever the
// connection, so there every call runs on the one connection.

// ParallelWrites is how many groups a PostgreSQL export writes at once;
// the pool should keep that many connections idle, and one more
// (sql.DB.SetMaxIdleConns).
const ParallelWrites = 4

// dbShared is what a Database shares with the writers it lends a
// connection of the pool to.
type dbShared struct {
	mu       sync.Mutex    // held by each call on the Database's own connection
	slots    chan struct{} // a place per pooled connection lent (a group being written, or a kind's rows read ahead)
	gaveUp   atomic.Pointer[error]
	fence    *fence       // the PostgreSQL lock's protocol (see fence.go)
	seenPart atomic.Int64 // the groups' rows in edapp_export_seen, numbered
	copies   atomic.Bool  // the bulk loader has copied through one of the connections (see load)
}

// writesInParallel says whether Write may run beside the other calls,
// for different kinds: on PostgreSQL.
func (x *Database) writesInParallel() bool {
	return x.d == Postgres && x.db != nil
}

// MaxParallelWrites is how many groups, of different kinds, the Database
// writes at once: ParallelWrites on PostgreSQL, one on SQLite (see
// export.ParallelDestination).
func (x *Database) MaxParallelWrites() int {
	if x.writesInParallel() {
		return ParallelWrites
	}
	return 1
}

var _ export.ParallelDestination = (*Database)(nil)

// Write upserts a group of one kind's pages and records the pages they
// complete, in one transaction; the rows the database refuses go to the
// rejects table. On PostgreSQL it runs on a connection of its own, beside the writes of
// other kinds; on SQLite, or when the pool has no connection to lend, on
// the Database's own.
func (x *Database) Write(ctx context.Context, b *export.Batch) error {
	c := x.kinds.get(b.Kind.Name)
	if !x.writesInParallel() {
		x.shared.mu.Lock()
		defer x.shared.mu.Unlock()
		return x.write(ctx, c, b)
	}
	w, release := x.writer(ctx)
	if w == nil {
		x.shared.mu.Lock()
		defer x.shared.mu.Unlock()
		return x.write(ctx, c, b)
	}
	defer release()
	err := w.write(ctx, c, b)
	if errors.Is(err, errOwnerLost) {
		// The owner's connection was lost: it takes the lock again (or
		// finds another export holds it), and the group is written again.
		if err = w.ownerHoldsLock(ctx); err != nil {
			w.giveUp(err)
			return err
		}
		err = w.write(ctx, c, b)
	}
	return err
}

// kindMap is the kinds being written, by name, under a lock of its own:
// a kind's group goes to a writer without waiting for the calls that hold
// dbShared.mu (another kind's End, which may build indexes, or Begin).
type kindMap struct {
	mu sync.Mutex
	m  map[string]*dbKind
}

func (k *kindMap) get(name string) *dbKind {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.m[name]
}

func (k *kindMap) set(name string, c *dbKind) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[string]*dbKind{}
	}
	k.m[name] = c
}

func (k *kindMap) drop(name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, name)
}

// writer waits for a place (the engine ranks the kinds' writes: see
// export.ParallelDestination) and lends a connection of the pool to a
// writer that shares x's lock and settings; nil when ctx ends first or
// the pool has none to lend (a server down: the Database's own connection
// then tries again).
func (x *Database) writer(ctx context.Context) (*Database, func()) {
	select {
	case x.shared.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, nil
	}
	leave := func() { <-x.shared.slots }
	conn, err := x.db.Conn(ctx)
	if err != nil {
		leave()
		return nil, nil
	}
	w := &Database{conn: conn, db: x.db, d: x.d, source: x.source, rows: x.rows, reconnect: x.reconnect,
		bulk: x.bulk, shared: x.shared, owner: x}
	return w, func() {
		w.conn.Close()
		leave()
	}
}

// ownerHoldsLock checks, on the owner's connection, that the export still
// holds the database: a writer whose connection was lost runs its group
// again only then. The owner regains its own connection (and the lock) if
// that was lost too.
func (x *Database) ownerHoldsLock(ctx context.Context) error {
	o := x.owner
	o.shared.mu.Lock()
	defer o.shared.mu.Unlock()
	return o.retry(ctx, func(bool) error { return o.shared.fence.Held(ctx, o.conn) })
}

// reconnectWriter replaces a writer's lost connection with another of the
// pool, once the owner still holds the lock.
func (x *Database) reconnectWriter(ctx context.Context) error {
	if err := x.ownerHoldsLock(ctx); err != nil {
		return err
	}
	conn, err := x.db.Conn(ctx)
	if err != nil {
		return err
	}
	x.conn = conn
	return nil
}

// giveUp makes every later call fail with err: the export no longer holds
// the database.
func (x *Database) giveUp(err error) { x.shared.gaveUp.Store(&err) }

// givenUp is the error giveUp recorded, or nil.
func (x *Database) givenUp() error {
	if p := x.shared.gaveUp.Load(); p != nil {
		return *p
	}
	return nil
}

// lost discards a lost connection: the pool must not lend it again.
func lost(conn *sql.Conn) {
	conn.Raw(func(any) error { return driver.ErrBadConn })
	conn.Close()
}
