package main

import (
	"context"
	"slices"
	"testing"

	"github.com/edapp-go/edapp/cmd/edapp/internal/dbtest"
)

// meetTriggers makes the first write into each table wait, for up to 5 s,
// until a transaction writing the other table is open too, and note in
// the table meet that it saw one: each writer holds an advisory lock of
// its own for its transaction, and looks for the other's; the first to
// see the other stays open a moment, for the other to see it. Writes made
// one at a time never meet.
const meetTriggers = `
CREATE TABLE meet (tbl text);
CREATE FUNCTION meet() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  me bigint := CASE WHEN TG_TABLE_NAME = 'users' THEN 7101 ELSE 7102 END;
  other bigint := CASE WHEN TG_TABLE_NAME = 'users' THEN 7102 ELSE 7101 END;
BEGIN
  PERFORM pg_advisory_xact_lock(me);
  FOR i IN 1..100 LOOP
    IF EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = other AND pid <> pg_backend_pid()) THEN
      INSERT INTO meet VALUES (TG_TABLE_NAME);
      PERFORM pg_sleep(0.3); -- for the other, which looks every 50 ms, to see this one
      RETURN NULL;
    END IF;
    PERFORM pg_sleep(0.05);
  END LOOP;
  RETURN NULL;
END $$;
CREATE TRIGGER meet AFTER INSERT ON users FOR EACH STATEMENT EXECUTE FUNCTION meet();
CREATE TRIGGER meet AFTER INSERT ON groups FOR EACH STATEMENT EXECUTE FUNCTION meet();`

// TestExportDBWritesKindsInParallelOnPostgres: on PostgreSQL the groups
// of two kinds are written at once, each in a transaction of its own
// connection (both see the other's open), and the export completes with
// every row.
func TestExportDBWritesKindsInParallelOnPostgres(t *testing.T) {
	t.Parallel()
	url := dbtest.Postgres(t)
	srv, _ := exportFixture(t, 20)
	db, _ := migratedTestDB(t, url)
	if _, err := db.Exec(meetTriggers); err != nil {
		t.Fatal(err)
	}
	r := runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users,groups")
	wantCode(t, r, exitOK)
	met := rowIDs(t, db, `SELECT DISTINCT tbl FROM meet ORDER BY tbl`)
	if !slices.Equal(met, []string{"groups", "users"}) {
		t.Errorf("writers that saw the other's transaction open: %q, want groups and users", met)
	}
	var users int
	if err := db.QueryRow(`SELECT COUNT(*) FROM users`).Scan(&users); err != nil || users < 20 {
		t.Errorf("%d users (%v), want the fixture's", users, err)
	}
}
