package sqldest

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/internal/dbwrite"
	"github.com/edapp-go/edapp/export/internal/process"
)

// Dialect is a database's SQL dialect.
type Dialect = dbschema.Dialect

// The dialects Database writes.
const (
	SQLite   = dbschema.SQLite
	Postgres = dbschema.Postgres
)

// ErrSchemaTooNew is returned by OpenDatabase for a database whose schema
// a newer version of this program wrote.
var ErrSchemaTooNew = dbschema.ErrTooNew

// ErrLocked is returned by OpenDatabase while another export writes to the
// same database (export.ErrLocked, which filedest's Open returns too).
var ErrLocked = export.ErrLocked

// staleLock is how long a lock row whose holder wrote nothing is honoured,
// when its holder cannot be checked (another host).
const staleLock = 10 * time.Minute

// The sources a database holds the records of: the value of each table's
// source column.
const (
	SourceEdApp         = "edapp"
	SourceSafetyCulture = "safetyculture"
)

// Database is the database destination: a table per kind (package
// dbschema defines them), a row per record, upserted on the record's
// identity.
//
// A group of pages' rows (see Write) and the progress they represent
// commit in one transaction, so an interrupted export resumes after the
// last committed page and duplicates nothing. A mirrored kind's rows carry the run that
// saw them (edapp_run); the rows a complete fetch did not see are deleted
// in the transaction that records the kind complete. On PostgreSQL the
// groups of different kinds are written in parallel, on connections of
// the pool (see ParallelWrites); SQLite's go through one connection, and
// the groups of about a second share one transaction there.
//
// A Database writes one source's rows (WithSource): every statement it
// runs, the lock it takes and the runs it numbers are that source's, so
// an export of each source can write to one database at once and neither
// touches the other's rows.
type Database struct {
	// Its roles are types of their own: the owner (owner.go) holds the
	// export's connection and lock and runs the calls; writers
	// (writer.go) write groups on connections the owner lends, behind the
	// fence (fence.go); a groupWriter writes a group on either.
	own         *owner
	d           Dialect
	source      string
	lockWait    time.Duration
	reconnect   time.Duration        // how long a lost connection is tried again
	shared      *dbShared            // with the groups' writes
	optErr      error                // the first bad option value
	nfc         Normalizer           // WithNormalizer's; asHeld by default
	repaired    []string             // the tables OpenDatabase re-created, dropped by hand
	rows        *rowMaker            // the source's tables and their rows
	kinds       kindMap              // the kinds being written
	loader      rowLoader            // how the groups' rows reach their tables: by statements, or WithBulkLoader's
	starts      map[string]kindStart // the kinds' starts read ahead (startOf), by kind
	historyKeep time.Duration        // WithHistoryKeep's; 0: every version stays
}

// dbKind is one kind being written: the engine writes several at once.
type dbKind struct {
	t        *table
	walk     walkState
	written  int
	rejected int                   // kept in the rejects table
	fresh    bool                  // a first load into tables empty at the walk's start: rows go in by plain inserts
	full     bool                  // the walk fetches every record (fullWalk): its writes record the keys they see
	known    map[string]*knownRows // by table: its rows when the walk began (loadKnown), once digests is digestsRead
	digests  digestRead            // where the read of known stands
	reading  <-chan knownAnswer    // prefetchKnown's answer, while digests is digestsReading
	same     int                   // the records left out as unchanged
	held     rejectKeys            // the record keys of the rejects of the kind's tables when it began, by table
	fields   *table                // the users': their custom fields' table
	start    kindStart             // the database as the kind's start found it (startOf)
	now      time.Time             // the run's start: the time of the walk it begins (walkState.time)
}

// walkState is a kind's row in edapp_export_kinds.
type walkState struct {
	cursor, from, started time.Time
	completed             time.Time // the last complete fetch
	run                   int64     // 0: no walk in progress
	pages                 int
	time                  time.Time // the start of the run that began the walk: its versions' time (see history.go)
}

// OpenDatabase brings db's schema up to date (refusing one newer than it
// knows, ErrSchemaTooNew), re-creates the tables dropped by hand
// (Repaired) and takes the database for this export: a
// second export into the same database is refused with ErrLocked until
// this one calls Close. The caller opened db with a driver for d.
func OpenDatabase(ctx context.Context, db *sql.DB, d Dialect, opts ...DatabaseOption) (*Database, error) {
	if db == nil {
		return nil, fmt.Errorf("export: %w: OpenDatabase needs a *sql.DB", edapp.ErrInvalidInput)
	}
	if err := checkDatabaseOptions(opts); err != nil {
		return nil, err
	}
	// A table dropped by hand is re-created, empty, and its kinds start
	// over: the export refills what it can rather than refuse the run.
	recreated, err := dbschema.NewMigrator(db, d).Repair(ctx)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	x := databaseSettings(d, opts)
	x.repaired = recreated
	x.attach(conn, db)
	if x.rows.run, err = x.own.waitLock(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	if err := x.own.startCheckpointer(ctx); err != nil {
		x.Close()
		return nil, err
	}
	if err := x.restartKinds(ctx, recreated); err != nil {
		x.Close()
		return nil, err
	}
	if err := seedHistory(ctx, x); err != nil {
		x.Close()
		return nil, err
	}
	return x, nil
}

// Repaired is the tables OpenDatabase found missing (dropped by hand,
// though the schema version says they exist) and re-created empty, as
// `edapp db repair` does; their kinds start over and refill them. Empty
// when none was missing.
func (x *Database) Repaired() []string { return slices.Clone(x.repaired) }

// databaseSettings is a Database of dialect d with opts applied, not yet
// on a connection (attach).
func databaseSettings(d Dialect, opts []DatabaseOption) *Database {
	x := &Database{d: d, source: SourceEdApp, nfc: asHeld, lockWait: DefaultLockWait, reconnect: DefaultReconnect, shared: &dbShared{}, loader: byStatements{}}
	applyOptions(x, opts)
	if d != Postgres {
		x.loader = byStatements{} // SQLite has no bulk path
	}
	return x
}

// attach puts x on conn, from db, with its settings: its owner, and the
// rows of its source.
func (x *Database) attach(conn *sql.Conn, db *sql.DB) {
	x.own = newOwner(conn, db, x.d, x.source, x.lockWait, x.reconnect)
	x.rows = newRowMaker(x.d, x.source)
}

// newDatabase is a Database on conn, with the defaults.
func newDatabase(conn *sql.Conn, db *sql.DB, d Dialect) *Database {
	x := databaseSettings(d, nil)
	x.attach(conn, db)
	return x
}

// restartKinds forgets where the fetch of each kind stands whose table
// was recreated empty: its next fetch starts over and refills it. The
// table held every source's rows, so every source's kind starts over.
func (x *Database) restartKinds(ctx context.Context, tables []string) error {
	for _, name := range tables {
		if name == "user_custom_fields" {
			name = "users" // refilled with the users
		}
		if _, err := x.own.conn.ExecContext(ctx, rebind(x.d, `DELETE FROM edapp_export_kinds WHERE kind = ?`), name); err != nil {
			return err
		}
	}
	return nil
}

// DefaultLockWait is how long OpenDatabase waits for another export to
// finish before it refuses with ErrLocked.
const DefaultLockWait = 10 * time.Second

// DatabaseOption configures OpenDatabase. A bad value makes OpenDatabase
// fail with an error wrapping edapp.ErrInvalidInput, before it touches
// the database; a nil DatabaseOption is skipped.
type DatabaseOption func(*Database)

// WithSource sets the service whose records the Database writes:
// SourceEdApp (the default) or SourceSafetyCulture; another value is an
// OpenDatabase error wrapping edapp.ErrInvalidInput.
func WithSource(source string) DatabaseOption {
	return func(x *Database) {
		if _, ok := lockKey[source]; !ok {
			x.optErr = cmp.Or(x.optErr, fmt.Errorf("export: %w: WithSource(%q): want %s or %s", edapp.ErrInvalidInput, source, SourceEdApp, SourceSafetyCulture))
			return
		}
		x.source = source
	}
}

// WithLockWait sets how long OpenDatabase waits for another export that
// holds the database (default DefaultLockWait; 0: refuse at once); d must
// not be negative.
func WithLockWait(d time.Duration) DatabaseOption {
	return func(x *Database) {
		if d < 0 {
			x.optErr = cmp.Or(x.optErr, fmt.Errorf("export: %w: WithLockWait(%s): want 0 or more", edapp.ErrInvalidInput, d))
			return
		}
		x.lockWait = d
	}
}

// checkDatabaseOptions reports the first bad value of opts.
func checkDatabaseOptions(opts []DatabaseOption) error {
	return firstBadOption(&Database{}, opts, func(x *Database) error { return x.optErr })
}

// Close commits the groups written since the last commit (on SQLite,
// those of the last second) and lets another export take the database.
func (x *Database) Close() error { return x.own.close() }

// rebind is query, written with ? placeholders, in d's.
func rebind(d Dialect, query string) string { return dbwrite.Rebind(d, query) }

// ErrSessionLock is returned by OpenDatabase when the PostgreSQL advisory
// lock it took is not held by the session its next statement reaches: a
// pooler in transaction mode (PgBouncer's pool_mode = transaction) hands
// each statement to any server connection, so no session-level lock can
// keep a second export out.
var ErrSessionLock = errors.New("export: the database's advisory lock is not held by this session's next statement (a pooler in transaction mode, such as PgBouncer with pool_mode = transaction?): connect to PostgreSQL directly, or through a pool in session mode")

// stale reports whether a SQLite lock row's holder is gone: a process of
// this host that no longer runs, or a holder silent for staleLock.
func stale(host string, pid int, beat time.Time) bool {
	if me, _ := os.Hostname(); host == me && pid > 0 && !process.Alive(pid) {
		return true
	}
	return time.Since(beat) > staleLock
}

// timeArg is t as d stores it; nil for the zero time.
func timeArg(d Dialect, t time.Time) any {
	if t.IsZero() {
		return nil
	}
	if d == SQLite {
		return sqliteTime(t.UTC())
	}
	return t.UTC()
}

// sqliteTime is u, in UTC, as dbwrite.TimeLayout formats it: digits laid
// out by hand for a four-digit year (Format reads its layout for every
// value, and a first run formats every time of every row).
func sqliteTime(u time.Time) string {
	year, month, day := u.Date()
	if year < 0 || year > 9999 {
		return u.Format(dbwrite.TimeLayout)
	}
	hour, minute, sec := u.Clock()
	b := make([]byte, 0, len(dbwrite.TimeLayout))
	b = appendDigits(b, year, 4)
	b = appendDigits(append(b, '-'), int(month), 2)
	b = appendDigits(append(b, '-'), day, 2)
	b = appendDigits(append(b, 'T'), hour, 2)
	b = appendDigits(append(b, ':'), minute, 2)
	b = appendDigits(append(b, ':'), sec, 2)
	b = appendDigits(append(b, '.'), u.Nanosecond()/1000, 6)
	return string(append(b, 'Z'))
}

// appendDigits appends n, not negative, in width digits, zeros first.
func appendDigits(b []byte, n, width int) []byte {
	b = append(b, make([]byte, width)...)
	for i := len(b) - 1; i >= len(b)-width; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return b
}

// scanTime reads a time scanned into an any: a time.Time (PostgreSQL) or
// text (SQLite); the zero time for NULL or anything else.
func scanTime(v any) time.Time {
	switch v := v.(type) {
	case time.Time:
		return v.UTC()
	case []byte:
		return scanTime(string(v))
	case string:
		t, err := time.Parse(time.RFC3339Nano, strings.Replace(v, " ", "T", 1))
		if err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// overlapOf is how far before its cursor k is fetched again.
func overlapOf(k *export.Kind) time.Duration { return cmp.Or(max(k.Overlap, 0), export.Overlap) }

// firstBadOption applies opts to probe, a destination not yet opened, and
// returns the first bad value they kept (what bad reads from probe).
func firstBadOption[T any, O ~func(*T)](probe *T, opts []O, bad func(*T) error) error {
	applyOptions(probe, opts)
	return bad(probe)
}

// applyOptions applies opts to x in order, skipping a nil one (as
// DatabaseOption's doc promises): a caller may build its list with the
// options it leaves out as nil.
func applyOptions[T any, O ~func(*T)](x *T, opts []O) {
	for _, o := range opts {
		if o != nil {
			o(x)
		}
	}
}
