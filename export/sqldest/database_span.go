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

// span is the transaction the groups' writes share on SQLite, while open.
type span struct {
	open  bool
	tx    *sql.Tx
	rows  int
	began time.Time
	timer *time.Timer
	n     uint64 // the spans the owner has opened, this one included: its timer commits it, never a later one
}

// spans reports whether the groups written on the owner's connection
// share spans: SQLite's.
func (o *owner) spans() bool { return o.d == SQLite && o.spanAge > 0 }

// writeTx runs f, a group's write of rows rows, on the owner's
// connection: in a transaction of its own, or within the span on SQLite.
func (o *owner) writeTx(ctx context.Context, rows int, f func(tx *sql.Tx, again bool) error) error {
	if !o.spans() {
		return o.retry(ctx, func(again bool) error {
			return o.tx1(ctx, func(tx *sql.Tx) error { return f(tx, again) })
		})
	}
	if err := o.givenUp(); err != nil {
		return err
	}
	if !o.span.open {
		if err := o.beginSpan(ctx); err != nil {
			return err
		}
	}
	if err := f(o.span.tx, false); err != nil {
		return err // write tries again, or loses the span
	}
	o.span.rows += rows
	if o.span.rows >= spanRows || time.Since(o.span.began) >= o.spanAge {
		return o.endSpan()
	}
	return nil
}

// beginSpan opens a span, and the timer that commits it at spanAge. The
// span outlives the write that opens it: the end of that write's ctx
// must not roll it back (database/sql does, for a transaction's ctx).
func (o *owner) beginSpan(ctx context.Context) error {
	tx, err := o.begin(context.WithoutCancel(ctx))
	if err != nil {
		return err
	}
	n := o.span.n + 1
	timer := time.AfterFunc(o.spanAge, func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		if o.span.open && o.span.n == n {
			o.endSpan() // a failure stops the export's next call
		}
	})
	o.span = span{open: true, tx: tx, began: time.Now(), timer: timer, n: n}
	return nil
}

// endSpan commits the span, if one is open; a commit that fails loses it.
func (o *owner) endSpan() error {
	s, ok := o.detachSpan()
	if !ok {
		return nil
	}
	if err := s.tx.Commit(); err != nil {
		return o.spanLost(err)
	}
	o.ckpt.committed()
	return nil
}

// loseSpan rolls back the span, if one is open, after err (see spanLost).
// Without a span it returns err.
func (o *owner) loseSpan(err error) error {
	s, ok := o.detachSpan()
	if !ok {
		return err
	}
	s.tx.Rollback()
	return o.spanLost(err)
}

// detachSpan takes the open span off the owner and stops its timer; ok
// is false when none is open.
func (o *owner) detachSpan() (s span, ok bool) {
	s = o.span
	if !s.open {
		return s, false
	}
	o.span = span{n: s.n} // closed, and still counting
	s.timer.Stop()
	return s, true
}

// spanLost makes every later call of the export fail with the error it
// returns, which wraps err: the groups of the span that err ended were
// reported written.
func (o *owner) spanLost(err error) error {
	o.giveUp(fmt.Errorf("%w: %w", errSpanLost, err))
	return o.givenUp()
}

// hold takes the owner's connection for a call other than a
// group's write, once the span, if any, has committed; release gives it
// back.
func (o *owner) hold() (release func(), err error) {
	o.mu.Lock()
	if err := o.endSpan(); err != nil {
		o.mu.Unlock()
		return nil, err
	}
	return o.mu.Unlock, nil
}

// held runs f on the owner's connection (hold), once the calls
// waiting for the destination have had their turn (End's yield).
func (o *owner) held(yield func(), f func() error) error {
	yield()
	release, err := o.hold()
	if err != nil {
		return err
	}
	defer release()
	return f()
}
