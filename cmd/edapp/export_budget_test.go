package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/edapp-go/edapp/cmd/edapp/internal/dbtest"
	"github.com/edapp-go/edapp/edapptest"
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
				r := runExport(t, ctx, srv, func(a *app) {
					a.exportPageSize = 5
					a.exportHook = func(string, int) {
						if len(srv.Requests()) >= 14 {
							cancel()
						}
					}
				}, args...)
				cancel()
				wantCode(t, r, exitError)
				if n, _ := tooMany(srv, 0); n > 0 {
					t.Fatalf("the first run met %d 429s", n)
				}
				if forget {
					forgetBudget(t, dest, where)
				}
				_, from := tooMany(srv, 0)
				r = runExport(t, context.Background(), srv, func(a *app) { a.exportPageSize = 5 }, args...)
				n, total := tooMany(srv, from)
				t.Logf("forget=%v: the first run sent %d requests, the resumed run %d, %d answered 429", forget, from, total-from, n)
				if total-from < 10 {
					t.Fatalf("the resumed run sent %d requests: too few to test the budget", total-from)
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
