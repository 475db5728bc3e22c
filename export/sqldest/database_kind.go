package sqldest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/dbschema"
)

// Resume continues a walk an interrupted run left, or starts an
// incremental kind from its cursor minus Overlap, and earlier when an
// open record younger than the open window is older than that.
func (x *Database) Resume(ctx context.Context, k *export.Kind, r export.RunInfo) (export.Plan, error) {
	release, err := x.own.hold()
	if err != nil {
		return export.Plan{}, err
	}
	defer release()
	t, err := x.rows.table(k)
	if err != nil {
		return export.Plan{}, err
	}
	c := &dbKind{t: t}
	if k.Name == "users" {
		c.fields = x.rows.customFieldsTable()
	}
	x.kinds.set(k.Name, c)
	var p export.Plan
	err = x.own.retry(ctx, func(bool) (err error) {
		p, err = x.resumePlan(ctx, k, r, c)
		return err
	})
	return p, err
}

// resumePlan is Resume's reading of where the kind's fetch stands.
func (x *Database) resumePlan(ctx context.Context, k *export.Kind, r export.RunInfo, c *dbKind) (export.Plan, error) {
	var err error
	c.now = r.Now.Truncate(time.Microsecond) // as the database keeps it
	if c.start, err = x.startOf(ctx, k.Name); err != nil {
		return export.Plan{}, err
	}
	c.walk = c.start.walk
	if c.held, err = x.heldRejects(ctx, k.Name); err != nil {
		return export.Plan{}, err
	}
	if r.Fresh {
		if _, err := x.own.conn.ExecContext(ctx, rebind(x.d, `DELETE FROM edapp_export_kinds WHERE source = ? AND kind = ?`), x.source, k.Name); err != nil {
			return export.Plan{}, err
		}
		c.walk = walkState{}
	}
	if c.walk.run != 0 {
		return export.Plan{From: c.walk.from, Page: c.walk.pages + 1, Fetched: c.walk.completed, Resumed: true}, nil
	}
	p := export.Plan{From: r.Since, Page: 1, Fetched: c.walk.completed}
	if !c.walk.cursor.IsZero() {
		p.From = c.walk.cursor.Add(-overlapOf(k))
	}
	if k.OpenField != "" && r.OpenWindow > 0 && !p.From.IsZero() {
		open, err := x.oldestOpen(ctx, k, r.Now.Add(-r.OpenWindow))
		if err != nil {
			return export.Plan{}, err
		}
		if !open.IsZero() && open.Before(p.From) {
			p.From = open
		}
	}
	return p, nil
}

// oldestOpen is the date of the oldest open record dated after since.
func (x *Database) oldestOpen(ctx context.Context, k *export.Kind, since time.Time) (time.Time, error) {
	date, open := snake(k.DateField), snake(k.OpenField)
	var v any
	q := rebind(x.d, `SELECT MIN(`+date+`) FROM `+k.Name+` WHERE source = ? AND `+open+` IS NULL AND `+date+` >= ?`)
	if err := x.own.conn.QueryRowContext(ctx, q, x.source, timeArg(x.d, since)).Scan(&v); err != nil {
		return time.Time{}, err
	}
	return scanTime(v), nil
}

// Begin continues the walk Resume found when the fetch starts where it
// said, and records a new walk otherwise.
func (x *Database) Begin(ctx context.Context, k *export.Kind, p export.Plan) error {
	release, err := x.own.hold()
	if err != nil {
		return err
	}
	defer release()
	c := x.kinds.get(k.Name)
	if c.walk.run != 0 && p.From.Equal(c.walk.from) && p.Page == c.walk.pages+1 {
		c.full = fullWalk(k, c.walk)
		x.prefetchKnown(ctx, k, c)
		return nil // the walk goes on, with its run and start
	}
	firstLoad := c.walk.completed.IsZero()
	c.walk = walkState{cursor: c.walk.cursor, from: p.From, run: x.rows.run, pages: max(p.Page-1, 0), time: c.now}
	c.full = fullWalk(k, c.walk)
	if firstLoad || c.start.forget {
		err = x.beginWalk(ctx, k, p, firstLoad)
	} else {
		// A re-run's, one statement (see startOf). The tables hold what
		// the last complete fetch wrote, so the writes upsert (c.fresh
		// false), into a table emptied by hand since as well.
		err = x.own.exec(ctx, rebind(x.d, recordWalk), x.source, k.Name, c.walk.run, timeArg(x.d, p.From), c.walk.pages, timeArg(x.d, c.walk.time))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", k.Name, err)
	}
	x.prefetchKnown(ctx, k, c)
	return nil
}

// recordWalk records a kind's new walk.
// Its walk_time is the time of the versions its writes open and close in
// the history tables, whose counts start over.
const recordWalk = `INSERT INTO edapp_export_kinds (source, kind, walk_run, walk_from, walk_started, walk_pages, walk_time, versions_opened, versions_closed)
VALUES (?, ?, ?, ?, NULL, ?, ?, 0, 0)
ON CONFLICT (source, kind) DO UPDATE SET walk_run = excluded.walk_run, walk_from = excluded.walk_from, walk_started = NULL, walk_pages = excluded.walk_pages,
walk_time = excluded.walk_time, versions_opened = 0, versions_closed = 0`

// beginWalk records a kind's new walk in one transaction with what its
// start changes: a first load's dropped indexes (indexes.dropIfEmpty, which
// asks under the index lock whether the tables hold rows), or an older
// walk's seen keys forgotten.
func (x *Database) beginWalk(ctx context.Context, k *export.Kind, p export.Plan, firstLoad bool) error {
	c := x.kinds.get(k.Name)
	return x.own.tx(ctx, func(tx *sql.Tx) error {
		if firstLoad && p.Page == 1 {
			fresh, err := indexes{x.d}.dropIfEmpty(ctx, tx, k.Name)
			if err != nil {
				return err
			}
			c.fresh = fresh
		}
		if err := (mirror{x.rows}).forgetSeen(ctx, tx, k.Name, c.walk.run); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, rebind(x.d, recordWalk), x.source, k.Name, c.walk.run, timeArg(x.d, p.From), c.walk.pages, timeArg(x.d, c.walk.time))
		return err
	})
}

// End records a complete kind: a mirror, or a Remirror kind's full walk,
// drops the rows this walk did not see, an incremental kind's cursor
// moves to the walk's start. A Remirror kind's completed_at is its last
// full walk's. An incomplete kind changes nothing: its walk resumes next
// time. Then it builds the indexes a first load left out (buildIndexes).
func (x *Database) End(ctx context.Context, k *export.Kind, r *export.KindResult, yield func()) error {
	note, err := x.endKind(ctx, k, r)
	if err == nil && note != "" {
		err = x.buildIndexes(ctx, k.Name, yield)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", k.Name, err)
	}
	if note != "" {
		r.Notes = append(r.Notes, note)
	}
	return nil
}

// endKind is End but for the indexes, on the owner's connection;
// note is the kind's line in the summary, empty when the kind did not
// complete.
func (x *Database) endKind(ctx context.Context, k *export.Kind, r *export.KindResult) (note string, err error) {
	release, err := x.own.hold()
	if err != nil {
		return "", err
	}
	defer release()
	c, resumed := x.kinds.lookup(k.Name)
	defer x.kinds.drop(k.Name)
	if !resumed {
		return "", nil // Resume failed
	}
	c.awaitKnown()
	r.Rejected += c.rejected
	if r.Err != nil {
		return "", nil
	}
	full, cursor, completed := walkEnd(k, c.walk, r.Started)
	var deleted int64
	var hist historyCounts
	err = x.own.tx(ctx, func(tx *sql.Tx) (err error) {
		if deleted, err = x.endWalk(ctx, tx, k.Name, c.walk.run, full, cursor, completed, nothingGone(c)); err != nil {
			return err
		}
		hist, err = versions{x.d, x.source, x.historyKeep}.end(ctx, tx, k.Name, c.walk)
		return err
	})
	if err != nil {
		return "", err
	}
	r.VersionsOpened, r.VersionsClosed = hist.opened, hist.closed
	return c.note(deleted) + hist.note() + "  table " + k.Name, nil
}

// walkEnd is what the end of a walk of k records: whether it was full,
// the kind's cursor and its completion time (zero to keep the last full
// walk's). An incremental kind's cursor moves to the start of the walk,
// or of the run when the walk began in it.
func walkEnd(k *export.Kind, w walkState, runStarted time.Time) (full bool, cursor, completed time.Time) {
	started := w.started
	if started.IsZero() {
		started = runStarted
	}
	full = fullWalk(k, w)
	completed = time.Now()
	if k.Remirror && !full {
		completed = time.Time{} // completed_at stays the last full walk's
	}
	cursor = w.cursor
	if k.Incremental && started.After(cursor) {
		cursor = started
	}
	return full, cursor, completed
}

// endWalk records a kind's walk complete within tx: after a full walk it
// deletes the rows of the kind's tables that run did not see (looking for
// none in a table where nothingGone says the walk met every row), then it
// sets the cursor and, unless zero, completed_at. It returns the rows
// deleted from the kind's own table.
func (x *Database) endWalk(ctx context.Context, tx *sql.Tx, kind string, run int64, full bool, cursor, completed time.Time, nothingGone func(table string) bool) (int64, error) {
	var deleted int64
	if full {
		for i, table := range loadTables(kind) {
			n, err := (mirror{x.rows}).deleteUnseen(ctx, tx, table, run, nothingGone(table))
			if err != nil {
				return 0, err
			}
			if i == 0 {
				deleted = n // the kind's own table
			}
		}
	}
	_, err := tx.ExecContext(ctx, rebind(x.d, `UPDATE edapp_export_kinds SET cursor = ?, walk_run = NULL, walk_from = NULL, walk_started = NULL,
walk_pages = NULL, completed_at = COALESCE(?, completed_at)`+identitiesChanged(x.source, kind, deleted > 0)+` WHERE source = ? AND kind = ?`), timeArg(x.d, cursor), timeArg(x.d, completed), x.source, kind)
	return deleted, err
}

// fullWalk reports whether w fetches all of k's records: a mirrored kind,
// or a Remirror kind walked from the start. Its end deletes the rows it
// did not see.
func fullWalk(k *export.Kind, w walkState) bool {
	return !k.Incremental || (k.Remirror && w.from.IsZero())
}

// note is the summary's line for the kind.
func (c *dbKind) note(deleted int64) string {
	note := fmt.Sprintf("%d rows written", c.written)
	if c.same > 0 {
		note += fmt.Sprintf(", %d unchanged", c.same)
	}
	if deleted > 0 {
		note += fmt.Sprintf(", %d deleted", deleted)
	}
	if c.rejected > 0 {
		note += fmt.Sprintf(", %d rejected (see the rejects table)", c.rejected)
	}
	return note
}

// loadTables are the tables a kind's rows go to: its own, and the users'
// custom fields with the users.
func loadTables(kind string) []string {
	if kind == "users" {
		return []string{kind, "user_custom_fields"}
	}
	return []string{kind}
}

// indexes are the secondary indexes of a kind's tables, which a first
// load drops and its end builds again.
type indexes struct{ d Dialect }

// dropIfEmpty, for a kind's first load, reports whether all of its
// tables hold no row (of any source), and drops in tx the secondary
// indexes of those that hold none: a first load writes faster without
// them, and buildIndexes builds them once the kind's fetch is complete. A
// run killed before then leaves the rows it committed, without indexes;
// the next complete fetch builds them. After a complete fetch the indexes
// stay: a table that a kind left empty, as many accounts leave some, would
// otherwise lose and rebuild them at every run.
func (ix indexes) dropIfEmpty(ctx context.Context, tx *sql.Tx, kind string) (empty bool, err error) {
	if err := ix.lock(ctx, tx); err != nil {
		return false, err
	}
	empty = true
	for _, name := range loadTables(kind) {
		t, ok := dbschema.Lookup(name)
		if !ok {
			continue
		}
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM `+name+` LIMIT 1`).Scan(&one)
		if !errors.Is(err, sql.ErrNoRows) {
			if err != nil {
				return false, err
			}
			empty = false // rows to keep indexed
			continue
		}
		for _, s := range t.DropForLoad(ix.d) {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return false, err
			}
		}
	}
	return empty, nil
}

// buildIndexes builds the secondary indexes of a kind's tables that are
// missing, after its fetch committed complete: each in a short step of its
// own, outside a group's transaction (on SQLite, the inbox sharing the
// file writes in between), and each all or nothing, so that a run killed
// meanwhile leaves the rest to the next. Before each step the other kinds'
// calls waiting for the destination go first (yield, then held): on SQLite a table's
// indexes take a second or more of its one writer, and the fetches of the
// kinds still under way would wait for their writes all that time.
func (x *Database) buildIndexes(ctx context.Context, kind string, yield func()) error {
	for _, name := range loadTables(kind) {
		t, ok := dbschema.Lookup(name)
		if !ok {
			continue
		}
		var missing []string
		err := x.own.held(yield, func() error {
			return x.own.retry(ctx, func(bool) (err error) {
				missing, err = t.MissingIndexes(ctx, x.own.conn, x.d)
				return err
			})
		})
		if err != nil {
			return err
		}
		for _, s := range missing {
			if err := x.own.held(yield, func() error { return x.buildIndex(ctx, s) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// indexesLockKey is the PostgreSQL advisory lock that the steps dropping
// and building a table's indexes take, for their transaction: the two
// sources' exports share tables, and two such steps at once would
// deadlock (each reads the table, then waits for the other's read to end
// to drop an index) or race to create one index (IF NOT EXISTS is not
// atomic there). "edapp-ix".
const indexesLockKey = 0x65646170702d6978

// lock takes indexesLockKey for tx, on PostgreSQL; SQLite's
// transactions, begun IMMEDIATE, are one at a time already.
func (ix indexes) lock(ctx context.Context, tx *sql.Tx) error {
	if ix.d != dbschema.Postgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(indexesLockKey))
	return err
}

// rejectKeys are record keys of the rejects table, by table (kind).
type rejectKeys map[string]map[string]bool

// rejectList is record keys of the rejects table, by table (kind).
type rejectList map[string][]string

// heldRejects is the record keys of the rejects of kind's tables that
// have an identity, by table: the records that a write accepting them
// clears (see clearAccepted). Mostly none, and then nothing is looked
// up as rows are written.
func (x *Database) heldRejects(ctx context.Context, kind string) (rejectKeys, error) {
	tables := loadTables(kind)
	q := `SELECT kind, record_key FROM rejects WHERE source = ? AND kind IN (?` + strings.Repeat(", ?", len(tables)-1) + `) AND identity IS NOT NULL`
	args := []any{x.source}
	for _, t := range tables {
		args = append(args, t)
	}
	rows, err := x.own.conn.QueryContext(ctx, rebind(x.d, q), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	held := rejectKeys{}
	for rows.Next() {
		var table, key string
		if err := rows.Scan(&table, &key); err != nil {
			return nil, err
		}
		if held[table] == nil {
			held[table] = map[string]bool{}
		}
		held[table][key] = true
	}
	return held, rows.Err()
}
