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
	"path/filepath"
	"strings"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/sqldest"
)

// readOnlyDB is a database the move report reads: q is a read-only
// transaction on PostgreSQL, the connection itself on SQLite (opened
// mode=ro).
type readOnlyDB struct {
	db     *sql.DB
	tx     *sql.Tx
	q      sqldest.Querier
	target dbTarget
}

func (r *readOnlyDB) close() {
	if r.tx != nil {
		_ = r.tx.Rollback()
	}
	r.db.Close()
}

// openReadOnly opens the database a --db URL names for reading only: no
// file is created, no pragma writes, no migration runs. A SQLite file
// that does not exist is an error naming it (exit 2). A SQLite database
// that cannot be opened read-only and has no -wal or -shm file beside it
// (one in a directory this user cannot write, where SQLite cannot create
// the shared-memory file WAL reading needs) is opened immutable, which it
// says on warn.
func openReadOnly(ctx context.Context, raw string, warn io.Writer) (*readOnlyDB, error) {
	t, err := parseDBURL(raw)
	if err != nil {
		return nil, usageError{fmt.Errorf("--db: %w", err)}
	}
	if t.Dialect == dbschema.Postgres {
		return openPostgresReadOnly(ctx, t)
	}
	path, _, _ := strings.Cut(t.DSN, "?")
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, refusedError{fmt.Errorf("database %s does not exist: give the file an export wrote", t.Redacted)}
		}
		return nil, fmt.Errorf("database %s: %w", t.Redacted, err)
	}
	db, err := openSQLiteReadOnly(ctx, path, false)
	if err != nil && noWALFiles(path) {
		// In WAL mode a reader needs the -shm file, which SQLite cannot
		// create in a directory this user cannot write.
		if db, err = openSQLiteReadOnly(ctx, path, true); err == nil {
			fmt.Fprintf(warn, "edapp: %s could not be opened read-only as it is (a directory this user cannot write?): reading it as immutable, which assumes nothing writes it meanwhile\n", t.Redacted)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("database %s cannot be read: %s", t.Redacted, cleanDBError(t, err))
	}
	return &readOnlyDB{db: db, q: db, target: t}, nil
}

// openSQLiteReadOnly opens path read-only and reads its schema once.
func openSQLiteReadOnly(ctx context.Context, path string, immutable bool) (*sql.DB, error) {
	db, err := sql.Open("sqlite", sqliteReadOnlyDSN(path, immutable))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master`).Scan(&n); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// noWALFiles reports whether path has neither a -wal nor a -shm file.
func noWALFiles(path string) bool {
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + suffix); err == nil {
			return false
		}
	}
	return true
}

// sqliteReadOnlyDSN opens path as a URI with mode=ro (immutable=1 too
// when asked), with pragmas that write nothing: a busy timeout, and
// query_only as a second guard.
func sqliteReadOnlyDSN(path string, immutable bool) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	q := "mode=ro&_pragma=busy_timeout(10000)&_pragma=query_only(1)"
	if immutable {
		q += "&immutable=1"
	}
	return u.String() + "?" + q
}

// openPostgresReadOnly connects and begins a READ ONLY transaction that
// the report's reads run in.
func openPostgresReadOnly(ctx context.Context, t dbTarget) (*readOnlyDB, error) {
	db, err := sql.Open(t.Driver, t.DSN)
	if err != nil {
		return nil, fmt.Errorf("database %s: %s", t.Redacted, cleanDBError(t, err))
	}
	pctx, cancel := context.WithTimeout(ctx, dbPingTimeout)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("database %s cannot be reached: %s", t.Redacted, cleanDBError(t, err))
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("database %s: %s", t.Redacted, cleanDBError(t, err))
	}
	return &readOnlyDB{db: db, tx: tx, q: tx, target: t}, nil
}
