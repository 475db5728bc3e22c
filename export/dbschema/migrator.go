package dbschema

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Migrator brings a database's schema to the latest version this program
// knows and says where it stands, as goose's provider does: Up, Status,
// Version, and Repair for the tables dropped by hand.
type Migrator struct {
	db *sql.DB
	d  Dialect
}

// NewMigrator is a Migrator for db, which the caller opened with a driver
// for d (modernc.org/sqlite for SQLite, pgx's database/sql driver for
// Postgres).
func NewMigrator(db *sql.DB, d Dialect) *Migrator { return &Migrator{db: db, d: d} }

// MigrationStatus is one migration of the schema and when the database
// applied it: AppliedAt is zero for a migration still to apply.
type MigrationStatus struct {
	Version   int
	Name      string
	AppliedAt time.Time
}

// advisoryKey is the PostgreSQL advisory lock that serializes migrations
// ("edapp-sc" in ASCII).
const advisoryKey = 0x6564617070_2d7363

// Up creates the schema, or brings an older one forward: it applies each
// missing migration and records it in edapp_schema, then writes the data
// dictionary where the database's differs from it. It refuses
// (ErrTooNew) a database with a newer version. All of it is one
// transaction: a migration that fails, or is interrupted, changes
// nothing. A database found current in one read takes neither lock nor
// transaction and is not written to. Concurrent calls are safe:
// PostgreSQL takes an advisory lock, SQLite the write lock (BEGIN
// IMMEDIATE), each once; on SQLite a call waits for the lock for up to
// five minutes, or until ctx ends, whatever the busy timeout: another
// program's migration of a big file may take that long.
//
// Up never re-creates a table dropped by hand (the schema version still
// says it exists): Repair does.
func (m *Migrator) Up(ctx context.Context) error {
	_, err := m.migrate(ctx, false)
	return err
}

// Repair is Up, which then re-creates, empty, each table of the schema
// the database lacks (one dropped by hand) and each view dropped with
// one, in the same transaction, and returns the tables' names. A mirrored
// kind's next export refills its table; an incremental kind's must start
// over.
func (m *Migrator) Repair(ctx context.Context) (recreated []string, err error) {
	return m.migrate(ctx, true)
}

// Version is the database's schema version: the highest migration it
// recorded, 0 for a database with none. It writes nothing.
func (m *Migrator) Version(ctx context.Context) (int, error) {
	conn, err := m.conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if have, err := tableNames(ctx, conn, m.d); err != nil || !have[edappSchemaTable.Name] {
		return 0, err
	}
	return readVersion(ctx, conn, m.d)
}

// Status is every migration this program knows, then any later one the
// database recorded, oldest first, each with when the database applied
// it. It writes nothing.
func (m *Migrator) Status(ctx context.Context) ([]MigrationStatus, error) {
	out := make([]MigrationStatus, len(migrations))
	for i, mg := range migrations {
		out[i] = MigrationStatus{Version: mg.Version, Name: mg.Name}
	}
	conn, err := m.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if have, err := tableNames(ctx, conn, m.d); err != nil || !have[edappSchemaTable.Name] {
		return out, err
	}
	applied, err := appliedMigrations(ctx, conn)
	if err != nil {
		return nil, err
	}
	for _, a := range applied {
		if i := slices.IndexFunc(out, func(s MigrationStatus) bool { return s.Version == a.Version }); i >= 0 {
			out[i].AppliedAt = a.AppliedAt
		} else {
			out = append(out, a)
		}
	}
	return out, nil
}

// appliedMigrations are the rows of edapp_schema, oldest first.
func appliedMigrations(ctx context.Context, conn *sql.Conn) ([]MigrationStatus, error) {
	rows, err := conn.QueryContext(ctx, `SELECT version, name, applied_at FROM edapp_schema ORDER BY version`)
	if err != nil {
		return nil, fmt.Errorf("dbschema: read the migrations applied: %w", err)
	}
	defer rows.Close()
	var out []MigrationStatus
	for rows.Next() {
		var s MigrationStatus
		var at any // text on SQLite, a time on PostgreSQL
		if err := rows.Scan(&s.Version, &s.Name, &at); err != nil {
			return nil, err
		}
		switch v := at.(type) {
		case time.Time:
			s.AppliedAt = v.UTC()
		case string:
			s.AppliedAt, _ = time.Parse(timeLayout, v)
		case []byte:
			s.AppliedAt, _ = time.Parse(timeLayout, string(v))
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// conn is a connection of m's database, once m's dialect is known.
func (m *Migrator) conn(ctx context.Context) (*sql.Conn, error) {
	if m.d != SQLite && m.d != Postgres {
		return nil, fmt.Errorf("dbschema: unknown dialect %v", m.d)
	}
	if m.db == nil {
		return nil, fmt.Errorf("dbschema: NewMigrator needs a *sql.DB")
	}
	return m.db.Conn(ctx)
}

// migrate is Up, and Repair's re-creation when repair is set.
func (m *Migrator) migrate(ctx context.Context, repair bool) (recreated []string, err error) {
	conn, err := m.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if !repair && current(ctx, conn, m.d) {
		return nil, nil
	}
	if m.d == Postgres {
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, int64(advisoryKey)); err != nil {
			return nil, fmt.Errorf("dbschema: lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(advisoryKey))
	}
	commit, rollback, err := begin(ctx, conn, m.d)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			rollback()
		}
	}()
	if err = applyMissing(ctx, conn, m.d); err != nil {
		return nil, err
	}
	if repair {
		if recreated, err = recreateMissing(ctx, conn, m.d); err != nil {
			return nil, err
		}
	}
	if err = describe(ctx, conn, m.d); err != nil {
		return nil, err
	}
	return recreated, commit()
}

// applyMissing applies, within the migration's transaction, each
// migration newer than the database's version; a database newer than
// this program is ErrTooNew.
func applyMissing(ctx context.Context, conn *sql.Conn, d Dialect) error {
	v, err := version(ctx, conn, d)
	if err != nil {
		return err
	}
	if v > latest() {
		return fmt.Errorf("dbschema: version %d, this program knows up to %d: %w", v, latest(), ErrTooNew)
	}
	for _, m := range migrations {
		if m.Version > v {
			if err := apply(ctx, conn, d, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// recreateMissing creates the tables of the latest schema that conn's
// database lacks, and the views dropped with them, within the
// migration's transaction.
func recreateMissing(ctx context.Context, conn *sql.Conn, d Dialect) (recreated []string, err error) {
	have, err := tableNames(ctx, conn, d)
	if err != nil {
		return nil, err
	}
	for _, t := range Tables() {
		if have[t.Name] {
			continue
		}
		if err := execScript(ctx, conn, append((createTable{t}).SQL(d), historyTriggerSQL(t.Name, d)...)); err != nil {
			return nil, fmt.Errorf("dbschema: recreate %s: %w", t.Name, err)
		}
		recreated = append(recreated, t.Name)
	}
	for _, v := range views() {
		if !have[v.Name] { // dropped with a table it reads (DROP TABLE ... CASCADE)
			if err := execScript(ctx, conn, v.SQL(d)); err != nil {
				return nil, fmt.Errorf("dbschema: recreate view %s: %w", v.Name, err)
			}
		}
	}
	return recreated, nil
}

// current reports whether conn's database needs nothing from Up: on
// PostgreSQL every table, view and comment there (upToDate); on SQLite
// the latest version and the data dictionary, read without the write
// lock. An error is not current: Up then settles it under its lock.
func current(ctx context.Context, conn *sql.Conn, d Dialect) bool {
	if d == Postgres {
		return upToDate(ctx, conn)
	}
	var v sql.NullInt64
	if err := conn.QueryRowContext(ctx, `SELECT (SELECT MAX(version) FROM edapp_schema)`).Scan(&v); err != nil || int(v.Int64) != latest() {
		return false
	}
	ok, err := columnsCurrent(ctx, conn)
	return err == nil && ok
}

// tableNames is the set of the database's tables and views.
func tableNames(ctx context.Context, conn *sql.Conn, d Dialect) (map[string]bool, error) {
	q := `SELECT name FROM sqlite_master WHERE type IN ('table', 'view')`
	if d == Postgres {
		// pg_class, not information_schema.tables, a view that checks
		// privileges table by table, at each open.
		q = `SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'v', 'm', 'f', 'p')`
	}
	have, err := names(ctx, conn, q)
	if err != nil {
		return nil, fmt.Errorf("dbschema: list tables: %w", err)
	}
	return have, nil
}

// names is the set of the names query q gives, one a row.
func names(ctx context.Context, conn *sql.Conn, q string, args ...any) (map[string]bool, error) {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		have[name] = true
	}
	return have, rows.Err()
}

// apply runs migration m and records it, within the migration's
// transaction.
func apply(ctx context.Context, conn *sql.Conn, d Dialect, m Migration) error {
	if err := execScript(ctx, conn, m.SQL(d)); err != nil {
		return fmt.Errorf("dbschema: migration %d (%s): %w", m.Version, m.Name, err)
	}
	record := rebind(d, `INSERT INTO edapp_schema (version, name, applied_at) VALUES (?, ?, ?)`)
	if _, err := conn.ExecContext(ctx, record, m.Version, m.Name, time.Now().UTC().Format(timeLayout)); err != nil {
		return fmt.Errorf("dbschema: record migration %d: %w", m.Version, err)
	}
	return nil
}

// execScript runs stmts on conn as one script: on PostgreSQL one round
// trip, where a statement at a time took one each (a new database's
// migrations and dictionary are hundreds of statements).
func execScript(ctx context.Context, conn *sql.Conn, stmts []string) error {
	if len(stmts) == 0 {
		return nil
	}
	_, err := conn.ExecContext(ctx, strings.Join(stmts, ";\n"))
	return err
}

// begin starts a transaction on conn that holds the write lock at once.
// It runs BEGIN itself, since database/sql cannot ask SQLite for an
// immediate transaction.
func begin(ctx context.Context, conn *sql.Conn, d Dialect) (commit func() error, rollback func(), err error) {
	stmt := "BEGIN"
	if d == SQLite {
		stmt = "BEGIN IMMEDIATE"
	}
	if err := beginWaiting(ctx, conn, stmt); err != nil {
		return nil, nil, fmt.Errorf("dbschema: begin: %w", err)
	}
	commit = func() error {
		_, err := conn.ExecContext(ctx, "COMMIT")
		return err
	}
	rollback = func() { conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") }
	return commit, rollback, nil
}

// sqliteLockWait caps how long a migration waits for SQLite's write lock:
// another program may hold it for as long as its own migration of a big
// file takes, well past the busy timeout of one attempt.
const sqliteLockWait = 5 * time.Minute

// beginWaiting runs stmt, and on SQLite asks again while the answer is
// SQLITE_BUSY, until sqliteLockWait has passed or ctx ends. Each attempt
// waits within the connection's busy timeout first, if it has one.
func beginWaiting(ctx context.Context, conn *sql.Conn, stmt string) error {
	deadline := time.Now().Add(sqliteLockWait)
	for {
		_, err := conn.ExecContext(ctx, stmt)
		if err == nil || !sqliteBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// sqliteBusy reports whether err is SQLite's SQLITE_BUSY, extended codes
// included: another connection holds the lock it needed. It knows the
// drivers that give their errors a Code() int method (modernc.org/sqlite).
func sqliteBusy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 5
}

// version creates edapp_schema if it is missing and returns the highest
// version it records (0 for a new database).
func version(ctx context.Context, conn *sql.Conn, d Dialect) (int, error) {
	create := `CREATE TABLE IF NOT EXISTS edapp_schema (version ` + Int.SQL(d) + ` PRIMARY KEY, name TEXT NOT NULL, applied_at ` + Time.SQL(d) + ` NOT NULL)`
	if _, err := conn.ExecContext(ctx, create); err != nil {
		return 0, fmt.Errorf("dbschema: %w", err)
	}
	return readVersion(ctx, conn, d)
}

// readVersion is the highest version edapp_schema records (0 for none).
func readVersion(ctx context.Context, conn *sql.Conn, d Dialect) (int, error) {
	var v sql.NullInt64
	q := `SELECT MAX(version) FROM edapp_schema`
	if d == Postgres {
		// Cast, so that the statement's result type stays when a migration
		// makes the column a bigint: a statement the driver prepared
		// on this connection before would fail after it otherwise
		// ("cached plan must not change result type").
		q = `SELECT CAST(MAX(version) AS BIGINT) FROM edapp_schema`
	}
	if err := conn.QueryRowContext(ctx, q).Scan(&v); err != nil {
		return 0, fmt.Errorf("dbschema: read version: %w", err)
	}
	return int(v.Int64), nil
}
