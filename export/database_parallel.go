package export

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync"
	"sync/atomic"
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
	mu     sync.Mutex    // held by each call on the Database's own connection
	slots  chan struct{} // one per group being written on a pooled connection
	gaveUp atomic.Pointer[error]
}

// writesInParallel tells the engine that Write may run beside the other
// calls, for different kinds (see serialDest).
func (x *Database) writesInParallel() bool {
	return x.d == Postgres && x.db != nil
}

// Write writes a group of one kind's pages and records them (see write).
// On PostgreSQL it runs on a connection of its own, beside the writes of
// other kinds; on SQLite, or when the pool has no connection to lend, on
// the Database's own.
func (x *Database) Write(ctx context.Context, b *Batch) error {
	x.shared.mu.Lock()
	c := x.kinds[b.Kind.Name]
	if !x.writesInParallel() {
		defer x.shared.mu.Unlock()
		return x.write(ctx, c, b)
	}
	x.shared.mu.Unlock()
	w, release := x.writer(ctx)
	if w == nil {
		x.shared.mu.Lock()
		defer x.shared.mu.Unlock()
		return x.write(ctx, c, b)
	}
	defer release()
	return w.write(ctx, c, b)
}

// writer waits for a slot and lends a connection of the pool to a writer
// that shares x's lock and settings; nil when the pool has none to lend
// (a server down: the Database's own connection then tries again).
func (x *Database) writer(ctx context.Context) (*Database, func()) {
	select {
	case x.shared.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, nil
	}
	conn, err := x.db.Conn(ctx)
	if err != nil {
		<-x.shared.slots
		return nil, nil
	}
	w := &Database{conn: conn, db: x.db, d: x.d, source: x.source, run: x.run, reconnect: x.reconnect,
		bulk: x.bulk, shared: x.shared, owner: x}
	return w, func() {
		w.conn.Close()
		<-x.shared.slots
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
	return o.retry(ctx, func() error { return o.lockHeld(ctx) })
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
