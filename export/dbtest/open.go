package dbtest

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// IsPostgres reports whether url, from [SQLite] or [Postgres], names a
// PostgreSQL database.
func IsPostgres(url string) bool { return strings.HasPrefix(url, "postgres") }

// DSN returns the database/sql driver name and data source name that
// [Open] opens url with: "pgx" and url itself for PostgreSQL; "sqlite"
// and sqliteDSN of the file's path for SQLite, with transactions that
// begin IMMEDIATE, as the edapp command's do.
func DSN(url string, sqliteDSN func(path string) string) (driver, dsn string) {
	if path, ok := strings.CutPrefix(url, "sqlite:"); ok {
		return "sqlite", sqliteDSN(path) + "&_txlock=immediate"
	}
	return "pgx", url
}

// Open opens url, from [SQLite] or [Postgres], as the edapp command opens
// its --db URL, checks that the database answers, and closes it when t
// ends. sqliteDSN makes the SQLite data source name from the file's path:
// pass sqldest.SQLiteDSN, the pragmas the export and the webhook inbox
// rely on.
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
