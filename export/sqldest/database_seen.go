package sqldest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/edapp-go/edapp/export/internal/dbwrite"
	"github.com/edapp-go/edapp/export/internal/jsonobj"
)

// A complete fetch of a mirrored kind deletes the rows it did not see.
// Into a table that leavesSame, an upsert leaves an unchanged row as it
// is, edapp_run included, so the rows a fetch saw are those it wrote
// (edapp_run is the walk's run) and those whose keys it recorded in
// edapp_export_seen, in each group's transaction: a walk resumed by a
// later run finds the keys its first run saw there too.

// see keeps row's key, cleaned as the row is stored, when the write under
// way records the keys it sees.
func (u *upserter) see(row []any) {
	if u.w.seenRun == 0 || !u.t.leavesSame || u.w.plain() {
		return // plain inserts write edapp_run into every row
	}
	key := make([]any, len(u.t.key))
	for j, i := range u.t.key {
		key[j] = row[i]
	}
	dbwrite.CleanArgs(u.x.d, key, func(int) bool { return false })
	k := make([]string, len(key))
	for j, v := range key {
		k[j], _ = v.(string)
	}
	u.seen = append(u.seen, k)
}

// recordSeen writes the keys see kept into edapp_export_seen, as one row.
func (u *upserter) recordSeen(ctx context.Context) error {
	if len(u.seen) == 0 {
		return nil
	}
	b := seenJSON(u.seen)
	u.seen = nil
	_, err := u.tx.ExecContext(ctx, rebind(u.x.d, `INSERT INTO edapp_export_seen (source, table_name, walk_run, export_run, part, keys) VALUES (?, ?, ?, ?, ?, ?)`),
		u.x.source, u.t.name, u.w.seenRun, u.x.rows.run, u.x.shared.seenPart.Add(1), string(b))
	return err
}

// mirror is what a complete walk does to a source's tables: it keeps the
// keys it saw in edapp_export_seen, and deletes the rows it did not see.
type mirror struct{ rows *rowMaker }

// deleteUnseen deletes the rows of a table that the complete walk of run
// did not see, and returns how many; none when nothingGone says so.
func (m mirror) deleteUnseen(ctx context.Context, tx *sql.Tx, name string, run int64, nothingGone bool) (int64, error) {
	t := m.rows.tables[name]
	if t == nil || !t.leavesSame {
		if err := m.closeUnseen(ctx, tx, name, kindOfTable(name), run); err != nil {
			return 0, err
		}
		res, err := tx.ExecContext(ctx, rebind(m.rows.d, `DELETE FROM `+name+` WHERE source = ? AND (edapp_run IS NULL OR edapp_run <> ?)`), m.rows.source, run)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}
	var n int64
	if !nothingGone {
		gone, err := m.unseen(ctx, tx, t, run)
		if err != nil {
			return 0, err
		}
		if err := m.closeGone(ctx, tx, t, kindOfTable(name), gone); err != nil {
			return 0, err
		}
		if n, err = m.deleteKeys(ctx, tx, t, gone); err != nil {
			return 0, err
		}
	}
	_, err := tx.ExecContext(ctx, rebind(m.rows.d, `DELETE FROM edapp_export_seen WHERE source = ? AND table_name = ?`), m.rows.source, name)
	return n, err
}

// nothingGone reports, for each of c's tables, whether its walk met every
// row the table held at its first write in this run (knownRows; not for a
// table larger than maxKnown), so that none is left to delete: any other
// row was written by the walk, since the export holds the database. For a
// walk resumed from an earlier run, the rows its first part met count as
// unmet unless it meets them again, so its end looks for the gone rows.
func nothingGone(c *dbKind) func(table string) bool {
	return func(table string) bool {
		k, ok := c.known[table]
		return ok && k.unmet == 0
	}
}

// unseen is the keys of t's rows that the walk of run neither wrote nor
// recorded as seen.
func (m mirror) unseen(ctx context.Context, tx *sql.Tx, t *table, run int64) ([][]string, error) {
	seen, err := m.seenKeys(ctx, tx, t.name, run)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, rebind(m.rows.d, `SELECT `+strings.Join(keyNames(t), ", ")+` FROM `+t.name+` WHERE source = ? AND (edapp_run IS NULL OR edapp_run <> ?)`), m.rows.source, run)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var gone [][]string
	for rows.Next() {
		k := make([]string, len(t.key))
		dest := make([]any, len(k))
		for i := range k {
			dest[i] = &k[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if _, ok := seen[seenKey(k)]; !ok {
			gone = append(gone, k)
		}
	}
	return gone, rows.Err()
}

// seenKeys is the set of keys of table recorded by the walk of run, by
// seenKey.
func (m mirror) seenKeys(ctx context.Context, tx *sql.Tx, table string, run int64) (map[[16]byte]struct{}, error) {
	rows, err := tx.QueryContext(ctx, rebind(m.rows.d, `SELECT keys FROM edapp_export_seen WHERE source = ? AND table_name = ? AND walk_run = ?`), m.rows.source, table, run)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	seen := map[[16]byte]struct{}{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		var keys [][]string
		if err := json.Unmarshal([]byte(s), &keys); err != nil {
			return nil, fmt.Errorf("edapp_export_seen of %s: %w", table, err)
		}
		for _, k := range keys {
			seen[seenKey(k)] = struct{}{}
		}
	}
	return seen, rows.Err()
}

// seenKey is a digest of a key's values, laid out as putDigest lays out a
// row's: a large walk's keys stay small in memory.
func seenKey(values []string) [16]byte {
	var b []byte
	for _, v := range values {
		b = appendValue(b, v)
	}
	sum := sha256.Sum256(b)
	return [16]byte(sum[:16])
}

// deleteKeys deletes the rows of t with the given keys, and returns how
// many it deleted.
func (m mirror) deleteKeys(ctx context.Context, tx *sql.Tx, t *table, keys [][]string) (int64, error) {
	var deleted int64
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(t.key)), ", ") + ")"
	per := max(1, sqliteParams/len(t.key))
	for len(keys) > 0 {
		n := min(per, len(keys))
		args := make([]any, 0, n*len(t.key))
		for _, k := range keys[:n] {
			for _, v := range k {
				args = append(args, v)
			}
		}
		q := `DELETE FROM ` + t.name + ` WHERE (` + strings.Join(keyNames(t), ", ") + `) IN (VALUES ` + strings.TrimSuffix(strings.Repeat(row+", ", n), ", ") + `)`
		res, err := tx.ExecContext(ctx, rebind(m.rows.d, q), args...)
		if err != nil {
			return deleted, err
		}
		m, err := res.RowsAffected()
		if err != nil {
			return deleted, err
		}
		deleted += m
		keys = keys[n:]
	}
	return deleted, nil
}

// forgetSeen deletes the keys that walks other than run recorded for
// kind's tables: a walk begun anew leaves those of the one it replaces.
func (m mirror) forgetSeen(ctx context.Context, tx *sql.Tx, kind string, run int64) error {
	for _, name := range loadTables(kind) {
		if _, err := tx.ExecContext(ctx, rebind(m.rows.d, `DELETE FROM edapp_export_seen WHERE source = ? AND table_name = ? AND walk_run <> ?`), m.rows.source, name, run); err != nil {
			return err
		}
	}
	return nil
}

// seenJSON is json.Marshal(seen), byte for byte, without its reflection
// (a re-run marshals every key it saw).
func seenJSON(seen [][]string) []byte {
	if seen == nil {
		return []byte("null")
	}
	b := append(make([]byte, 0, 64*len(seen)), '[')
	for i, key := range seen {
		if i > 0 {
			b = append(b, ',')
		}
		if key == nil {
			b = append(b, "null"...)
			continue
		}
		b = append(b, '[')
		for j, s := range key {
			if j > 0 {
				b = append(b, ',')
			}
			b = jsonobj.AppendString(b, s)
		}
		b = append(b, ']')
	}
	return append(b, ']')
}
