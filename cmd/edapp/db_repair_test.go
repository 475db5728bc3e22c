package main

import (
	"context"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/export/dbschema"
)

// TestDBRepair: Up leaves a table dropped by hand missing (and says the
// schema is current); `edapp db repair` re-creates it empty, with the
// views dropped with it, and names it; a second repair finds nothing to
// do.
func TestDBRepair(t *testing.T) {
	t.Parallel()
	bothEmptyDBs(t, func(t *testing.T, url string) {
		ctx := context.Background()
		r := runEnv(t, env{}, "db", "repair", "--db", url)
		wantCode(t, r, exitOK)
		if !strings.Contains(r.stdout, "nothing to repair") {
			t.Errorf("repair of a new database: %q, want nothing to repair", r.stdout)
		}
		db, d := openTestDB(t, url)
		cascade := "" // PostgreSQL drops the views that read the table with it
		if d == dbschema.Postgres {
			cascade = " CASCADE"
		}
		for _, tb := range []string{"users", "events"} {
			if _, err := db.Exec(`DROP TABLE ` + tb + cascade); err != nil {
				t.Fatal(err)
			}
		}
		m := dbschema.NewMigrator(db, d)
		if err := m.Up(ctx); err != nil {
			t.Fatal(err)
		}
		if v, err := m.Version(ctx); err != nil || v != latestVersion() {
			t.Errorf("Version after Up = %d, %v; want %d", v, err, latestVersion())
		}
		if _, err := db.Exec(`SELECT COUNT(*) FROM users`); err == nil {
			t.Fatal("Up re-created the table dropped by hand")
		}
		r = runEnv(t, env{}, "db", "repair", "--db", url)
		wantCode(t, r, exitOK)
		if !strings.Contains(r.stdout, "re-created 2 table(s), empty: users, events") {
			t.Errorf("repair said %q, want it to name users and events", r.stdout)
		}
		for _, q := range []string{`SELECT COUNT(*) FROM users`, `SELECT COUNT(*) FROM events`, `SELECT COUNT(*) FROM training_completions`} {
			if _, err := db.Exec(q); err != nil {
				t.Errorf("after repair, %s: %v", q, err)
			}
		}
		r = runEnv(t, env{}, "db", "repair", "--db", url)
		wantCode(t, r, exitOK)
		if !strings.Contains(r.stdout, "nothing to repair") {
			t.Errorf("a second repair: %q, want nothing to repair", r.stdout)
		}
	})
}

// TestDBRepairUsage: repair needs --db (or EDAPP_EXPORT_DB), and its help
// says what it does.
func TestDBRepairUsage(t *testing.T) {
	t.Parallel()
	wantCode(t, runEnv(t, env{}, "db", "repair"), exitUsage)
	r := runEnv(t, env{}, "db", "repair", "--help")
	wantCode(t, r, exitOK)
	for _, want := range []string{"re-creates, empty, each table", "edapp db repair --db sqlite:edapp.db"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestMigratorStatus: Status lists every migration, each applied to a
// migrated database and none to a new one, and Version reads 0 from a
// new database without creating anything.
func TestMigratorStatus(t *testing.T) {
	t.Parallel()
	bothEmptyDBs(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, d := openTestDB(t, url)
		m := dbschema.NewMigrator(db, d)
		if v, err := m.Version(ctx); err != nil || v != 0 {
			t.Fatalf("Version of a new database = %d, %v", v, err)
		}
		st, err := m.Status(ctx)
		if err != nil || len(st) != latestVersion() || !st[0].AppliedAt.IsZero() {
			t.Fatalf("Status of a new database = %+v, %v", st, err)
		}
		if err := m.Up(ctx); err != nil {
			t.Fatal(err)
		}
		if st, err = m.Status(ctx); err != nil {
			t.Fatal(err)
		}
		for i, s := range st {
			if s.Version != i+1 || s.Name != dbschema.Migrations()[i].Name || s.AppliedAt.IsZero() {
				t.Errorf("Status[%d] = %+v after Up", i, s)
			}
		}
	})
}

// TestNewCmdDBRepairFlags: --db beats EDAPP_EXPORT_DB, and without
// either the run is not reached.
func TestNewCmdDBRepairFlags(t *testing.T) {
	t.Parallel()
	f := newTestFactory(env{"EDAPP_EXPORT_DB": "sqlite:env.db"})
	var got *dbRepairOptions
	runF := func(o *dbRepairOptions) error { got = o; return nil }
	if err := execute(newCmdDBRepair(f, runF)); err != nil || got.db != "sqlite:env.db" {
		t.Errorf("EDAPP_EXPORT_DB: %v, %+v", err, got)
	}
	if err := execute(newCmdDBRepair(f, runF), "--db", "sqlite:flag.db"); err != nil || got.db != "sqlite:flag.db" {
		t.Errorf("--db: %v, %+v", err, got)
	}
	got = nil
	wantUsage(t, execute(newCmdDBRepair(newTestFactory(env{}), runF)), nil)
	if got != nil {
		t.Error("a repair without --db or EDAPP_EXPORT_DB reached the run")
	}
}
