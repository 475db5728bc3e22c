// Package dbschema is the one versioned schema of the databases the edapp
// command writes: the export's tables, the webhook inbox's and the records
// either refused. The export, the inbox and the command share it, so any
// of them can open a database another created or migrated.
//
// Each table's columns are typed literals with their meaning (the data
// dictionary); the history is a list of migrations made of typed steps
// (CreateTable, AddColumn, RebuildTable, CreateIndex, DropIndex), each
// rendered per dialect, and the latest shape is their fold (Tables).
// ParseURL reads a database URL and keeps its password out of every
// message.
//
// It depends on database/sql only; the caller opens the database with a
// driver of its choice.
package dbschema

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Dialect is the SQL dialect of a database.
type Dialect int

const (
	// SQLite is SQLite 3, through modernc.org/sqlite.
	SQLite Dialect = iota + 1
	// Postgres is PostgreSQL, through pgx's database/sql driver.
	Postgres
)

func (d Dialect) String() string {
	switch d {
	case SQLite:
		return "sqlite"
	case Postgres:
		return "postgres"
	}
	return fmt.Sprintf("Dialect(%d)", int(d))
}

// ErrTooNew is returned by Migrate for a database whose schema version is
// newer than this program knows: an older program must not write to it.
var ErrTooNew = errors.New("database schema is newer than this program knows")

// advisoryKey is the PostgreSQL advisory lock that serializes migrations
// ("edapp-sc" in ASCII).
const advisoryKey = 0x6564617070_2d7363

// Migrate creates the schema, or brings an older one forward: it applies
// each missing migration and records it in edapp_schema. It refuses
// (ErrTooNew) a database with a newer version. Then it writes the data
// dictionary into the database (DictionarySQL). All of it is one
// transaction: a migration that fails, or is interrupted, changes nothing.
// Concurrent calls are safe: PostgreSQL takes an advisory lock, SQLite the
// write lock (BEGIN IMMEDIATE), each once, so that a call waits for the
// others at most once; a PostgreSQL database found current in one read
// (every table, view and comment there) takes neither lock nor
// transaction. On SQLite a call waits for the lock for up to five minutes,
// or until ctx ends, whatever the busy timeout: another program's
// migration of a big file may take that long.
func Migrate(ctx context.Context, db *sql.DB, d Dialect) error {
	_, err := MigrateRecreating(ctx, db, d)
	return err
}

// MigrateRecreating is Migrate, which then recreates, empty, each table of
// the schema the database lacks (one dropped by hand: the schema version
// still says it exists), and returns their names. A mirrored kind's next
// run refills its table; an incremental kind's cursor must restart. Last
// it writes the data dictionary (DictionarySQL), which is no migration: it
// is written again on every call, in the same transaction.
func MigrateRecreating(ctx context.Context, db *sql.DB, d Dialect) (recreated []string, err error) {
	if d != SQLite && d != Postgres {
		return nil, fmt.Errorf("dbschema: unknown dialect %v", d)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if d == Postgres {
		if upToDate(ctx, conn) {
			return nil, nil
		}
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, int64(advisoryKey)); err != nil {
			return nil, fmt.Errorf("dbschema: lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(advisoryKey))
	}
	commit, rollback, err := begin(ctx, conn, d)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			rollback()
		}
	}()
	v, err := version(ctx, conn, d)
	if err != nil {
		return nil, err
	}
	if v > Latest() {
		return nil, fmt.Errorf("dbschema: version %d, this program knows up to %d: %w", v, Latest(), ErrTooNew)
	}
	for _, m := range migrations {
		if m.Version > v {
			if err = apply(ctx, conn, d, m); err != nil {
				return nil, err
			}
		}
	}
	if recreated, err = recreateMissing(ctx, conn, d); err != nil {
		return nil, err
	}
	if err = describe(ctx, conn, d); err != nil {
		return nil, err
	}
	return recreated, commit()
}

// recreateMissing creates the tables of the latest schema that conn's
// database lacks, within the migration's transaction.
func recreateMissing(ctx context.Context, conn *sql.Conn, d Dialect) (recreated []string, err error) {
	have, err := tableNames(ctx, conn, d)
	if err != nil {
		return nil, err
	}
	for _, t := range Tables() {
		if have[t.Name] {
			continue
		}
		for _, s := range append((CreateTable{t}).SQL(d), historyTriggerSQL(t.Name, d)...) {
			if _, err := conn.ExecContext(ctx, s); err != nil {
				return nil, fmt.Errorf("dbschema: recreate %s: %w", t.Name, err)
			}
		}
		recreated = append(recreated, t.Name)
	}
	for _, v := range views() {
		if !have[v.Name] { // dropped with a table it reads (DROP TABLE ... CASCADE)
			if _, err := conn.ExecContext(ctx, v.SQL(d)[0]); err != nil {
				return nil, fmt.Errorf("dbschema: recreate view %s: %w", v.Name, err)
			}
		}
	}
	return recreated, nil
}

// tableNames is the set of the database's tables and views.
func tableNames(ctx context.Context, conn *sql.Conn, d Dialect) (map[string]bool, error) {
	q := `SELECT name FROM sqlite_master WHERE type IN ('table', 'view')`
	if d == Postgres {
		// pg_class, not information_schema.tables, a view that checks
		// privileges table by table: about 4 ms less at each open.
		q = `SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'v', 'm', 'f', 'p')`
	}
	have, err := names(ctx, conn, q)
	if err != nil {
		return nil, fmt.Errorf("dbschema: list tables: %w", err)
	}
	return have, nil
}

// MissingIndexes is the SQL of BuildIndexes for the indexes of t that
// conn's database does not have: none once they are built, so a caller
// that runs it at the end of every fetch takes no step for them.
func (t Table) MissingIndexes(ctx context.Context, conn *sql.Conn, d Dialect) ([]string, error) {
	q := `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`
	if d == Postgres {
		// pg_index itself, not the pg_indexes view, which joins four
		// catalogs: a third of the time, at the end of every fetch.
		q = `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident($1))`
	}
	have, err := names(ctx, conn, q, t.Name)
	if err != nil {
		return nil, fmt.Errorf("dbschema: list the indexes of %s: %w", t.Name, err)
	}
	var out []string
	for _, idx := range t.Indexes {
		if idx.afterLoad(d) && !have[indexName(t.Name, idx.Columns)] {
			out = append(out, createIndex(t.Name, idx, d, "IF NOT EXISTS "))
		}
	}
	return out, nil
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
	now := time.Now().UTC().Format(TimeLayout)
	if _, err := conn.ExecContext(ctx, Rebind(d, `INSERT INTO edapp_schema (version, name, applied_at) VALUES (?, ?, ?)`), m.Version, m.Name, now); err != nil {
		return fmt.Errorf("dbschema: record migration %d: %w", m.Version, err)
	}
	return nil
}

// execScript runs stmts on conn as one script: on PostgreSQL one round
// trip, where a statement at a time took one each (a new database's
// migrations and dictionary are some 700 statements; with the version
// read once, a new database migrated in about 290 ms instead of 405).
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
		if err == nil || !SQLiteBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// SQLiteBusy reports whether err is SQLite's SQLITE_BUSY, extended codes
// included: another connection holds the lock it needed. It knows the
// drivers that give their errors a Code() int method (modernc.org/sqlite).
func SQLiteBusy(err error) bool {
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
