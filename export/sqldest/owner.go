package sqldest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// owner is the export's own connection: the session that holds the
// database for the export (on PostgreSQL the fence's session lock, on
// SQLite the source's row of edapp_export_lock), takes it again when the
// connection is lost, and runs every call of the Database but a
// PostgreSQL group's write, one at a time (mu). It lends the connections
// of the pool to writers (lend). On SQLite it also holds the span the
// groups' writes share (database_span.go) and the checkpointer.
type owner struct {
	mu        sync.Mutex // held by each call on conn
	conn      *sql.Conn
	db        *sql.DB // the pool a lost conn is replaced from, and writers' connections lent from
	d         Dialect
	source    string
	lockWait  time.Duration
	reconnect time.Duration // how long a lost connection is tried again
	fence     *fence        // the PostgreSQL lock's protocol (see fence.go)
	slots     chan struct{} // a place per pooled connection lent (a group being written, or a kind's rows read ahead)
	gaveUp    atomic.Pointer[error]
	ckpt      checkpoints   // SQLite's checkpointer, or ownCheckpoints: the connection checkpoints its own commits
	span      span          // SQLite's: the groups' writes not yet committed, when open
	spanAge   time.Duration // how long a span may stay open (spanAge; 0: a transaction per group)
}

// newOwner is the owner of conn, from db, for the source's exports.
func newOwner(conn *sql.Conn, db *sql.DB, d Dialect, source string, lockWait, reconnect time.Duration) *owner {
	return &owner{conn: conn, db: db, d: d, source: source, lockWait: lockWait, reconnect: reconnect,
		fence: newFence(source, lockWait), slots: make(chan struct{}, ParallelWrites), ckpt: ownCheckpoints{}, spanAge: spanAge}
}

// waitLock takes the database, trying again while another export holds
// it, for up to lockWait, and returns the run it numbered. The wait also
// covers an export just killed, whose PostgreSQL session the server has
// not yet ended.
func (o *owner) waitLock(ctx context.Context) (int64, error) {
	deadline := time.Now().Add(o.lockWait)
	for {
		run, err := o.lock(ctx)
		if !errors.Is(err, ErrLocked) || !time.Now().Before(deadline) {
			return run, err
		}
		select {
		case <-ctx.Done():
			return 0, err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// lock takes the database for the source, and numbers this run among
// the source's.
func (o *owner) lock(ctx context.Context) (run int64, err error) {
	if o.d == Postgres {
		if err := o.takeFence(ctx, o.conn); err != nil {
			return 0, err
		}
	}
	err = o.tx1(ctx, func(tx *sql.Tx) error {
		var holder sql.NullString
		var pid sql.NullInt64
		var host sql.NullString
		var beat any
		err := tx.QueryRowContext(ctx, rebind(o.d, `SELECT holder, pid, host, heartbeat_at FROM edapp_export_lock WHERE source = ?`), o.source).Scan(&holder, &pid, &host, &beat)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if o.d == SQLite && holder.Valid && !stale(host.String, int(pid.Int64), scanTime(beat)) {
			return fmt.Errorf("%w (%s since %s)", ErrLocked, holder.String, scanTime(beat).Format(time.RFC3339))
		}
		me, _ := os.Hostname()
		return tx.QueryRowContext(ctx, rebind(o.d, `INSERT INTO edapp_export_lock (source, holder, pid, host, heartbeat_at, runs) VALUES (?, ?, ?, ?, ?, 1)
ON CONFLICT (source) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, host = excluded.host, heartbeat_at = excluded.heartbeat_at,
runs = edapp_export_lock.runs + 1 RETURNING runs`),
			o.source, fmt.Sprintf("pid %d on %s", os.Getpid(), me), os.Getpid(), me, timeArg(o.d, time.Now())).Scan(&run)
	})
	return run, err
}

// takeFence runs the fence's steps 1 to 3 on conn (see fence.go):
// ErrLocked when another export holds the lock.
func (o *owner) takeFence(ctx context.Context, conn *sql.Conn) error {
	ok, err := o.fence.Take(ctx, conn)
	if err != nil {
		return err
	}
	if !ok {
		return ErrLocked
	}
	if err := o.fence.Held(ctx, conn); err != nil {
		return err
	}
	return o.fence.Drain(ctx, conn)
}

// close commits the span (on SQLite, the groups of the last second) and
// lets another export take the database.
func (o *owner) close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	ctx := context.Background()
	spanErr := o.endSpan()
	o.ckpt.close(o.conn)
	o.ckpt = ownCheckpoints{}
	var releaseErr error
	if o.d == Postgres {
		o.fence.Release(ctx, o.conn)
	} else {
		releaseErr = o.releaseRow(ctx)
	}
	return errors.Join(spanErr, releaseErr, o.conn.Close())
}

// releaseRow clears the source's row of edapp_export_lock (SQLite). A
// transaction on conn whose ctx ended (a run cancelled mid-write) can leave
// the connection inside it, database/sql having let it go: it is rolled
// back first (when none is open, ROLLBACK fails, harmlessly), or the
// release would be rolled back with it as the connection closes, and the
// lock held for another export of this process until it goes stale.
func (o *owner) releaseRow(ctx context.Context) error {
	o.conn.ExecContext(ctx, `ROLLBACK`)
	if _, err := o.conn.ExecContext(ctx, `UPDATE edapp_export_lock SET holder = NULL WHERE source = ? AND pid = ?`, o.source, os.Getpid()); err != nil {
		return fmt.Errorf("export: release the database's lock: %w", err)
	}
	return nil
}

// tx runs f in a transaction on the owner's connection, and again from
// scratch on a new one if the connection is lost (see retry).
func (o *owner) tx(ctx context.Context, f func(*sql.Tx) error) error {
	return o.retry(ctx, func(bool) error { return o.tx1(ctx, f) })
}

// tx1 runs f in a transaction on the owner's connection. The owner's
// session holds the lock: its transactions need no fence (a writer's do:
// writer.tx1).
func (o *owner) tx1(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := o.begin(ctx)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	o.ckpt.committed()
	return nil
}

// exec runs one statement as a transaction of its own on the owner's
// connection, and again on a new one if the connection is lost (see
// retry): one round trip on PostgreSQL, where tx takes three.
func (o *owner) exec(ctx context.Context, query string, args ...any) error {
	return o.retry(ctx, func(bool) error {
		o.ckpt.catchUp(ctx)
		if _, err := o.conn.ExecContext(ctx, query, args...); err != nil {
			return err
		}
		o.ckpt.committed()
		return nil
	})
}

// begin begins a transaction on the owner's connection, once SQLite's
// log may start over (catchUp).
func (o *owner) begin(ctx context.Context) (*sql.Tx, error) {
	o.ckpt.catchUp(ctx)
	return o.conn.BeginTx(ctx, nil)
}

// txConn is the owner's connection, for a group's write on it.
func (o *owner) txConn() *sql.Conn { return o.conn }

// giveUp makes every later call fail with err: the export no longer holds
// the database.
func (o *owner) giveUp(err error) { o.gaveUp.Store(&err) }

// givenUp is the error giveUp recorded, or nil.
func (o *owner) givenUp() error {
	if p := o.gaveUp.Load(); p != nil {
		return *p
	}
	return nil
}
