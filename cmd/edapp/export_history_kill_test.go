package main

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
)

// TestExportHistoryKillLoop kills a re-run that finds changes (users
// renamed and gone, a course renamed, new completions) with SIGKILL at
// random moments, resuming it each time, then lets it finish, and compares
// every history table with an uninterrupted re-run of the same changes
// from the same first run: equal, row for row, once each valid_from and
// valid_to is replaced by the ordinal of the walk that set it.
func TestExportHistoryKillLoop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills processes; skipped in -short")
	}
	users, attempts, kills := 100, 1500, 6
	if raceEnabled {
		users, attempts = 40, 600
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
			p := newEditingProxy(t, srv.Handler())
			e := env{"EDAPP_API_TOKEN": srv.Token, "EDAPP_BASE_URL": p.URL}
			killed, clean := d.url(t), d.url(t)
			for _, url := range []string{killed, clean} {
				wantCode(t, runEnv(t, e, "export", "--db", url, "--concurrency", "2"), exitOK)
			}
			changeAccount(t, srv, p)
			srv.SetLatency(5 * time.Millisecond)
			srv.ResetRequests()
			wantCode(t, runEnv(t, e, "export", "--db", clean, "--concurrency", "2"), exitOK)
			requests := len(srv.Requests())
			historyKillLoop(t, srv, e, killed, kills, requests)
			a, b := historyByOrdinal(t, killed), historyByOrdinal(t, clean)
			for tb := range b {
				if !slices.Equal(a[tb], b[tb]) {
					t.Errorf("%s: killed %d versions, uninterrupted %d", tb, len(a[tb]), len(b[tb]))
				}
			}
			if len(b["users_history"]) <= users || len(b["course_progress_history"]) == 0 {
				t.Errorf("too few versions to compare: %d users, %d course_progress", len(b["users_history"]), len(b["course_progress_history"]))
			}
			compareWithClean(t, killed, clean, "users", "course_progress")
		})
	}
}

// changeAccount renames one user in ten and a course, and deletes one
// user in twenty (in the fake: a proxy that drops a record from a page
// would end the list early).
func changeAccount(t *testing.T, srv *edapptest.Server, p *editingProxy) {
	t.Helper()
	ctx := context.Background()
	var courseID string
	for c, err := range srv.Client().Catalog.AllCourses(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		courseID = c.ID
		break
	}
	one := func(id string, in int) bool {
		h := fnv.New32a()
		h.Write([]byte(id))
		return h.Sum32()%uint32(in) == 0
	}
	var gone []string
	for u, err := range srv.Client().Users.All(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if one(u.ID+"gone", 20) {
			gone = append(gone, u.ID)
		}
	}
	for _, id := range gone {
		if err := srv.Client().Users.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	p.set(func(obj map[string]any) bool {
		id, _ := obj["id"].(string)
		if _, user := obj["firstName"]; user && id != "" && one(id, 10) {
			obj["firstName"] = "Renamed"
		}
		if id == courseID {
			obj["title"] = fmt.Sprint(obj["title"], " (renamed)")
		}
		return true
	})
}

// historyKillLoop runs the child export into dbURL and kills it once the
// fake has answered a random number of requests, kills times or until a
// run ends on its own; then runs it to the end.
func historyKillLoop(t *testing.T, srv *edapptest.Server, e env, dbURL string, kills, requests int) {
	t.Helper()
	args := []string{"--db", dbURL, "--concurrency", "2"}
	for done := 0; done < kills; done++ {
		srv.ResetRequests()
		cmd := childWith(e, killPageSize, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		stop := make(chan struct{})
		select {
		case err := <-exited:
			close(stop)
			if err != nil {
				t.Fatalf("child: %v\n%s", err, cmd.Stdout.(*strings.Builder).String())
			}
			t.Logf("the run after %d kills ended on its own", done)
			return
		case <-afterRequests(requestsOf(srv), 1+rand.IntN(requests), stop):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-exited
		}
		close(stop)
	}
	cmd := childWith(e, killPageSize, args...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("the last run: %v\n%s", err, cmd.Stdout.(*strings.Builder).String())
	}
}

// historyByOrdinal is every history table's rows as text, sorted, with
// each time of valid_from and valid_to replaced by its ordinal among the
// table's times, and without edapp_run (the runs are numbered apart).
func historyByOrdinal(t *testing.T, url string) map[string][]string {
	t.Helper()
	db, _ := openTestDB(t, url)
	out := map[string][]string{}
	for _, h := range historyTables(t) {
		var cols []string
		for _, c := range h.Columns {
			if c.Name != "edapp_run" {
				cols = append(cols, c.Name)
			}
		}
		ordinal := historyTimes(t, db, h.Name)
		for _, r := range rowsOfDB(t, db, `SELECT `+strings.Join(cols, ", ")+` FROM `+h.Name) {
			for i, c := range cols {
				if c == "valid_from" || c == "valid_to" {
					r[i] = fmt.Sprint(ordinal[r[i]])
				}
			}
			out[h.Name] = append(out[h.Name], strings.Join(r, "|"))
		}
		slices.Sort(out[h.Name])
	}
	return out
}

// historyTimes numbers the distinct times of a history table, as text,
// from 1.
func historyTimes(t *testing.T, db *sql.DB, table string) map[string]int {
	t.Helper()
	var times []string
	for _, r := range rowsOfDB(t, db, `SELECT valid_from FROM `+table+` UNION SELECT valid_to FROM `+table+` WHERE valid_to IS NOT NULL`) {
		times = append(times, r[0])
	}
	slices.Sort(times) // text order is time order in both drivers' layouts here
	out := map[string]int{}
	for i, s := range times {
		out[s] = i + 1
	}
	_ = dbschema.SQLite
	return out
}
