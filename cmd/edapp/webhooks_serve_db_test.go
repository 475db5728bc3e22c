package main

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/edapp-go/edapp/export/dbtest"
)

// TestServePostgresGoesAway: while the database refuses connections,
// deliveries get 503 with Retry-After and /healthz 503; once it is back,
// the same delivery is stored.
func TestServePostgresGoesAway(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.Postgres(t)
	in := startInbox(t, dbURL)
	first, _ := lessonDelivery(1)
	if status, _ := in.post(t, http.MethodPost, first, hookSecret); status != 200 {
		t.Fatalf("status %d", status)
	}
	admin, name := adminDB(t, dbURL)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := admin.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`ALTER DATABASE ` + name + ` WITH ALLOW_CONNECTIONS false`)
	exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, name)
	second, _ := lessonDelivery(2)
	status, retry := in.post(t, http.MethodPost, second, hookSecret)
	if status != http.StatusServiceUnavailable || retry == "" {
		t.Errorf("database away: status %d, Retry-After %q", status, retry)
	}
	if h := in.health(t); h != http.StatusServiceUnavailable {
		t.Errorf("database away: /healthz %d", h)
	}
	exec(`ALTER DATABASE ` + name + ` WITH ALLOW_CONNECTIONS true`)
	if status, _ := waitStatus(t, in, second, http.StatusOK); status != http.StatusOK {
		t.Errorf("database back: status %d", status)
	}
	if h := in.health(t); h != http.StatusOK {
		t.Errorf("database back: /healthz %d", h)
	}
	db, _ := openTestDB(t, dbURL)
	if n := countEvents(t, db); n != 2 {
		t.Errorf("%d rows, want 2", n)
	}
}

// adminDB opens the server's postgres database, to act on the test's.
func adminDB(t *testing.T, dbURL string) (*sql.DB, string) {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	db, _ := openTestDB(t, u.String())
	return db, name
}

// TestServeSQLiteLocked: while another program holds SQLite's write lock
// past the write timeout, a delivery gets 503; once it lets go, the
// delivery is stored.
func TestServeSQLiteLocked(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.SQLite(t)
	in := startInbox(t, dbURL)
	db, _ := openTestDB(t, dbURL)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	body, _ := lessonDelivery(1)
	status, retry := in.post(t, http.MethodPost, body, hookSecret)
	if status != http.StatusServiceUnavailable || retry == "" {
		t.Errorf("locked: status %d, Retry-After %q", status, retry)
	}
	if _, err := conn.ExecContext(context.Background(), `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if status, _ := waitStatus(t, in, body, http.StatusOK); status != http.StatusOK {
		t.Errorf("unlocked: status %d", status)
	}
	if n := countEvents(t, db); n != 1 {
		t.Errorf("%d rows, want 1", n)
	}
}

// TestServeAndExportShareSQLite: an export and webhooks serve write one
// SQLite file while deliveries arrive. The export never fails for the
// lock (it waits its turn), no delivery is answered 500 (one that waits
// past the bound gets 503 with Retry-After), and every delivery answered
// 200 is stored.
func TestServeAndExportShareSQLite(t *testing.T) {
	t.Parallel() // a delivery answered 503 is never committed, under any load
	dbURL := dbtest.SQLite(t)
	srv, _ := exportFixture(t, 300)
	in := startInbox(t, dbURL)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	var stored []string
	const senders = 8
	for w := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ; i += senders {
				select {
				case <-stop:
					return
				default:
				}
				body, key := lessonDelivery(i)
				status, retry := in.post(t, http.MethodPost, body, hookSecret)
				mu.Lock()
				statuses[status]++
				if status == http.StatusOK {
					stored = append(stored, key)
				}
				mu.Unlock()
				if status == http.StatusServiceUnavailable && retry == "" {
					t.Error("503 without Retry-After")
				}
			}
		}()
	}
	runs := 20
	if raceEnabled {
		runs = 6 // the detector slows SQLite tenfold; six runs still meet the deliveries
	}
	for i := range runs { // each takes the export's lock, and rewrites every table it mirrors
		args := []string{"--db", dbURL, "--kinds", "users,groups,group_members"}
		if i == 0 {
			args = args[:2]
		}
		r := runExport(t, context.Background(), srv, func(f *factory) { withPageSize(f, 20) }, args...)
		if r.code != exitOK {
			t.Errorf("export beside the inbox: exit %d\n%s", r.code, r.stderr)
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("answers: %v", statuses)
	if statuses[http.StatusInternalServerError] > 0 || statuses[http.StatusOK] == 0 {
		t.Errorf("answers %v: want 200s, and no 500", statuses)
	}
	db, _ := openTestDB(t, dbURL)
	if n := countEvents(t, db); n != len(stored) {
		t.Errorf("%d events stored, %d deliveries answered 200", n, len(stored))
	}
}
