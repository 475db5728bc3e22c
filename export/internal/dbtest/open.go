package dbtest

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// IsPostgres reports whether url, one SQLite or Postgres returned, names a
// PostgreSQL database.
func IsPostgres(url string) bool { return strings.HasPrefix(url, "postgres") }

// DSN is the database/sql driver and data source name that Open opens
// url with.
func DSN(url string, sqliteDSN func(path string) string) (driver, dsn string) {
	if path, ok := strings.CutPrefix(url, "sqlite:"); ok {
		return "sqlite", sqliteDSN(path) + "&_txlock=immediate"
	}
	return "pgx", url
}

// Open opens url, one SQLite or Postgres returned, as the edapp command
// opens a --db URL, and closes it when t ends. sqliteDSN makes the SQLite
// data source name from the file's path (sqldest.SQLiteDSN: the pragmas
// the export and the inbox rely on); transactions on SQLite begin
// IMMEDIATE, as the command's do.
func Open(t testing.TB, url string, sqliteDSN func(path string) string) *sql.DB {
	t.Helper()
	db, err := sql.Open(DSN(url, sqliteDSN))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.PingContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}
