package sqldest

import (
	"context"
	"errors"
	"strings"

	"github.com/edapp-go/edapp/export/internal/dbwrite"
)

// A BulkLoader copies rows into a table through a driver's own bulk path,
// such as PostgreSQL's COPY, within the transaction under way on the
// connection. The engine stays on database/sql; the program that opened
// the database hands it one with WithBulkLoader.
type BulkLoader interface {
	// CopyRows copies the rows next returns, until it returns a nil row,
	// into the columns of table, through driverConn: the driver's
	// connection, as sql.Conn.Raw hands it over. It returns an error
	// wrapping errors.ErrUnsupported, before it calls next, for a
	// connection it cannot copy through: the rows are then written by
	// statements.
	CopyRows(ctx context.Context, driverConn any, table string, columns []string, next func() ([]any, error)) (int64, error)
}

// WithBulkLoader makes a PostgreSQL export load each group of rows with l
// into a temporary table and merge it into the kind's table with one
// statement, instead of multi-row upserts. SQLite ignores it, and a nil l
// leaves the rows to statements.
func WithBulkLoader(l BulkLoader) DatabaseOption {
	return func(x *Database) {
		x.loader = rowLoader(byStatements{})
		if l != nil {
			x.loader = byCopy{l}
		}
	}
}

// rowLoader is how a group's rows reach their table: by multi-row
// statements (byStatements), or through the BulkLoader WithBulkLoader gave
// a PostgreSQL export (byCopy). OpenDatabase chooses it once.
type rowLoader interface {
	// writeRows writes the rows of chunks into u's table.
	writeRows(ctx context.Context, u *upserter, chunks <-chan rowChunk) error
}

var (
	_ rowLoader = byStatements{}
	_ rowLoader = byCopy{}
)

// byStatements writes a group's rows by multi-row upserts.
type byStatements struct{}

func (byStatements) writeRows(ctx context.Context, u *upserter, chunks <-chan rowChunk) error {
	return u.execChunks(ctx, chunks)
}

// byCopy copies a group's rows through l (see load), but in a replay row
// by row and in a write tried again on a new connection, which take the
// plain upsert path. A group whose connection l refuses is written by
// statements for the rest of its write.
type byCopy struct{ l BulkLoader }

// writeRows looks at the group's first changed row before anything else:
// a group none of whose rows changed, most of a re-run's, creates no
// temporary table and sends no COPY (on a connection new to the export
// those cost several round trips and the server's catalog work a group).
// The rows are handed over by one function (nextRow), so a loader that
// refuses the connection leaves them all, the one looked at included, to
// the statements.
func (b byCopy) writeRows(ctx context.Context, u *upserter, chunks <-chan rowChunk) error {
	if u.w.rowByRow || u.w.upsertOnly {
		return u.execChunks(ctx, chunks)
	}
	var failed error
	next := u.nextRow(chunks, &failed)
	first, err := next()
	if err != nil || first == nil {
		return err // nil: no row changed
	}
	next = unshift(first, next)
	err = u.load(ctx, b.l, next, &failed)
	if errors.Is(err, errNoBulk) {
		u.x.loader = byStatements{} // next holds every row, cleaned
		return u.execRows(ctx, next)
	}
	return err
}

// errNoBulk says the bulk loader cannot copy through the connection.
var errNoBulk = errors.New("export: no bulk path on this connection")

// load copies the rows next hands over into a temporary table shaped as
// u's table, then merges them into it with one INSERT ... ON CONFLICT.
// The merge keeps one row per key, the last copied, as a run of upserts
// would. failed is nextRow's: the error of a chunk that stopped the rows.
func (u *upserter) load(ctx context.Context, l BulkLoader, next func() ([]any, error), failed *error) error {
	tmp := "edapp_load_" + u.t.name
	if u.w.plain() {
		tmp = u.t.name // keys new to the table: copied straight in
	} else if _, err := u.tx.ExecContext(ctx, "CREATE TEMP TABLE IF NOT EXISTS "+tmp+" (LIKE "+u.t.name+") ON COMMIT DELETE ROWS"); err != nil {
		return err
	}
	var copied int64
	err := u.x.on.txConn().Raw(func(dc any) (err error) {
		copied, err = l.CopyRows(ctx, dc, tmp, columnNames(u.t), next)
		return err
	})
	switch {
	case *failed != nil:
		return *failed
	case errors.Is(err, errors.ErrUnsupported):
		return errNoBulk
	case err != nil:
		return loadError(err)
	case tmp == u.t.name: // copied straight in: every row is new
		u.affected += copied
		return nil
	case copied == 0: // nothing to merge
		return nil
	}
	return u.execCounted(ctx, mergeSQL(u.t, tmp))
}

// execRows writes the rows next hands over, already compared and
// cleaned (nextRow), by multi-row upserts.
func (u *upserter) execRows(ctx context.Context, next func() ([]any, error)) error {
	rows := make([][]any, 0, u.per)
	for {
		row, err := next()
		if err != nil {
			return err
		}
		if row != nil {
			rows = append(rows, row)
		}
		if len(rows) == u.per || (row == nil && len(rows) > 0) {
			if err := u.exec(ctx, rows); err != nil { // cleaning again changes nothing
				return err
			}
			rows = rows[:0]
		}
		if row == nil {
			return nil
		}
	}
}

// keyTaken reports whether err is an insert's refusal of a key the table
// holds: SQLSTATE 23505 on PostgreSQL, a primary key or unique constraint
// on SQLite.
func keyTaken(err error) bool {
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		return pg.SQLState() == "23505"
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		const primaryKey, unique = 1555, 2067
		return lite.Code() == primaryKey || lite.Code() == unique
	}
	return false
}

// nextRow hands over the rows of chunks one at a time, cleaned for the
// database, and keeps the records refused on the way for the rejects
// table. A chunk's error ends the rows and is kept in failed.
func (u *upserter) nextRow(chunks <-chan rowChunk, failed *error) func() ([]any, error) {
	var rows [][]any
	return func() ([]any, error) {
		for len(rows) == 0 {
			c, ok := <-chunks
			if !ok {
				return nil, nil
			}
			if c.err != nil {
				*failed = c.err
				return nil, c.err
			}
			u.rejects = append(u.rejects, c.rejects...)
			u.accept(c.rows)
			rows = u.changed(c.rows)
		}
		row := rows[0]
		rows = rows[1:]
		dbwrite.CleanArgs(u.x.d, row, u.isJSON)
		return row, nil
	}
}

// unshift is next with first before its rows.
func unshift(first []any, next func() ([]any, error)) func() ([]any, error) {
	return func() ([]any, error) {
		if first != nil {
			row := first
			first = nil
			return row, nil
		}
		return next()
	}
}

// mergeSQL moves the rows of tmp into t: the last copied of each key
// (its physical order is the order copied), upserted.
func mergeSQL(t *table, tmp string) string {
	cols, keys := strings.Join(columnNames(t), ", "), strings.Join(keyNames(t), ", ")
	return "INSERT INTO " + t.name + " (" + cols + ") SELECT DISTINCT ON (" + keys + ") " + cols + " FROM " + tmp +
		" ORDER BY " + keys + ", ctid DESC" + onConflict(Postgres, t)
}

// refusedByLoader is a row the bulk loader could not send (a value its
// column's type does not take): a data error, so that Write replays the
// group row by row and the statements say which rows.
type refusedByLoader struct{ error }

func (refusedByLoader) SQLState() string { return "22000" }

func (e refusedByLoader) Unwrap() error { return e.error }

// loadError is err, marked a data error when neither the database (a
// SQLSTATE) nor the connection explains it.
func loadError(err error) error {
	var st interface{ SQLState() string }
	if errors.As(err, &st) || connLost(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return refusedByLoader{err}
}
