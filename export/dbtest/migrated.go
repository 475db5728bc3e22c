package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/edapp-go/edapp/export/dbschema"
)

// Bringing a new database to the schema's latest version runs every
// migration, hundreds of statements; SQLite re-reads its whole schema
// after each one. A test binary does it once per database kind and gives
// each test a copy: SQLite's file, or a PostgreSQL database created from
// the migrated one as its template.

// MigratedSQLite returns the URL of a new SQLite database, a file in t's
// temporary directory, with the schema at its latest version: a copy of a
// database that the test binary migrated once, opened through sqliteDSN
// (pass sqldest.SQLiteDSN, as to [Open]) so that it has the page size and
// journal mode a new export database gets. The test binary migrates that
// database on the first call, through that call's sqliteDSN: every call
// copies it, whatever function it passes.
func MigratedSQLite(t testing.TB, sqliteDSN func(path string) string) string {
	t.Helper()
	sqliteTemplate.once.Do(func() { sqliteTemplate.file, sqliteTemplate.err = migrateSQLite(sqliteDSN) })
	if sqliteTemplate.err != nil {
		t.Fatalf("dbtest: migrate a SQLite database: %v", sqliteTemplate.err)
	}
	path := filepath.Join(t.TempDir(), "edapp.db")
	if err := os.WriteFile(path, sqliteTemplate.file, 0o600); err != nil {
		t.Fatal(err)
	}
	return "sqlite:" + path
}

// sqliteTemplate is the migrated SQLite file's content.
var sqliteTemplate struct {
	once sync.Once
	file []byte
	err  error
}

// migrateSQLite migrates a new SQLite file and returns its content, read
// after the last connection closed it (which checkpoints its WAL into it).
func migrateSQLite(sqliteDSN func(path string) string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "edapp-sqlite-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "edapp.db")
	driver, dsn := DSN("sqlite:"+path, sqliteDSN)
	if err := migrate(driver, dsn, dbschema.SQLite); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// MigratedPostgres returns the URL of a new database on the test
// binary's PostgreSQL server, as [Postgres] does, with the schema at its
// latest version: created from a database that the test binary migrated
// once, as its template.
func MigratedPostgres(t testing.TB) string {
	t.Helper()
	shared.once.Do(func() { shared.server, shared.err = start() })
	if shared.err != nil {
		skipNoServer(t, shared.err)
	}
	s := shared.server
	s.template.once.Do(func() { s.template.err = s.migrateTemplate() })
	if s.template.err != nil {
		t.Fatalf("dbtest: migrate a PostgreSQL database: %v", s.template.err)
	}
	return s.create(t, " TEMPLATE "+templateName)
}

// templateName is the migrated database that MigratedPostgres copies.
const templateName = "edapp_test_migrated"

// migrateTemplate creates and migrates the server's template database.
func (s *Server) migrateTemplate() error {
	if err := s.exec("CREATE DATABASE " + templateName); err != nil {
		return err
	}
	return migrate("pgx", s.url(templateName), dbschema.Postgres)
}

// migrate opens driver's dsn, brings it to the latest version and closes
// it.
func migrate(driver, dsn string, d dbschema.Dialect) error {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return err
	}
	if err := dbschema.NewMigrator(db, d).Up(context.Background()); err != nil {
		db.Close()
		return fmt.Errorf("up: %w", err)
	}
	return db.Close()
}
