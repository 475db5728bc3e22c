package main

import (
	"strings"
	"testing"
	"time"
)

// A stalled service meets --deadline: the run ends with an error that
// says so, the database's lock is released, and the next run completes.
func TestExportDeadlineEndsAStalledRun(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 1)
		srv.SetLatency(time.Hour)
		r := runFake(t, srv, "export", "--db", url, "--kinds", "users", "--deadline", "1s")
		wantCode(t, r, exitError)
		if !strings.Contains(r.stderr, "deadline (--deadline 1s) passed") {
			t.Errorf("stderr does not name the deadline:\n%s", r.stderr)
		}
		srv.SetLatency(0)
		wantCode(t, runFake(t, srv, "export", "--db", url, "--kinds", "users", "--deadline", "1m"), exitOK)
		db, _ := openTestDB(t, url)
		if n := dbCounts(t, db, []string{"users"})["users"]; n == 0 {
			t.Error("the run after the deadline exported no users")
		}
	})
}

func TestExportDeadlineRejectsNegative(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 1)
	r := runFake(t, srv, "export", "--db", "sqlite:x.db", "--deadline", "-1s")
	wantCode(t, r, exitUsage)
}
