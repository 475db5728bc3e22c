package main

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest/fakedata"

	"github.com/edapp-go/edapp/safetyculture/sctest"
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

// A SafetyCulture feed that stops answering: --deadline ends the run with
// an error naming it, the lock is released, and the next run completes.
func TestExportDeadlineEndsAStalledSafetyCultureFeed(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 3)
		sc := sctest.New(t)
		if _, err := fakedata.SeedMigration(sc, srv); err != nil {
			t.Fatal(err)
		}
		var stalled atomic.Bool
		stalled.Store(true)
		stop := make(chan struct{})
		t.Cleanup(func() { close(stop) })
		sc.Handle("GET /feed/groups", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !stalled.Load() {
				_, _ = w.Write([]byte(`{"metadata":{"next_page":null},"data":[{"id":"g1","name":"Warehouse"}]}`))
				return
			}
			select {
			case <-stop:
			case <-r.Context().Done():
			}
		}))
		r := runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url, "--kinds", "groups", "--deadline", "2s")
		wantCode(t, r, exitError)
		if !strings.Contains(r.stderr, "deadline (--deadline 2s) passed") {
			t.Errorf("stderr does not name the deadline:\n%s", r.stderr)
		}
		stalled.Store(false)
		wantCode(t, runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url, "--kinds", "groups"), exitOK)
	})
}
