package sqldest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A SQLite database in WAL mode appends each commit to its write-ahead
// log, and copies the log back into the database file (a checkpoint) from
// time to time. By default the connection that commits does that copy,
// with its fsyncs, inside the commit that takes the log past 1,000 pages:
// during a first load that is the export's one writer, waiting on the
// disk for a fifth of the run. So the export's connection does not
// checkpoint (wal_autocheckpoint 0) and commits without an fsync of its
// own (synchronous NORMAL); a checkpointer, on a connection of its own,
// copies the log after each commit, beside the writer, and its fsyncs make
// the commits durable. A power cut can take back the commits since its
// last checkpoint, never part of one: the rows go back with the pages they
// complete, and the next run fetches them again. The export's connection
// gets its settings back when the export ends. A journal other than WAL,
// or a connection the caller set not to checkpoint, is left alone.
//
// SQLite starts the log over from its beginning only when a transaction
// begins with the whole log copied. The writer begins its next span as
// soon as it commits one, before the checkpoint of that commit ends, so a
// first load's log grew by everything it wrote, more than the database
// itself, and stayed on the disk until the export closed, which then had
// to delete it. So once the log holds walLimit
// bytes, the writer waits for that checkpoint to end before it begins
// (catchUp, in begin): its next transaction starts the log over, and cuts
// the file back to walLimit (journal_size_limit).

// checkpointerConnWait bounds the wait for the checkpointer's connection:
// a pool that has none to spare leaves the checkpoints to the writer.
const checkpointerConnWait = time.Second

// checkpointWait bounds Close's last checkpoint.
const checkpointWait = 10 * time.Second

// walLimit is the size of the log past which the writer lets it start
// over (see catchUp), and to which the file is cut back when it does.
const walLimit = 256 << 20

// checkpoints is who copies the owner's commits from SQLite's log into
// the database file: the owner's connection itself, as SQLite does by
// default (ownCheckpoints: PostgreSQL, a journal other than WAL, or no
// connection to spare), or a checkpointer beside it. The owner starts with
// the first and may switch to the second once, at open.
type checkpoints interface {
	// catchUp lets the log start over before the owner's connection
	// begins a transaction (see walLimit).
	catchUp(ctx context.Context)
	// committed tells that the owner's connection committed.
	committed()
	// close stops the checkpoints beside conn, the owner's connection,
	// and gives it its settings back.
	close(conn *sql.Conn)
}

// ownCheckpoints leaves the checkpoints to the connection that commits.
type ownCheckpoints struct{}

func (ownCheckpoints) catchUp(context.Context) {}
func (ownCheckpoints) committed()              {}
func (ownCheckpoints) close(*sql.Conn)         {}

var (
	_ checkpoints = ownCheckpoints{}
	_ checkpoints = (*checkpointer)(nil)
)

// checkpointer copies the WAL of a SQLite database into its file, on a
// connection of its own, each time the export's connection commits.
type checkpointer struct {
	conn    *sql.Conn
	restore []string      // the statements that give the export's connection its settings back
	kick    chan struct{} // a commit since the last checkpoint
	stop    chan struct{}
	done    chan struct{}

	limit  int64        // walLimit in pages
	mu     sync.Mutex   // one checkpoint at a time: run's, or catchUp's
	logged atomic.Int64 // the pages in the log at the last checkpoint that copied them all; 0 since one started it over
}

// startCheckpointer hands the checkpoints of the owner's connection to a
// checkpointer (see above), on SQLite in WAL mode.
func (o *owner) startCheckpointer(ctx context.Context) error {
	if o.d != SQLite {
		return nil
	}
	restore, pageSize, ok, err := o.walSettings(ctx)
	if err != nil || !ok {
		return err
	}
	if st := o.db.Stats(); st.MaxOpenConnections > 0 && st.InUse >= st.MaxOpenConnections {
		return nil // no connection to spare
	}
	cctx, cancel := context.WithTimeout(ctx, checkpointerConnWait)
	conn, err := o.db.Conn(cctx)
	cancel()
	if err != nil {
		return nil // the writer checkpoints, as by default
	}
	c := &checkpointer{conn: conn, restore: restore, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}), limit: walLimit / pageSize}
	for _, s := range []string{`PRAGMA wal_autocheckpoint = 0`, `PRAGMA synchronous = NORMAL`, fmt.Sprintf(`PRAGMA journal_size_limit = %d`, walLimit)} {
		if _, err := o.conn.ExecContext(ctx, s); err != nil {
			c.restoreOn(ctx, o.conn)
			conn.Close()
			return err
		}
	}
	o.ckpt = c
	go c.run()
	return nil
}

// walSettings reads the export's connection's settings, as statements
// that set them again, and the database's page size; ok is false unless
// the journal is WAL and the connection checkpoints by itself.
func (o *owner) walSettings(ctx context.Context) (restore []string, pageSize int64, ok bool, err error) {
	var mode string
	var pages, sync, sizeLimit int64
	for _, q := range []struct {
		pragma string
		into   any
	}{{"journal_mode", &mode}, {"wal_autocheckpoint", &pages}, {"synchronous", &sync}, {"journal_size_limit", &sizeLimit}, {"page_size", &pageSize}} {
		if err := o.conn.QueryRowContext(ctx, "PRAGMA "+q.pragma).Scan(q.into); err != nil {
			return nil, 0, false, err
		}
	}
	if !strings.EqualFold(mode, "wal") || pages <= 0 || pageSize <= 0 {
		return nil, 0, false, nil
	}
	return []string{fmt.Sprintf(`PRAGMA wal_autocheckpoint = %d`, pages), fmt.Sprintf(`PRAGMA synchronous = %d`, sync), fmt.Sprintf(`PRAGMA journal_size_limit = %d`, sizeLimit)}, pageSize, true, nil
}

// run checkpoints after each kick, until stop.
func (c *checkpointer) run() {
	defer close(c.done)
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
			c.checkpoint(context.Background())
		}
	}
}

// checkpoint copies what it can of the log without waiting for anyone
// (PASSIVE): what a reader still needs is left to the next one. An error
// leaves the log to the next checkpoint, or to the connections' own.
func (c *checkpointer) checkpoint(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var busy, logged, copied int64
	if c.conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logged, &copied) == nil && copied == logged {
		c.logged.Store(logged)
	}
}

// catchUp lets the log start over (see walLimit) before the export's
// connection begins a transaction: once the log holds limit pages, all
// copied at the last checkpoint, it waits for the checkpoint under way,
// or makes one, so that the transaction begins with the whole log
// copied. A reader that holds the log back (a long read) leaves the
// checkpoints short of it, and the writer does not wait.
func (c *checkpointer) catchUp(ctx context.Context) {
	if c.logged.Load() < c.limit {
		return
	}
	c.checkpoint(ctx)
	c.logged.Store(0) // the next transaction starts the log over
}

// committed tells the checkpointer that the export's connection committed.
func (c *checkpointer) committed() {
	select {
	case c.kick <- struct{}{}:
	default: // one is due already
	}
}

// close stops the checkpointer, gives the export's connection its
// settings back, and checkpoints once more.
func (c *checkpointer) close(conn *sql.Conn) {
	close(c.stop)
	<-c.done
	ctx, cancel := context.WithTimeout(context.Background(), checkpointWait)
	defer cancel()
	c.restoreOn(ctx, conn)
	c.checkpoint(ctx)
	c.conn.Close()
}

// restoreOn gives conn the settings it had.
func (c *checkpointer) restoreOn(ctx context.Context, conn *sql.Conn) {
	for _, s := range c.restore {
		conn.ExecContext(ctx, s)
	}
}
