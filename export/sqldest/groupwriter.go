package sqldest

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/internal/dbwrite"
)

// groupConn is the connection a group's write runs on: the owner's (on
// SQLite, within its span; on PostgreSQL when the pool lends none) or a
// writer's, lent by the owner. Each says how a group's transaction runs
// there, and how it is tried again when the connection is lost.
type groupConn interface {
	// writeTx runs f, a group's write of rows rows, in a transaction (on
	// the owner's SQLite connection, within the span); again is true in a
	// try on a new connection after a lost one.
	writeTx(ctx context.Context, rows int, f func(tx *sql.Tx, again bool) error) error
	// retry runs op, and again from scratch on a new connection when it
	// fails for a lost one.
	retry(ctx context.Context, op func(again bool) error) error
	// endSpan commits the span, if the connection holds one.
	endSpan() error
	// loseSpan rolls back the span, if the connection holds one, after
	// err, and returns the error every later call fails with; else err.
	loseSpan(err error) error
	// txConn is the connection itself, for the bulk loader and the reads
	// outside a group's transaction.
	txConn() *sql.Conn
}

var (
	_ groupConn = (*owner)(nil)
	_ groupConn = (*writer)(nil)
)

// groupWriter writes the groups of a Database's kinds on one connection:
// their rows, rejects and pages, a transaction (or a part of SQLite's
// span) each. Write makes one per group; what the write gathers on the
// way is its writeState, a value passed down the calls of each try.
type groupWriter struct {
	on     groupConn
	d      Dialect
	source string
	rows   *rowMaker
	loader rowLoader // by statements, or through the bulk loader
	shared *dbShared
}

// write upserts the batch's rows and records the pages they complete, in
// one transaction. In a kind's first load, into tables that were empty
// when the walk started, the rows go in by plain inserts, until a key
// turns up twice: that batch, and the rest, are upserted. When the
// database refuses a row for good (a data error), it writes the batch
// again row by row, each under a savepoint, so that only the rows it
// refuses go to the rejects table.
func (x *groupWriter) write(ctx context.Context, c *dbKind, b *export.Batch) error {
	if c.walk.started.IsZero() {
		c.walk.started = b.Started
	}
	if err := x.loadKnown(ctx, c); err != nil {
		return fmt.Errorf("%s: %w", c.t.name, err)
	}
	w := writeState{fresh: c.fresh, held: c.held}
	if c.full {
		w.seenRun, w.known = c.walk.run, c.known
	}
	n, err := x.writeBatch(ctx, c, b, w)
	w.fresh = false
	if c.fresh && keyTaken(err) {
		c.fresh = false // a key the walk repeats: upsert from now on
		n, err = x.writeBatch(ctx, c, b, w)
	}
	if dbwrite.IsDataError(err) && ctx.Err() == nil {
		w.rowByRow = true
		n, err = x.writeBatch(ctx, c, b, w)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c.t.name, x.on.loseSpan(err))
	}
	c.written += n.written
	c.same += max(len(b.Records)-n.records-n.written, 0)
	c.rejected += n.records + n.fields + len(b.Refused)
	return nil
}

// batchCounts are what a batch's write did: the records rejected, the
// users' custom fields rejected, the records left out as unchanged before
// any statement, and the rows the statements inserted or changed (as the
// database counts them: an upsert that finds a row unchanged leaves it).
type batchCounts struct{ records, fields, same, written int }

// writeBatch is Write's transaction (on SQLite, its part of a span). The
// rejects of the records it wrote are cleared, and the group's rejects
// go in after all its rows: a group that fails within a
// span is written again over what it left, and so leaves no reject behind
// to be kept twice.
func (x *groupWriter) writeBatch(ctx context.Context, c *dbKind, b *export.Batch, as writeState) (n batchCounts, err error) {
	err = x.on.writeTx(ctx, len(b.Records), func(tx *sql.Tx, again bool) error {
		w := as // each try starts over
		w.upsertOnly, w.rejects, w.accepted = again, nil, rejectList{}
		if n, err = x.upsert(ctx, tx, c.t, b.Records, c.walk.run, &w); err != nil {
			return err
		}
		if c.t.name == "users" {
			if n.fields, err = x.upsertCustomFields(ctx, tx, c.fields, b.Records, c.walk.run, &w); err != nil {
				return err
			}
		}
		for _, r := range b.Refused {
			w.rejects = append(w.rejects, x.rows.refused(c.t, r))
		}
		if err := x.clearAccepted(ctx, tx, &w); err != nil {
			return err
		}
		if err := dbwrite.InsertRejects(ctx, tx, x.d, w.rejects); err != nil {
			return err
		}
		wrote := n.written > 0
		_, err = tx.ExecContext(ctx, rebind(x.d, `UPDATE edapp_export_kinds SET walk_pages = CASE WHEN walk_pages > ? THEN walk_pages ELSE ? END,
walk_started = COALESCE(walk_started, ?)`+identitiesChanged(x.source, c.t.name, wrote)+` WHERE source = ? AND kind = ?`), b.Pages, b.Pages, timeArg(x.d, b.Started), x.source, c.t.name)
		if err == nil && x.d == SQLite {
			_, err = tx.ExecContext(ctx, `UPDATE edapp_export_lock SET heartbeat_at = ? WHERE source = ?`, timeArg(x.d, time.Now()), x.source)
		}
		return err
	})
	return n, err
}

// clearAccepted removes from rejects, within the group's tx, the rows of
// the records it wrote, but those it refused again.
func (x *groupWriter) clearAccepted(ctx context.Context, tx *sql.Tx, w *writeState) error {
	refused := map[[2]string]bool{}
	for _, r := range w.rejects {
		refused[[2]string{r.Kind, dbwrite.RecordKey(r.Identity, r.Raw)}] = true
	}
	for table, keys := range w.accepted {
		keys = slices.DeleteFunc(keys, func(k string) bool { return refused[[2]string{table, k}] })
		if err := dbwrite.ClearRejects(ctx, tx, x.d, x.source, table, keys); err != nil {
			return err
		}
	}
	return nil
}
