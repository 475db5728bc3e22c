package main

import (
	"context"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// TestSafetyCultureExportDBKillLoop is TestExportDBKillLoop for --source
// safetyculture: the export of the migrated copy of an EdApp account is
// killed with SIGKILL at random moments, at least 10 times, then let
// finish, and every table equals a clean export's, row for row. The
// attempts walk has pages of 40, so kills land inside it.
func TestSafetyCultureExportDBKillLoop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills processes; skipped in -short")
	}
	kills, users, attempts := 10, 100, 2000
	if raceEnabled {
		users, attempts = 40, 800
	}
	for _, d := range []struct {
		name string
		url  func(testing.TB) string
	}{{"sqlite", dbtest.SQLite}, {"postgres", dbtest.Postgres}} {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			srv := edapptest.New(t)
			t.Cleanup(srv.Close)
			if err := fakedata.SeedAccount(srv, fakedata.AccountSpec{Users: users, Attempts: attempts}); err != nil {
				t.Fatal(err)
			}
			sc := sctest.New(t, sctest.WithLatency(10*time.Millisecond))
			if _, err := fakedata.SeedMigration(sc, srv); err != nil {
				t.Fatal(err)
			}
			dbURL := d.url(t)
			clean := cleanDBLike(t, dbURL)
			k := scKillTarget(sc)
			wantCode(t, runExportEnv(context.Background(), scEnv(sc), func(f *factory) { withPageSize(f, killPageSize) },
				"--source", "safetyculture", "--db", clean, "--concurrency", "2"), exitOK)
			requests := k.sent()
			killLoop(t, k, dbURL, kills, requests)
			compareWithClean(t, dbURL, clean, "users", "attempts", "course_progress", "group_members", "lessons")
		})
	}
}

// scKillTarget is the kill loop's target for --source safetyculture. The
// fake keeps no request log to check resumed pages against: the tables'
// equality with a clean export is the check.
func scKillTarget(sc *sctest.Server) killTarget {
	var base atomic.Int64 // read by the last loop's afterRequests, which may still be polling
	sent := func() int {
		n := 0
		for _, c := range sc.RequestCounts() {
			n += c
		}
		return n
	}
	return killTarget{
		sent:  func() int { return sent() - int(base.Load()) },
		reset: func() { base.Store(int64(sent())) },
		child: func(dbURL string, full bool) *exec.Cmd {
			args := []string{"--source", "safetyculture", "--db", dbURL, "--concurrency", "2"}
			if full {
				args = append(args, "--full")
			}
			return childWith(scEnv(sc), killPageSize, args...)
		},
		resumed: func(t *testing.T, dbURL string) (int, func()) { return walksLeft(t, dbURL), func() {} },
	}
}

// walksLeft counts the walks with committed pages an interrupted run
// left in the database.
func walksLeft(t *testing.T, dbURL string) int {
	t.Helper()
	db, _, err := openDB(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM edapp_export_kinds WHERE walk_run IS NOT NULL AND walk_pages > 0`).Scan(&n); err != nil {
		if strings.Contains(err.Error(), "edapp_export_kinds") {
			return 0 // not created yet
		}
		t.Fatal(err)
	}
	return n
}
