package sqldest

import (
	"context"
	"database/sql"
	"database/sql/driver"
)

// writer is a connection of the pool that the owner lends for one
// group's write on PostgreSQL, beside the owner's calls and the other
// kinds' writes. Its session holds no lock: each of its transactions
// first shows that the owner's session still holds the export's
// (fence.Enter), and a lost connection is replaced once the owner's
// shows the lock held (reconnect).
type writer struct {
	conn *sql.Conn
	o    *owner // the owner that lent conn
}

// lend waits for a place (the engine ranks the kinds' writes: see
// export.ParallelDestination) and lends a connection of the pool to a
// writer; ok is false when ctx ends first or the pool has none to lend
// (a server down: the owner's own connection then tries again). release
// gives the connection and the place back.
func (o *owner) lend(ctx context.Context) (w *writer, release func(), ok bool) {
	select {
	case o.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, false
	}
	leave := func() { <-o.slots }
	conn, err := o.db.Conn(ctx)
	if err != nil {
		leave()
		return nil, nil, false
	}
	w = &writer{conn: conn, o: o}
	return w, func() {
		w.conn.Close()
		leave()
	}, true
}

// holdsLock checks, on the owner's connection, that the export still
// holds the database: a writer whose connection was lost runs its group
// again only then. The owner regains its own connection (and the lock)
// if that was lost too.
func (o *owner) holdsLock(ctx context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.retry(ctx, func(bool) error { return o.fence.Held(ctx, o.conn) })
}

// writeTx runs f, a group's write, in a transaction of its own on the
// writer's connection, again from scratch on a new one if it is lost.
func (w *writer) writeTx(ctx context.Context, _ int, f func(tx *sql.Tx, again bool) error) error {
	return w.retry(ctx, func(again bool) error {
		return w.tx1(ctx, func(tx *sql.Tx) error { return f(tx, again) })
	})
}

// tx1 runs f in a transaction on the writer's connection, whose first
// statements show that the export still holds the database (fence.Enter).
func (w *writer) tx1(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := w.conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	err = w.o.fence.Enter(ctx, tx)
	if err == nil {
		err = f(tx)
	}
	if err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// retry runs op, and again on a new connection when it fails for a lost
// one (see owner.retry).
func (w *writer) retry(ctx context.Context, op func(again bool) error) error {
	return w.o.retryOn(ctx, op, func() { lost(w.conn) }, w.reconnect)
}

// reconnect replaces the writer's lost connection with another of the
// pool, once the owner still holds the lock.
func (w *writer) reconnect(ctx context.Context) error {
	if err := w.o.holdsLock(ctx); err != nil {
		return err
	}
	conn, err := w.o.db.Conn(ctx)
	if err != nil {
		return err
	}
	w.conn = conn
	return nil
}

// txConn is the writer's connection.
func (w *writer) txConn() *sql.Conn { return w.conn }

// endSpan commits nothing: a writer's groups commit each on its own.
func (w *writer) endSpan() error { return nil }

// loseSpan is err: a writer holds no span to roll back.
func (w *writer) loseSpan(err error) error { return err }

// lost discards a lost connection: the pool must not lend it again.
func lost(conn *sql.Conn) {
	conn.Raw(func(any) error { return driver.ErrBadConn })
	conn.Close()
}
