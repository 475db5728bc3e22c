package sqldest

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/dbschema"
)

// The database keeps every version of a mirrored table's rows in its
// history table (T_history; see dbschema's migration 20). Triggers on T
// write the versions as rows change, in the statement's transaction; the
// Database adds what no trigger sees: the time of the walk
// (edapp_export_kinds.walk_time, recorded with the walk, so a resumed walk
// keeps it), the versions of the rows a complete walk no longer returns,
// closed from the keys it deletes (closeGone), the seeding of an empty
// history (seedHistory), the counts of each walk, and the retention
// (WithHistoryKeep).

// WithHistoryKeep makes the end of each kind's walk delete the closed
// versions of its history tables whose valid_to is older than the walk's
// time less keep: it forgets the past they held. A key's latest version
// always stays, so a row gone from the service stays findable. 0 (the
// default) keeps every version; keep must not be negative.
func WithHistoryKeep(keep time.Duration) DatabaseOption {
	return func(x *Database) {
		if keep < 0 {
			x.optErr = cmp.Or(x.optErr, fmt.Errorf("export: %w: WithHistoryKeep(%s): want 0 or more", edapp.ErrInvalidInput, keep))
			return
		}
		x.historyKeep = keep
	}
}

// hasHistory reports whether table keeps its versions in table_history.
func hasHistory(table string) bool {
	_, ok := dbschema.Lookup(table + "_history")
	return ok
}

// seedHistory gives the rows of the source's tables an open version in
// their history, where it holds none of the source's (see
// dbschema.SeedHistory), in a transaction of its own.
func seedHistory(ctx context.Context, x *Database) error {
	return x.own.tx(ctx, func(tx *sql.Tx) error {
		_, err := dbschema.SeedHistory(ctx, tx, x.d, x.source)
		return err
	})
}

// versions is what the end of a walk does to its history: a source's,
// keeping versions for keep (0: for ever).
type versions struct {
	d      Dialect
	source string
	keep   time.Duration
}

// closeGone closes, at the walk's time, the open versions of the rows of
// t with the given keys, which the complete walk of kind no longer
// returned and which it is about to delete (the walk's end counts them).
func (m mirror) closeGone(ctx context.Context, tx *sql.Tx, t *table, kind string, keys [][]string) error {
	if len(keys) == 0 || !hasHistory(t.name) {
		return nil
	}
	walk := `(SELECT walk_time FROM edapp_export_kinds WHERE source = ? AND kind = ?)`
	return inKeys(t, keys, func(in string, args []any) error {
		q := `UPDATE ` + t.name + `_history SET valid_to = ` + walk + ` WHERE valid_to IS NULL AND (` + strings.Join(keyNames(t), ", ") + `) IN ` + in
		_, err := tx.ExecContext(ctx, rebind(m.rows.d, q), append([]any{m.rows.source, kind}, args...)...)
		return err
	})
}

// closeUnseen is closeGone for a table whose unseen rows are deleted by
// their edapp_run: the keys are those the deletion is about to take.
func (m mirror) closeUnseen(ctx context.Context, tx *sql.Tx, name, kind string, run int64) error {
	h, ok := dbschema.Lookup(name + "_history")
	if !ok {
		return nil
	}
	key := strings.Join(h.Key[:len(h.Key)-1], ", ") // but valid_from
	q := `UPDATE ` + h.Name + ` SET valid_to = (SELECT walk_time FROM edapp_export_kinds WHERE source = ? AND kind = ?) WHERE valid_to IS NULL AND (` + key + `) IN (SELECT ` + key + ` FROM ` + name + ` WHERE source = ? AND (edapp_run IS NULL OR edapp_run <> ?))`
	_, err := tx.ExecContext(ctx, rebind(m.rows.d, q), m.rows.source, kind, m.rows.source, run)
	return err
}

// inKeys calls f for the keys of t, in groups of at most as many as a
// statement takes, with the IN list's SQL and its arguments.
func inKeys(t *table, keys [][]string, f func(in string, args []any) error) error {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(t.key)), ", ") + ")"
	per := max(1, (sqliteParams-2)/len(t.key))
	for len(keys) > 0 {
		n := min(per, len(keys))
		args := make([]any, 0, n*len(t.key))
		for _, k := range keys[:n] {
			for _, v := range k {
				args = append(args, v)
			}
		}
		if err := f(`(VALUES `+strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")+`)`, args); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// historyCounts are the versions a walk opened and closed.
type historyCounts struct{ opened, closed int }

// end ends the kind's walk for its history, in the transaction
// that records it complete: it forgets the versions older than
// keep, and counts the versions the walk opened and closed (those
// of its time, so a resumed walk's count takes in its earlier runs')
// into versions_opened and versions_closed as it clears its time (so
// that a write by hand afterwards takes its own).
func (v versions) end(ctx context.Context, tx *sql.Tx, kind string, w walkState) (historyCounts, error) {
	if v.keep > 0 && !w.time.IsZero() {
		if err := v.forget(ctx, tx, kind, w.time.Add(-v.keep)); err != nil {
			return historyCounts{}, err
		}
	}
	var n historyCounts
	err := tx.QueryRowContext(ctx, rebind(v.d, walkEndQuery(kind)), v.source, kind).Scan(&n.opened, &n.closed)
	if err == sql.ErrNoRows {
		err = nil
	}
	return n, err
}

// walkEndQuery is the statement that ends a walk of kind: it stores and
// returns the counts of the versions the walk opened and closed.
func walkEndQuery(kind string) string {
	return `UPDATE edapp_export_kinds SET walk_time = NULL, versions_opened = ` + versionsAt(kind, "valid_from") +
		`, versions_closed = ` + versionsAt(kind, "valid_to") + ` WHERE source = ? AND kind = ? RETURNING versions_opened, versions_closed`
}

// versionsAt is the SQL, within an UPDATE of a kind's row of
// edapp_export_kinds, that counts the versions of the kind's history
// tables whose column at (valid_from: opened; valid_to: closed) is the
// row's walk_time: none for a row without one. Each count seeks to them in
// an index of the history table, of the opened versions or of the closed
// ones, so it reads what the walk wrote, not the history kept.
func versionsAt(kind, at string) string {
	closed := ""
	if at == "valid_to" {
		closed = " AND valid_to IS NOT NULL" // as its partial index states
	}
	counts := []string{"0"}
	for _, name := range loadTables(kind) {
		if hasHistory(name) {
			counts = append(counts, `(SELECT count(*) FROM `+name+`_history WHERE source = edapp_export_kinds.source AND `+at+` = edapp_export_kinds.walk_time`+closed+`)`)
		}
	}
	return strings.Join(counts, " + ")
}

// forget deletes the source's versions of kind's history tables
// closed before cutoff, but a key's latest.
func (v versions) forget(ctx context.Context, tx *sql.Tx, kind string, cutoff time.Time) error {
	for _, name := range loadTables(kind) {
		h, ok := dbschema.Lookup(name + "_history")
		if !ok {
			continue
		}
		var same []string
		for _, k := range h.Key[:len(h.Key)-1] {
			same = append(same, "later."+k+" = "+h.Name+"."+k)
		}
		q := `DELETE FROM ` + h.Name + ` WHERE source = ? AND valid_to IS NOT NULL AND valid_to < ? AND EXISTS (SELECT 1 FROM ` + h.Name + ` AS later WHERE ` + strings.Join(same, " AND ") + ` AND later.valid_from > ` + h.Name + `.valid_from)`
		if _, err := tx.ExecContext(ctx, rebind(v.d, q), v.source, timeArg(v.d, cutoff)); err != nil {
			return err
		}
	}
	return nil
}

// versionsNote is the summary's words for a walk's versions; empty for
// none.
func (h historyCounts) note() string {
	if h.opened == 0 && h.closed == 0 {
		return ""
	}
	return fmt.Sprintf(", %d versions opened, %d closed", h.opened, h.closed)
}

// kindOfTable is the kind whose walk writes table: its own, but the
// users' custom fields.
func kindOfTable(table string) string {
	if table == customFieldsTable.Name {
		return "users"
	}
	return table
}
