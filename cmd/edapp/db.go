package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/sqldest"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"
)

// dbPingTimeout bounds the first contact with a database.
const dbPingTimeout = 15 * time.Second

// sqliteImmediate makes every transaction on SQLite begin with BEGIN
// IMMEDIATE: it takes the write lock at once, waiting for another writer
// (an export and webhooks serve on one file) within the busy timeout. A
// deferred transaction that reads first and writes later fails at once
// with SQLITE_BUSY when another writer committed in between, whatever the
// busy timeout.
const sqliteImmediate = "_txlock=immediate"

// dbOpener opens the database a --db URL names, as openDB does.
type dbOpener = func(ctx context.Context, raw string) (*sql.DB, dbTarget, error)

// openDB opens the database a --db URL names and checks that it answers.
// A URL it cannot read is a usage error; a database that does not answer
// is an error that names the redacted URL. No error holds the password.
func openDB(ctx context.Context, raw string) (*sql.DB, dbTarget, error) {
	t, err := parseDBURL(raw)
	if err != nil {
		return nil, t, usageError{fmt.Errorf("--db: %w", err)}
	}
	if err := createPrivate(t); err != nil {
		return nil, t, fmt.Errorf("database %s: %w", t.Redacted, err)
	}
	db, err := sql.Open(t.Driver, driverDSN(t))
	if err != nil {
		return nil, t, fmt.Errorf("database %s: %s", t.Redacted, cleanDBError(t, err))
	}
	if t.Dialect == dbschema.Postgres {
		db.SetMaxIdleConns(sqldest.ParallelWrites + 1) // the export's connection and its writers'
	}
	pctx, cancel := context.WithTimeout(ctx, dbPingTimeout)
	defer cancel()
	if err := pingDB(pctx, db); err != nil {
		db.Close()
		return nil, t, fmt.Errorf("database %s cannot be reached: %s", t.Redacted, cleanDBError(t, err))
	}
	return db, t, nil
}

// pingDB checks that db answers. Two programs opening a new SQLite file at
// once race to switch it to WAL, in the first connection's pragmas, and
// the one that loses is told SQLITE_BUSY at once, whatever the busy
// timeout: so a busy answer is asked again, until ctx ends. Once the file
// is in WAL mode the pragma takes no lock.
func pingDB(ctx context.Context, db *sql.DB) error {
	for {
		err := db.PingContext(ctx)
		if err == nil || !sqliteBusy(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// sqliteBusy reports whether err is SQLite's SQLITE_BUSY, extended codes
// included: modernc.org/sqlite's errors have a Code() int method.
func sqliteBusy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 5
}

// driverDSN is what the driver of t opens.
func driverDSN(t dbTarget) string {
	if t.Dialect == dbschema.SQLite {
		return t.DSN + "&" + sqliteImmediate
	}
	return t.DSN
}

// createPrivate creates a SQLite database file that does not exist yet,
// empty (which SQLite reads as a new database) and readable by its owner
// only, as the export's files are: SQLite gives the -wal and -shm files it
// creates beside it the same mode. An existing file's mode is left alone.
func createPrivate(t dbTarget) error {
	if t.Dialect != dbschema.SQLite {
		return nil
	}
	path, _, _ := strings.Cut(t.DSN, "?")
	if path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, privateMode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// cleanDBError is err's text with the password of t removed. Drivers may
// quote the connection string.
func cleanDBError(t dbTarget, err error) string {
	msg := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		msg = "no answer within " + dbPingTimeout.String()
	}
	return t.Redact(msg)
}

// dbURL is the database URL: --db's value when given (warning of a
// password in it), EDAPP_EXPORT_DB's otherwise.
func dbURL(stderr io.Writer, env func(string) string, given bool, flag string) string {
	if !given {
		return env("EDAPP_EXPORT_DB")
	}
	warnDBFlag(stderr, given, flag)
	return flag
}

// warnDBFlag warns of a password in --db, when it was given.
func warnDBFlag(stderr io.Writer, given bool, flag string) {
	if given {
		warnPasswordFlag(stderr, "--db", flag, dbPasswordHint)
	}
}

// warnPasswordFlag prints one line on stderr when the URL a flag was given
// on the command line carries a password (user:password@, or a password
// parameter), where ps and the shell's history show it for the whole run.
// The line names the flag and where the password belongs instead, never
// the URL.
func warnPasswordFlag(stderr io.Writer, flag, raw, instead string) {
	u, err := url.Parse(raw)
	if err != nil {
		return // the flag's own check reports it
	}
	_, inUser := u.User.Password()
	if inUser || u.Query().Has("password") {
		fmt.Fprintf(stderr, "edapp: warning: %s carries a password on the command line, where ps and the shell's history show it; use %s instead\n", flag, instead)
	}
}

// Where a password belongs instead of the command line.
const (
	dbPasswordHint    = "EDAPP_EXPORT_DB, or PGPASSWORD or ~/.pgpass for PostgreSQL"
	redisPasswordHint = "EDAPP_REDIS_URL"
)
