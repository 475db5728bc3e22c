package sqldest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// The fence keeps a PostgreSQL database to one export of a source at a
// time, while that export writes on several connections. Its protocol,
// written down here only:
//
//  1. Take: the owner takes the source's session lock (lockKey) on its
//     own connection, with pg_try_advisory_lock; another export holding
//     it is ErrLocked.
//  2. Held: with a statement of its own, the owner checks that the
//     session its next statement reaches holds the lock (a pooler in
//     transaction mode hands each statement to any session:
//     ErrSessionLock), and notes that session's server process.
//  3. Drain: the owner takes the writers' key (writersKey) exclusively
//     and lets it go at once, waiting until no transaction holds it
//     shared: the writes of an export whose lock it has just taken, or
//     its own from before its connection was lost.
//  4. Enter: each writer's transaction, on a pooled connection that holds
//     no lock of its own, first takes the writers' key shared (until it
//     ends), then checks in pg_locks that the process noted in step 2
//     still holds the session lock; else errOwnerLost.
//
// Between a writer's check and its commit the owner's session could end
// and another export take the lock; that export's Drain then waits for
// the writer's transaction. So a writer's transaction either commits
// before the other export writes anything, or fails its check. A lost
// owner connection repeats steps 1 to 3 on a new one (relock); a lost
// writer's connection is replaced once Held passes on the owner's.
//
// SQLite has one writer at a time, whatever the connection: there the
// export's lock is its row in edapp_export_lock, and no fence.
type fence struct {
	lockKey    int64         // the owner's session lock
	writersKey int64         // held shared by each writer's transaction
	drainWait  time.Duration // how long Drain waits for the writers
	ownerPID   atomic.Int64  // the server process of the session holding lockKey (step 2)
}

// lockKey is the PostgreSQL advisory lock an export of a source holds:
// "edapp-ex" for EdApp's, the next key for SafetyCulture's.
var lockKey = map[string]int64{SourceEdApp: 0x65646170702d6578, SourceSafetyCulture: 0x65646170702d6579}

// writersKey is the advisory lock each writer's transaction holds shared,
// per source (lockKey's).
var writersKey = map[string]int64{SourceEdApp: 0x65646170702d7778, SourceSafetyCulture: 0x65646170702d7779}

// errOwnerLost is a writer's transaction's error when the session that
// held the export's lock no longer does.
var errOwnerLost = errors.New("export: the connection holding the export's lock was lost")

// lockHeldBy, completed by a process id and ")", is true when that
// process's session holds the advisory lock $1 (a bigint key shows in
// pg_locks as classid, the high half, and objid, the low half).
const lockHeldBy = `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = $1 AND pid = `

// newFence is the fence of a source's exports; Drain waits up to
// lockWait, and at least a second, so that WithLockWait(0) still lets a
// commit under way land.
func newFence(source string, lockWait time.Duration) *fence {
	return &fence{lockKey: lockKey[source], writersKey: writersKey[source], drainWait: max(lockWait, time.Second)}
}

// Take tries the session lock on conn (step 1): false when another
// session holds it.
func (f *fence) Take(ctx context.Context, conn *sql.Conn) (bool, error) {
	var ok bool
	err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, f.lockKey).Scan(&ok)
	return ok, err
}

// Held checks that the session conn's next statement reaches holds the
// lock, and notes its process for Enter (step 2). A lock that session
// does not hold is let go wherever it landed: ErrSessionLock.
func (f *fence) Held(ctx context.Context, conn *sql.Conn) error {
	var pid int64
	var held bool
	err := conn.QueryRowContext(ctx, `SELECT pg_backend_pid(), (`+lockHeldBy+`pg_backend_pid()))`, f.lockKey).Scan(&pid, &held)
	if err != nil {
		return err
	}
	if !held {
		f.Release(ctx, conn) // the pool's session ends it otherwise
		return ErrSessionLock
	}
	f.ownerPID.Store(pid)
	return nil
}

// Drain waits, on the owner's conn, until no writer's transaction holds
// the writers' key (step 3); ErrLocked when some still do after the wait.
func (f *fence) Drain(ctx context.Context, conn *sql.Conn) error {
	drain, cancel := context.WithTimeout(ctx, f.drainWait)
	defer cancel()
	if _, err := conn.ExecContext(drain, `SELECT pg_advisory_lock($1)`, f.writersKey); err != nil {
		if drain.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("%w: its writes still run after %s", ErrLocked, f.drainWait)
		}
		return err
	}
	_, err := conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, f.writersKey)
	return err
}

// Enter takes the writers' key shared for tx, then checks that the
// session holding the export's lock is still the owner's (step 4):
// errOwnerLost if not.
func (f *fence) Enter(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock_shared($1)`, f.writersKey); err != nil {
		return err
	}
	var held bool
	if err := tx.QueryRowContext(ctx, lockHeldBy+`$2)`, f.lockKey, f.ownerPID.Load()).Scan(&held); err != nil {
		return err
	}
	if !held {
		return errOwnerLost
	}
	return nil
}

// Release lets the session lock go, on conn.
func (f *fence) Release(ctx context.Context, conn *sql.Conn) {
	conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, f.lockKey)
}
