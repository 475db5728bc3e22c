package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/export/dbtest"
)

// tooMany counts the 429s among the fake's requests from the from'th on.
func tooMany(srv *edapptest.Server, from int) (n, total int) {
	reqs := srv.Requests()
	for _, r := range reqs[min(from, len(reqs)):] {
		if r.Status == http.StatusTooManyRequests {
			n++
		}
	}
	return n, len(reqs)
}

// TestExportResumeCountsTheBudgetSpent: an export interrupted after
// spending most of a window's budget saves what it spent (in the state
// file, or in the database), and the run resumed at once counts it: the
// fake, enforcing the same budget, answers it no 429. The same resumed
// run without what was saved meets 429s, so the saved budget is what
// keeps it within.
func TestExportResumeCountsTheBudgetSpent(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the budget's window")
	}
	for _, dest := range []string{"out", "db"} {
		t.Run(dest, func(t *testing.T) {
			t.Parallel()
			for _, forget := range []bool{false, true} {
				// 40 users with attempts, some 35 requests at 5 records a page,
				// and a budget of 20 requests in any 3 s.
				srv, _ := exportFixture(t, 40, edapptest.WithBudget(20, 3*time.Second))
				args := []string{"--kinds", "users,attempts", "--budget", "20/3s", "--concurrency", "2"}
				var where string
				if dest == "out" {
					where = t.TempDir()
					args = append(args, "--out", where)
				} else {
					where = dbtest.SQLite(t)
					args = append(args, "--db", where)
				}
				ctx, cancel := context.WithCancel(context.Background())
				r := runExport(t, ctx, srv, func(f *factory) {
					withPageSize(f, 5)
					onRecords(f, func(string, int) {
						if len(srv.Requests()) >= 14 {
							cancel()
						}
					})
				}, args...)
				cancel()
				first := r.stderr
				wantCode(t, r, exitError)
				if n, _ := tooMany(srv, 0); n > 0 {
					t.Fatalf("the first run met %d 429s", n)
				}
				if forget {
					forgetBudget(t, dest, where)
				}
				_, from := tooMany(srv, 0)
				r = runExport(t, context.Background(), srv, func(f *factory) { withPageSize(f, 5) }, args...)
				n, total := tooMany(srv, from)
				t.Logf("forget=%v: the first run sent %d requests, the resumed run %d, %d answered 429", forget, from, total-from, n)
				if total-from < 10 {
					t.Fatalf("the resumed run sent %d requests: too few to test the budget\nfirst stderr: %s\nresumed: code %d stderr %s", total-from, first, r.code, r.stderr)
				}
				switch {
				case !forget && n > 0:
					t.Errorf("the resumed run met %d 429s\n%s", n, r.stderr)
				case forget && n == 0:
					t.Errorf("without the saved budget the resumed run met no 429: the test cannot fail")
				}
				wantCode(t, r, exitOK) // a 429 is waited out, never a failed kind
			}
		})
	}
}

// forgetBudget removes what the interrupted run saved of the budget.
func forgetBudget(t *testing.T, dest, where string) {
	t.Helper()
	if dest == "db" {
		db, _ := openTestDB(t, where)
		if _, err := db.Exec(`DELETE FROM edapp_export_budget`); err != nil {
			t.Fatal(err)
		}
		return
	}
	p := filepath.Join(where, ".edapp-export.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b = regexp.MustCompile(`(?s),\s*"budget": \[.*?\]`).ReplaceAll(b, nil)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExportBudgetSurvivesKill: the budget spent is saved while the
// export runs, not only when it exits: after kill -9, the state file holds
// the start times of requests the killed process sent, which the next run
// counts, and that run completes.
func TestExportBudgetSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a process; skipped in -short")
	}
	srv, _ := exportFixture(t, 40)
	// 20 requests take 2 s: the budget is saved with each group written,
	// and a group is written within a second.
	srv.SetLatency(100 * time.Millisecond)
	dir := t.TempDir()
	args := []string{"--out", dir, "--kinds", "users,attempts", "--budget", "1000/1m", "--concurrency", "1"}
	start := time.Now()
	cmd := exportChild(srv, 5, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := make(chan struct{})
	defer close(stop)
	select {
	case err := <-exited:
		t.Fatalf("the export ended before the kill: %v\n%s", err, cmd.Stdout)
	case <-afterRequests(requestsOf(srv), 20, stop):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-exited
	}
	sent := len(srv.Requests())
	saved := loadBudget(t, dir)
	if len(saved) == 0 || len(saved) > sent {
		t.Fatalf("the killed export saved %d admissions; it sent %d requests", len(saved), sent)
	}
	for _, at := range saved {
		if at.Before(start.Add(-time.Second)) || at.After(time.Now()) {
			t.Errorf("saved admission %v, not during the run", at)
		}
	}
	r := runExport(t, context.Background(), srv, func(f *factory) { withPageSize(f, 5) }, args...)
	wantCode(t, r, exitOK)
	// The next run counted them: they are among what it saved in turn.
	after := loadBudget(t, dir)
	for _, at := range saved {
		if !slices.ContainsFunc(after, at.Equal) {
			t.Errorf("the resumed run did not count %v (it saved %d admissions)", at, len(after))
		}
	}
}

// loadBudget reads the budget an export saved in its state file.
func loadBudget(t *testing.T, dir string) []time.Time {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".edapp-export.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct{ Budget []time.Time }
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st.Budget
}
