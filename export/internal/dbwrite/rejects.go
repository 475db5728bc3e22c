package dbwrite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/edapp-go/edapp/export/dbschema"
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

// maxReason bounds a reject's reason.
const maxReason = 1000

// InsertRejects keeps rs in the rejects table within tx, one row per
// record (RecordKey): a record refused before updates its row, counting
// one more run unless this run already counted it, and keeps the last
// reason, body, run and time. The body is bounded by MaxRejectRawBytes.
func InsertRejects(ctx context.Context, tx *sql.Tx, d dbschema.Dialect, rs []Reject) error {
	q := Rebind(d, insertReject)
	for _, r := range rs {
		raw, size := boundRaw(r.Raw)
		at := timeValue(d, r.At)
		args := []any{r.Source, r.Kind, RecordKey(r.Identity, r.Raw), nullIfZero(cut(r.Identity, MaxRejectRawBytes)),
			cut(r.Reason, maxReason), raw, size, nullIfZero(r.Run), at, at}
		CleanArgs(d, args, func(i int) bool { return i == 5 })
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

const insertReject = `INSERT INTO rejects (source, kind, record_key, identity, reason, raw, raw_bytes, count, run, first_rejected_at, rejected_at)
VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
ON CONFLICT (source, kind, record_key) DO UPDATE SET identity = excluded.identity, reason = excluded.reason, raw = excluded.raw,
raw_bytes = excluded.raw_bytes, count = rejects.count + CASE WHEN rejects.run = excluded.run THEN 0 ELSE 1 END,
run = excluded.run, rejected_at = excluded.rejected_at`

// ClearRejects removes, within tx, the rejects of source's kind whose
// records were accepted since: keys are their RecordKey.
func ClearRejects(ctx context.Context, tx *sql.Tx, d dbschema.Dialect, source, kind string, keys []string) error {
	q := Rebind(d, `DELETE FROM rejects WHERE source = ? AND kind = ? AND record_key = ?`)
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, q, source, kind, k); err != nil {
			return err
		}
	}
	return nil
}

// RecordKey is the key of a record's row in rejects, with its source and
// kind: its identity when it has one of at most 512 characters, else
// "sha256:" and the hex SHA-256 of its identity, or of raw when it has
// none.
func RecordKey(identity, raw string) string {
	if identity != "" && utf8.RuneCountInString(identity) <= maxKeyedIdentity {
		return identity
	}
	if identity == "" {
		identity = raw
	}
	sum := sha256.Sum256([]byte(identity))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// boundRaw is raw as the rejects table keeps it (rawJSON), bounded by
// MaxRejectRawBytes: a longer one is kept as a JSON string of its first
// bytes and "...", cut on a character boundary so that the string,
// quoted and escaped, fits. size is raw's length; nil for no body.
func boundRaw(raw string) (value, size any) {
	if raw == "" {
		return nil, nil
	}
	if v, _ := rawJSON(raw).(string); len(v) <= MaxRejectRawBytes {
		return v, len(raw)
	}
	n := min(len(raw), MaxRejectRawBytes)
	for {
		b := quoteJSON(ValidUTF8(cut(raw, n)))
		if len(b) <= MaxRejectRawBytes {
			return string(b), len(raw)
		}
		// Quoting grew the text by len(b)/n: cut it by as much.
		n = max(0, min(n-1, n*MaxRejectRawBytes/len(b)))
	}
}

// quoteJSON is s as a JSON string, HTML characters as they are.
func quoteJSON(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
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

func timeValue(d dbschema.Dialect, t time.Time) any {
	if t.IsZero() {
		t = time.Now()
	}
	if d == dbschema.SQLite {
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
