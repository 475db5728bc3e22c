package dbschema

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode/utf8"
)

// Reject is a record a database refused for good, or one the writer
// refused before it (no usable identity, a key too long), kept in the
// rejects table instead of blocking its kind.
type Reject struct {
	Source   string // "edapp" or "safetyculture"
	Kind     string // the table the record was for
	Identity string // its key columns' values joined by " / "; "" when unknown (NULL)
	Reason   string
	Raw      string // the record as JSON; text that is not JSON is kept as a JSON string
	Run      int64  // the export run; 0 for none (NULL)
	At       time.Time
}

// MaxKeyBytes bounds the bytes of a record's key columns together: a
// record whose key is longer is rejected, never truncated. PostgreSQL's
// B-tree (a primary key is one) refuses an entry over 2,704 bytes.
const MaxKeyBytes = 2000

// maxReason bounds a reject's reason.
const maxReason = 1000

// InsertRejects adds rs to the rejects table within tx.
func InsertRejects(ctx context.Context, tx *sql.Tx, d Dialect, rs []Reject) error {
	q := Rebind(d, `INSERT INTO rejects (source, kind, identity, reason, raw, run, rejected_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	for _, r := range rs {
		args := []any{r.Source, r.Kind, nullIfZero(r.Identity), cut(r.Reason, maxReason), rawJSON(r.Raw), nullIfZero(r.Run), timeValue(d, r.At)}
		CleanArgs(d, args, func(i int) bool { return i == 4 })
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

func nullIfZero[T comparable](v T) any {
	var zero T
	if v == zero {
		return nil
	}
	return v
}

// rawJSON is raw if it is JSON, else raw as a JSON string.
func rawJSON(raw string) any {
	if raw == "" {
		return nil
	}
	if json.Valid([]byte(raw)) {
		return raw
	}
	b, _ := json.Marshal(ValidUTF8(raw))
	return string(b)
}

func timeValue(d Dialect, t time.Time) any {
	if t.IsZero() {
		t = time.Now()
	}
	if d == SQLite {
		return t.UTC().Format(TimeLayout)
	}
	return t.UTC()
}

// cut bounds s to n bytes, on a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// IsDataError reports whether err is a database refusing a row for what it
// holds, which the same row will meet again on every try: on PostgreSQL
// SQLSTATE class 22 (data exception), class 23 (integrity constraint) but
// 23505 (a unique key taken, which an upsert settles) and 54000 (a value
// over a limit, such as an index entry's size); on SQLite a constraint
// that is not a key's, a type mismatch, or a value too big. A lost
// connection, a timeout or a lock is not one.
func IsDataError(err error) bool {
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		s := pg.SQLState()
		return strings.HasPrefix(s, "22") || strings.HasPrefix(s, "23") && s != "23505" || s == "54000"
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		const constraint, mismatch, tooBig, primaryKey, unique = 19, 20, 18, 1555, 2067
		switch c := lite.Code(); c & 0xff {
		case constraint:
			return c != primaryKey && c != unique
		case mismatch, tooBig:
			return true
		}
	}
	return false
}

// IsOutOfSpace reports whether err is the database being out of room for
// now (a full disk, or another resource it runs short of), which the same
// write may get past later: SQLite's SQLITE_FULL or SQLITE_IOERR,
// PostgreSQL's class 53 (insufficient resources, disk_full among them).
func IsOutOfSpace(err error) bool {
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		return strings.HasPrefix(pg.SQLState(), "53")
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		const ioErr, full = 10, 13
		c := lite.Code() & 0xff
		return c == full || c == ioErr
	}
	return false
}
