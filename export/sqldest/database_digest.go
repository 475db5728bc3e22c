package sqldest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/edapp-go/edapp/export"
)

// A complete walk also leaves out the rows whose values are those the
// table held when it began: at its first write it reads the digests of
// its tables' rows (edapp_digest), and a row whose digest is the same is
// not sent at all. Only its key is recorded.

// maxKnown bounds the digests a walk keeps in memory, about 100 bytes
// each: the rows of a larger table are all sent, and the database leaves
// the unchanged ones as they are.
const maxKnown = 200_000

// knownRows is a table's rows at its walk's first write in this run, by
// rowKey: their digests ("" for a row without one, which is sent whatever
// it holds), whether the walk met each, and how many it has not met. When
// it has met them all, none is gone: its end need not look for the rows it
// did not see (nothingGone).
type knownRows struct {
	rows  map[string]knownRow
	unmet int
}

type knownRow struct {
	digest string
	met    bool
}

// digestRead is where the read of a kind's known rows stands.
type digestRead int

const (
	digestsUnread  digestRead = iota // not read yet, or a prefetch failed: the first write reads them
	digestsReading                   // prefetchKnown's read is under way
	digestsRead                      // dbKind.known holds them
)

// knownAnswer is prefetchKnown's read: ok is false when it failed.
type knownAnswer struct {
	known map[string]*knownRows
	ok    bool
}

// changed is rows but those whose digest is the one their table held when
// the walk began. It keeps every row's key for edapp_export_seen. A key
// sent once in the walk is never left out again, so that the last record
// of a key the walk meets twice is the one written.
func (u *upserter) changed(rows [][]any) [][]any {
	for _, row := range rows {
		u.see(row)
	}
	if !u.compares {
		return rows
	}
	out := rows[:0]
	for _, row := range rows {
		k := rowKey(u.t, row)
		r, ok := u.known.rows[k]
		if ok && !r.met {
			r.met = true
			u.known.rows[k] = r
			u.known.unmet--
		}
		if ok && r.digest != "" && r.digest == row[u.t.digest] {
			u.same++
			continue
		}
		delete(u.known.rows, k)
		out = append(out, row)
	}
	return out
}

// loadKnown reads, at a complete walk's first write, the digests of the
// rows of its tables, unless a first load found them empty or
// prefetchKnown read them.
func (x *groupWriter) loadKnown(ctx context.Context, c *dbKind) error {
	c.awaitKnown()
	if c.digests == digestsRead || !needsKnown(c) {
		return nil
	}
	if err := x.on.endSpan(); err != nil { // the read is no group's write
		return err
	}
	known, err := x.readKnown(ctx, c, x.on.retry)
	if err != nil {
		return err
	}
	c.known, c.digests = known, digestsRead
	return nil
}

// needsKnown reports whether c's writes leave out unchanged rows: a
// complete walk into tables that held rows when it began.
func needsKnown(c *dbKind) bool { return c.full && !c.fresh }

// readKnown is the digests of the rows of c's tables, each read within
// try.
func (x *groupWriter) readKnown(ctx context.Context, c *dbKind, try func(context.Context, func(bool) error) error) (map[string]*knownRows, error) {
	known := map[string]*knownRows{}
	for _, t := range c.tables() {
		if !t.leavesSame {
			continue
		}
		var m map[string]knownRow
		var fits bool
		err := try(ctx, func(bool) (err error) {
			m, fits, err = x.knownDigests(ctx, t)
			return err
		})
		if err != nil {
			return nil, err
		}
		if fits {
			known[t.name] = &knownRows{rows: m, unmet: len(m)}
		}
	}
	return known, nil
}

// prefetchKnown starts reading c's known digests on a pooled connection,
// for a database whose groups are written there (PostgreSQL): its plan
// comes well before the walk's first page, and the read, tens of
// milliseconds for thousands of rows, then no longer holds up that
// page's write, nor, at the end of a walk whose pages all came at once,
// the run. No write of the kind can come before it ends (the walk's
// first write waits for it), so it reads the tables as the walk began.
// A read that fails leaves the write to read them itself.
func (x *Database) prefetchKnown(ctx context.Context, k *export.Kind, c *dbKind) {
	if !x.writesInParallel() || !needsKnown(c) || c.digests != digestsUnread {
		return
	}
	answer := make(chan knownAnswer, 1)
	c.reading, c.digests = answer, digestsReading
	go func() {
		w, release, ok := x.own.lend(ctx)
		if !ok {
			answer <- knownAnswer{}
			return
		}
		defer release()
		once := func(_ context.Context, f func(bool) error) error { return f(false) }
		known, err := x.groupsOn(w).readKnown(ctx, c, once)
		answer <- knownAnswer{known: known, ok: err == nil}
	}()
}

// awaitKnown waits for prefetchKnown's read, if one is under way, and
// keeps what it read; after a failed one the first write reads again.
func (c *dbKind) awaitKnown() {
	if c.digests != digestsReading {
		return
	}
	a := <-c.reading
	c.digests = digestsUnread
	if a.ok {
		c.known, c.digests = a.known, digestsRead
	}
}

// tables is c's tables: its kind's, and the users' custom fields'.
func (c *dbKind) tables() []*table {
	if c.t.name == "users" {
		return []*table{c.t, c.fields}
	}
	return []*table{c.t}
}

// knownDigests is t's rows of the source with their digests, keyed as
// rowKey keys a row; fits is false when it holds more than maxKnown. The
// database lays each key out (its text columns, each followed by U+001F):
// two columns a row to hand over rather than one per key column.
func (x *groupWriter) knownDigests(ctx context.Context, t *table) (m map[string]knownRow, fits bool, err error) {
	sep := "char(31)"
	if x.d == Postgres {
		sep = "chr(31)"
	}
	key := strings.Join(keyNames(t), " || "+sep+" || ") + " || " + sep
	rows, err := x.on.txConn().QueryContext(ctx, rebind(x.d, `SELECT `+key+`, COALESCE(edapp_digest, '') FROM `+t.name+
		` WHERE source = ? LIMIT `+strconv.Itoa(maxKnown+1)), x.source)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	m = map[string]knownRow{}
	var k, digest string
	for rows.Next() {
		if len(m) == maxKnown {
			return nil, false, nil
		}
		if err := rows.Scan(&k, &digest); err != nil {
			return nil, false, err
		}
		m[k] = knownRow{digest: digest}
	}
	return m, true, rows.Err()
}

// putDigest sets row's edapp_digest: a SHA-256 of its other values but
// edapp_run, 16 bytes of it in hex.
func (t *table) putDigest(row []any) {
	if t.digest < 0 {
		return
	}
	p := digestBufs.Get().(*[]byte)
	b := (*p)[:0]
	for i, v := range row {
		if i != t.digest && t.cols[i].Name != "edapp_run" {
			b = appendValue(b, v)
		}
	}
	sum := sha256.Sum256(b)
	*p = b
	digestBufs.Put(p)
	row[t.digest] = hex.EncodeToString(sum[:16])
}

// digestBufs are the buffers putDigest lays a row's values out in.
var digestBufs = sync.Pool{New: func() any { return new([]byte) }}

// appendValue appends v, tagged with its type, to b.
func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, 0)
	case string:
		b = binary.AppendUvarint(append(b, 1), uint64(len(v)))
		return append(b, v...)
	case int64:
		return binary.AppendVarint(append(b, 2), v)
	case float64:
		return binary.BigEndian.AppendUint64(append(b, 3), math.Float64bits(v))
	case bool:
		if v {
			return append(b, 4, 1)
		}
		return append(b, 4, 0)
	case time.Time:
		b = v.UTC().AppendFormat(append(b, 5), time.RFC3339Nano)
		return append(b, 0)
	default:
		s := fmt.Sprintf("%T:%v", v, v)
		b = binary.AppendUvarint(append(b, 6), uint64(len(s)))
		return append(b, s...)
	}
}
