package dbtest_test

import (
	"database/sql"
	"testing"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/export/sqldest"
)

// TestMigratedSQLite: each call gives a new file at the latest version,
// with the page size and journal mode SQLiteDSN gives a new database, and
// a change to one copy is not in the other.
func TestMigratedSQLite(t *testing.T) {
	t.Parallel()
	a, b := dbtest.MigratedSQLite(t, sqldest.SQLiteDSN), dbtest.MigratedSQLite(t, sqldest.SQLiteDSN)
	if a == b {
		t.Fatalf("two calls returned the same database %q", a)
	}
	dbA, dbB := dbtest.Open(t, a, sqldest.SQLiteDSN), dbtest.Open(t, b, sqldest.SQLiteDSN)
	wantLatest(t, dbA, dbschema.SQLite)
	var pageSize int
	var journal string
	if err := dbA.QueryRowContext(t.Context(), `SELECT page_size, journal_mode FROM pragma_page_size, pragma_journal_mode`).Scan(&pageSize, &journal); err != nil {
		t.Fatal(err)
	}
	if pageSize != 16384 || journal != "wal" {
		t.Errorf("page size %d, journal mode %q: want 16384 and wal, as SQLiteDSN makes a new file", pageSize, journal)
	}
	wantCopies(t, dbA, dbB)
}

// TestMigratedPostgres: each call gives a new database at the latest
// version, a change to one is not in the other, and a plain Postgres
// database is still empty.
func TestMigratedPostgres(t *testing.T) {
	t.Parallel()
	a, b := dbtest.MigratedPostgres(t), dbtest.MigratedPostgres(t)
	if a == b || !dbtest.IsPostgres(a) {
		t.Fatalf("MigratedPostgres(t) twice = %q, %q: want two PostgreSQL URLs", a, b)
	}
	dbA, dbB := dbtest.Open(t, a, sqldest.SQLiteDSN), dbtest.Open(t, b, sqldest.SQLiteDSN)
	wantLatest(t, dbA, dbschema.Postgres)
	wantCopies(t, dbA, dbB)
	var tables int
	empty := dbtest.Open(t, dbtest.Postgres(t), sqldest.SQLiteDSN)
	if err := empty.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'`).Scan(&tables); err != nil || tables != 0 {
		t.Errorf("Postgres after MigratedPostgres: %d tables (%v), want an empty database", tables, err)
	}
}

// wantLatest checks that db has every migration applied.
func wantLatest(t *testing.T, db *sql.DB, d dbschema.Dialect) {
	t.Helper()
	m := dbschema.NewMigrator(db, d)
	all := dbschema.Migrations()
	v, err := m.Version(t.Context())
	if err != nil || v != all[len(all)-1].Version {
		t.Fatalf("version %d (%v), want the latest, %d", v, err, all[len(all)-1].Version)
	}
	st, err := m.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.AppliedAt.IsZero() {
			t.Errorf("migration %d not applied", s.Version)
		}
	}
}

// wantCopies checks that a change to a's rows is not in b's.
func wantCopies(t *testing.T, a, b *sql.DB) {
	t.Helper()
	if _, err := a.ExecContext(t.Context(), `DELETE FROM edapp_schema`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := b.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM edapp_schema`).Scan(&n); err != nil || n == 0 {
		t.Errorf("the other copy's edapp_schema: %d rows (%v), want its versions", n, err)
	}
}
