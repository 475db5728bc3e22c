package sqldest

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/dbtest"
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

// TestDatabaseWritesKindsInParallelOnPostgres: on PostgreSQL the groups
// of two kinds are written at once, each in a transaction of its own
// connection (both see the other's open), and the export completes with
// every row.
func TestDatabaseWritesKindsInParallelOnPostgres(t *testing.T) {
	t.Parallel()
	url := dbtest.Postgres(t)
	srv, _ := exportFixture(t, 20)
	db, _ := migratedTestDB(t, url)
	if _, err := db.Exec(meetTriggers); err != nil {
		t.Fatal(err)
	}
	if err := runDBExport(t, context.Background(), srv, url, kinds("users", "groups")); err != nil {
		t.Fatal(err)
	}
	met := column(t, db, `SELECT DISTINCT tbl FROM meet ORDER BY tbl`)
	if !slices.Equal(met, []string{"groups", "users"}) {
		t.Errorf("writers that saw the other's transaction open: %q, want groups and users", met)
	}
	var users int
	if err := db.QueryRow(`SELECT COUNT(*) FROM users`).Scan(&users); err != nil || users < 20 {
		t.Errorf("%d users (%v), want the fixture's", users, err)
	}
}

// TestDatabaseWritersStopWhenTheLockIsTaken ends the session holding a
// PostgreSQL export's lock while its writers' connections live on, and
// takes the lock as it is freed, as another export would: the first
// export writes nothing more (each writer's transaction shows the lock
// still held by its export first), and stops saying another export took
// the database.
func TestDatabaseWritersStopWhenTheLockIsTaken(t *testing.T) {
	t.Parallel()
	url := dbtest.Postgres(t)
	db, _ := migratedTestDB(t, url)
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	if err := fakedata.SeedAccount(srv, fakedata.AccountSpec{Users: 40, Attempts: 2000}); err != nil {
		t.Fatal(err)
	}
	srv.SetLatency(50 * time.Millisecond)
	first := make(chan error, 1)
	go func() {
		first <- runDBExport(t, context.Background(), srv, url, smallPages, concurrency(2))
	}()
	stop := make(chan struct{})
	defer close(stop)
	<-afterRequests(srv, 10, stop)

	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	owner := exportLockHolder(t, db)
	takeLockWhenFreed(t, db, conn, edappExportLock, func() {
		if _, err := db.Exec(`SELECT pg_terminate_backend($1)`, owner); err != nil {
			t.Fatal(err)
		}
	})
	// The writers' transactions under way when the lock was freed end.
	waitRows(t, db, 0, `SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND mode = 'ShareLock'`)
	rows := snapshot(t, db)

	err = <-first
	if err == nil || !strings.Contains(err.Error(), "another export") {
		t.Errorf("the first export's error does not say another export took the database:\n%v", err)
	}
	if !maps.EqualFunc(rows, snapshot(t, db), slices.Equal) {
		t.Error("the first export wrote after the database was taken")
	}
}

// edappExportLock is the advisory lock an export of EdApp holds on
// PostgreSQL: its key spells "edapp-ex".
const edappExportLock = 0x65646170702d6578

// exportLockHolder is the server process of the session holding the
// EdApp export's lock in db's database.
func exportLockHolder(t *testing.T, db *sql.DB) (pid int64) {
	t.Helper()
	err := db.QueryRow(`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
AND ((classid::bigint << 32) | objid::bigint) = $1
AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`, int64(edappExportLock)).Scan(&pid)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// takeLockWhenFreed queues conn for the advisory lock key, runs free, and
// returns once conn holds the lock: PostgreSQL grants a freed lock to the
// sessions waiting for it before any that asks later.
func takeLockWhenFreed(t *testing.T, db *sql.DB, conn *sql.Conn, key int64, free func()) {
	t.Helper()
	var pid int64
	if err := conn.QueryRowContext(context.Background(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	taken := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	go func() {
		_, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, key)
		taken <- err
	}()
	waitRows(t, db, 1, `SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = $1`, pid)
	var granted bool
	if err := db.QueryRow(`SELECT granted FROM pg_locks WHERE locktype = 'advisory' AND pid = $1`, pid).Scan(&granted); err != nil || granted {
		t.Fatalf("the lock was free before its holder was ended (%v)", err)
	}
	free()
	if err := <-taken; err != nil {
		t.Fatalf("the lock was not taken within a minute of its holder's end: %v", err)
	}
}

// waitRows waits, for up to a minute, until query's count is want.
func waitRows(t *testing.T, db *sql.DB, want int, query string, args ...any) {
	t.Helper()
	for range 600 {
		var n int
		if err := db.QueryRow(query, args...).Scan(&n); err == nil && n == want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not %d within a minute", query, want)
}

// napTrigger makes the first statement that inserts into users sleep 3 s
// in its transaction.
const napTrigger = `
CREATE TABLE napped (n int);
CREATE FUNCTION nap() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM napped) THEN
    INSERT INTO napped VALUES (1);
    PERFORM pg_sleep(3);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER nap AFTER INSERT ON users FOR EACH STATEMENT EXECUTE FUNCTION nap();`

// TestOpenDatabaseWaitsForALostExportsWriters ends the session holding a
// PostgreSQL export's lock while one of its writers is in the middle of a
// transaction, out of the export's reach to take the lock again: an
// export that then opens the database waits for that transaction to end
// before it goes on, so nothing of the first export lands after.
func TestOpenDatabaseWaitsForALostExportsWriters(t *testing.T) {
	t.Parallel()
	url := dbtest.Postgres(t)
	db, d := migratedTestDB(t, url)
	if _, err := db.Exec(napTrigger); err != nil {
		t.Fatal(err)
	}
	proxied := startPGProxy(t, url)
	srv, _ := exportFixture(t, 20)
	first := make(chan error, 1)
	go func() { first <- runDBExport(t, context.Background(), srv, proxied.url, noReconnect) }()
	waitRows(t, db, 1, `SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()`)

	proxied.shut.Store(true) // the connections it has stay; it gets no new one
	owner := exportLockHolder(t, db)
	if _, err := db.Exec(`SELECT pg_terminate_backend($1)`, owner); err != nil {
		t.Fatal(err)
	}
	second, err := OpenDatabase(context.Background(), db, d, WithLockWait(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	rows := snapshot(t, db)
	if err := <-first; err == nil {
		t.Error("the first export succeeded after its lock was lost")
	}
	if !maps.EqualFunc(rows, snapshot(t, db), slices.Equal) {
		t.Error("the first export's writer committed after the second export opened the database")
	}
}

// column is the first column of query's rows, as text.
func column(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}
