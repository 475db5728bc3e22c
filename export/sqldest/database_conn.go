package sqldest

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/edapp-go/edapp"
)

// DefaultReconnect is how long a PostgreSQL export tries to regain a lost
// database connection (a restart, a failover) before it gives up.
const DefaultReconnect = time.Minute

// The backoff between reconnection attempts: doubling from the first to
// the last, each wait cut short by the bound and by ctx.
const (
	reconnectFirst = 250 * time.Millisecond
	reconnectMax   = 5 * time.Second
)

// ErrConnectionLost is wrapped by a write's error when the PostgreSQL
// connection was lost and not regained within the WithReconnect bound.
var ErrConnectionLost = errors.New("export: the database connection was lost")

// WithReconnect sets how long a PostgreSQL export tries to regain a lost
// connection before it stops (default DefaultReconnect; 0: stop at once);
// d must not be negative. SQLite has no connection to lose.
func WithReconnect(d time.Duration) DatabaseOption {
	return func(x *Database) {
		if d < 0 {
			x.optErr = cmp.Or(x.optErr, fmt.Errorf("export: %w: WithReconnect(%s): want 0 or more", edapp.ErrInvalidInput, d))
			return
		}
		x.reconnect = d
	}
}

// connLost reports whether err says the connection to the server is gone
// (rather than the statement refused), by the errors' types, never their
// text: database/sql's and the driver's bad connection, a network error
// or a socket's reset, broken pipe or refusal, an unexpected end of
// stream, a PostgreSQL SQLSTATE of class 08 (connection exception) or
// 57P01-57P03 (the server shut down, crashed, or cannot take connections
// yet), or pgconn's error for a connection it has closed (which says it
// is safe to retry: nothing reached the server). The driver's types are
// read through the methods they have, so that this package links no
// driver.
func connLost(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ne net.Error
	for _, lost := range []error{driver.ErrBadConn, sql.ErrConnDone, io.ErrUnexpectedEOF, syscall.ECONNRESET, syscall.EPIPE, syscall.ECONNREFUSED} {
		if errors.Is(err, lost) {
			return true
		}
	}
	if errors.As(err, &ne) {
		return true
	}
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		code := st.SQLState()
		return strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03"
	}
	var closed interface{ SafeToRetry() bool }
	return errors.As(err, &closed) && closed.SafeToRetry()
}

// retry runs op; on PostgreSQL, when it fails for a lost connection, it
// replaces the owner's connection (re-taking the export's lock) and runs
// op again from scratch, until the WithReconnect bound. Running a write
// again is safe even when the lost commit reached the server: every row
// is an upsert, and a walk's page count only grows.
// Once it gave up, every later write fails with the same error: the
// export no longer holds the database.
func (o *owner) retry(ctx context.Context, op func(again bool) error) error {
	return o.retryOn(ctx, op, func() { lost(o.conn) }, o.relock)
}

// retryOn runs op; on PostgreSQL, when it fails for a lost connection,
// it drops that connection and takes another (reattach: the owner's, with
// the lock taken again, or a writer's), with capped exponential backoff,
// and runs op again, until the WithReconnect bound; past it, or when
// reattach finds the lock taken, every later call fails (giveUp).
func (o *owner) retryOn(ctx context.Context, op func(again bool) error, drop func(), reattach func(context.Context) error) error {
	if err := o.givenUp(); err != nil {
		return err
	}
	err := op(false)
	if o.d != Postgres || !connLost(err) || ctx.Err() != nil {
		return err
	}
	deadline := time.Now().Add(o.reconnect)
	for connLost(err) && ctx.Err() == nil {
		drop()
		if rerr := regain(ctx, deadline, o.reconnect, err, reattach); rerr != nil {
			o.giveUp(rerr)
			return rerr
		}
		err = op(true)
	}
	return err
}

// regain runs reattach, with capped exponential backoff, until it takes a
// new connection or deadline passes (bound is the WithReconnect bound it
// names). Another export that took the lock meanwhile stops at once.
func regain(ctx context.Context, deadline time.Time, bound time.Duration, lostErr error, reattach func(context.Context) error) error {
	wait := reconnectFirst
	for {
		attempt, cancel := context.WithDeadline(ctx, deadline) // a dial to a host that drops packets ends too
		err := reattach(attempt)
		cancel()
		if err == nil || errors.Is(err, ErrLocked) || errors.Is(err, ErrSessionLock) || errors.Is(err, ErrConnectionLost) {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			return fmt.Errorf("%w (%v) and not regained within %s; run it again to resume: %w", ErrConnectionLost, lostErr, bound, err)
		}
		t := time.NewTimer(min(wait, left))
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
		wait = min(2*wait, reconnectMax)
	}
}

// relock takes a new connection for the owner and the export's advisory
// lock on it.
func (o *owner) relock(ctx context.Context) error {
	conn, err := o.db.Conn(ctx)
	if err != nil {
		return err
	}
	ok, err := o.fence.Take(ctx, conn)
	if err != nil {
		lost(conn)
		return err
	}
	o.conn = conn
	if !ok {
		return fmt.Errorf("%w: it took the database while this export's connection was lost; run it again to resume", ErrLocked)
	}
	if err := o.fence.Held(ctx, conn); err != nil {
		return err
	}
	return o.fence.Drain(ctx, conn)
}
