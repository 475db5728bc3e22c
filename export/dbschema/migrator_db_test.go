package dbschema_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/internal/dbwrite"
)

// latestVersion is the schema version of the last migration.
func latestVersion() int {
	ms := dbschema.Migrations()
	return ms[len(ms)-1].Version
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, dialect := openTestDB(t, url)
		// Concurrent first runs: one creates, the others find it done.
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = dbschema.NewMigrator(db, dialect).Up(ctx)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := dbschema.NewMigrator(db, dialect).Up(ctx); err != nil {
			t.Fatalf("second Migrate: %v", err)
		}
		var n, v int
		if err := db.QueryRow(`SELECT COUNT(*), MAX(version) FROM edapp_schema`).Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		if n != latestVersion() || v != latestVersion() {
			t.Errorf("edapp_schema: %d rows, version %d; want %d", n, v, latestVersion())
		}
		for _, tb := range dbschema.Tables() {
			if _, err := db.Exec(`SELECT COUNT(*) FROM ` + tb.Name); err != nil {
				t.Errorf("table %s: %v", tb.Name, err)
			}
		}
	})
}

// TestMigrateWaitsForTheWriteLock: on SQLite a migration waits for
// another program's write lock past its connection's busy timeout (here
// 50 ms), as it would for that program's migration of a big file.
func TestMigrateWaitsForTheWriteLock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "edapp.db")
	open := func() *sql.DB {
		db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(50)&_journal_mode=WAL")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	ctx := context.Background()
	other, err := open().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	released := make(chan error, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		_, err := other.ExecContext(ctx, "COMMIT")
		released <- err
	}()
	if err := dbschema.NewMigrator(open(), dbschema.SQLite).Up(ctx); err != nil {
		t.Fatalf("Migrate while another connection held the lock for 500 ms: %v", err)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, dialect := openTestDB(t, url)
		if err := dbschema.NewMigrator(db, dialect).Up(ctx); err != nil {
			t.Fatal(err)
		}
		q := dbwrite.Rebind(dialect, `INSERT INTO edapp_schema (version, name, applied_at) VALUES (?, 'from the future', ?)`)
		if _, err := db.Exec(q, latestVersion()+1, "2030-01-01T00:00:00.000000Z"); err != nil {
			t.Fatal(err)
		}
		err := dbschema.NewMigrator(db, dialect).Up(ctx)
		if !errors.Is(err, dbschema.ErrTooNew) {
			t.Fatalf("Migrate on a newer schema: %v, want ErrTooNew", err)
		}
	})
}
