package sqldest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// On SQLite the groups' writes share a transaction, a span, which commits
// once it holds spanRows rows or is spanAge old, and before any other call
// uses the connection. A commit writes each page the span changed to the
// log, whole; a table's primary-key index takes its rows in no order, so
// that a commit of a few thousand rows rewrites most of that index's
// pages: with a commit per group, a first run wrote several times the
// database's size, and most of its writer's time went to its commits. The cursors of a span's pages commit with their rows, so a
// crash loses at most the span, which the next run fetches again; a span
// commits at spanAge also when no group comes.
//
// A group is not a savepoint of the span: SQLite keeps a savepoint's
// journal in memory here (temp_store), and a load of groups under
// savepoints took several times as long. A group whose write fails with an
// error that write tries again (a key a fresh table already holds, a row
// the database refuses) is written again over what it left: its upserts
// write the same rows, and its rejects go in last (see writeBatch). Any
// other error rolls the span back and stops the export.
const (
	spanRows = 100_000
	spanAge  = time.Second
)

// errSpanLost wraps the error that rolled a span back: the groups it held
// are not in the database, and the export stops.
var errSpanLost = errors.New("the rows written since the last commit were rolled back")

// span is the transaction the groups' writes share on SQLite.
type span struct {
	tx    *sql.Tx
	rows  int
	began time.Time
	timer *time.Timer
}

// spans reports whether x's groups share spans: SQLite's, on its own
// connection.
func (x *Database) spans() bool { return x.d == SQLite && x.owner == nil && x.spanAge > 0 }

// writeTx runs f, a group's write of rows rows, in a transaction of its
// own, or within the span on SQLite.
func (x *Database) writeTx(ctx context.Context, rows int, f func(tx *sql.Tx, again bool) error) error {
	if !x.spans() {
		return x.retry(ctx, func(again bool) error {
			return x.tx1(ctx, func(tx *sql.Tx) error { return f(tx, again) })
		})
	}
	if err := x.givenUp(); err != nil {
		return err
	}
	if x.span == nil {
		if err := x.beginSpan(ctx); err != nil {
			return err
		}
	}
	if err := f(x.span.tx, false); err != nil {
		return err // write tries again, or loses the span
	}
	x.span.rows += rows
	if x.span.rows >= spanRows || time.Since(x.span.began) >= x.spanAge {
		return x.endSpan()
	}
	return nil
}

// beginSpan opens a span, and the timer that commits it at spanAge. The
// span outlives the write that opens it: the end of that write's ctx
// must not roll it back (database/sql does, for a transaction's ctx).
func (x *Database) beginSpan(ctx context.Context) error {
	tx, err := x.begin(context.WithoutCancel(ctx))
	if err != nil {
		return err
	}
	s := &span{tx: tx, began: time.Now()}
	s.timer = time.AfterFunc(x.spanAge, func() {
		x.shared.mu.Lock()
		defer x.shared.mu.Unlock()
		if x.span == s {
			x.endSpan() // a failure stops the export's next call
		}
	})
	x.span = s
	return nil
}

// endSpan commits the span, if one is open; a commit that fails loses it.
func (x *Database) endSpan() error {
	s := x.detachSpan()
	if s == nil {
		return nil
	}
	if err := s.tx.Commit(); err != nil {
		return x.spanLost(err)
	}
	x.ckpt.committed()
	return nil
}

// loseSpan rolls back the span, if one is open, after err (see spanLost).
// Without a span it returns err.
func (x *Database) loseSpan(err error) error {
	s := x.detachSpan()
	if s == nil {
		return err
	}
	s.tx.Rollback()
	return x.spanLost(err)
}

// detachSpan takes the open span, if any, off x and stops its timer.
func (x *Database) detachSpan() *span {
	s := x.span
	if s != nil {
		x.span = nil
		s.timer.Stop()
	}
	return s
}

// spanLost makes every later call of the export fail with the error it
// returns, which wraps err: the groups of the span that err ended were
// reported written.
func (x *Database) spanLost(err error) error {
	x.giveUp(fmt.Errorf("%w: %w", errSpanLost, err))
	return x.givenUp()
}

// hold takes the Database's own connection for a call other than a
// group's write, once the span, if any, has committed; release gives it
// back.
func (x *Database) hold() (release func(), err error) {
	x.shared.mu.Lock()
	if err := x.endSpan(); err != nil {
		x.shared.mu.Unlock()
		return nil, err
	}
	return x.shared.mu.Unlock, nil
}

// held runs f on the Database's own connection (hold), once the calls
// waiting for the destination have had their turn (End's yield).
func (x *Database) held(yield func(), f func() error) error {
	yield()
	release, err := x.hold()
	if err != nil {
		return err
	}
	defer release()
	return f()
}
