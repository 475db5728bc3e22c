package main

import (
	"context"
	"encoding/csv"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/sqldest"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// TestMigrateReportKeepsLeavers: a person deleted from EdApp after the
// move, and one a deactivation dropped from SafetyCulture's feeds (whose
// course-progress rows the next complete walk deleted), stay in the report
// matched and marked left, with their names and their completions carried
// (each has one dated a day later in SafetyCulture, so that a difference
// shows the person). The same database copied at schema version 19,
// before the history tables, reports as the current one did before.
func TestMigrateReportKeepsLeavers(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		ctx := context.Background()
		srv := migrationFixture(t, 20)
		sc, twin := sctest.New(t), sctest.New(t)
		mig, err := fakedata.SeedMigration(sc, srv, fakedata.NoAnomalies())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fakedata.SeedMigration(twin, srv, fakedata.NoAnomalies()); err != nil {
			t.Fatal(err)
		}
		edLeaver, scLeaver := leaversOf(t, mig)
		var gone atomic.Bool // scLeaver is deactivated in SafetyCulture
		sc.Handle("GET /feed/users", rewriteFeed(t, twin, func(row map[string]any) bool { return !gone.Load() || row["id"] != scLeaver.UserID }))
		sc.Handle("GET /training/v1/feed/training-course-progress", rewriteFeed(t, twin, func(row map[string]any) bool {
			for _, c := range []fakedata.Completion{edLeaver, scLeaver} {
				if row["user_id"] == c.UserID && row["course_id"] == c.CourseID {
					row["completed_at"] = c.CompletedAt.AddDate(0, 0, 1).Format("2006-01-02T15:04:05Z")
				}
			}
			return !gone.Load() || row["user_id"] != scLeaver.UserID
		}))
		exportBoth(t, srv, sc, url)
		// The leaver's completions may be EdApp's latest activity, the
		// default move time: the reports compared share one.
		movedAt := []string{"--moved-at", mig.MovedAt.UTC().Format(time.RFC3339)}
		before := reportOf(t, url, movedAt...)
		if got := diffKeys(before)[sqldest.CategoryCompletionDateChanged]; len(got) != 2 {
			t.Fatalf("completion_date_changed %v, want the two leavers'", got)
		}
		wantSameReport(t, "at schema version 19", reportOf(t, reportAtVersion19(t, url), movedAt...), before)
		names := map[string][]string{}
		for _, c := range []fakedata.Completion{edLeaver, scLeaver} {
			r := rowsOf(t, url, `SELECT first_name, last_name FROM users WHERE source = 'edapp' AND id = '`+c.EdAppUserID+`'`)
			if len(r) != 1 || r[0][0] == "" || r[0][1] == "" {
				t.Fatalf("the leaver %s: names %v", c.EdAppUserID, r)
			}
			names[c.EdAppUserID] = r[0]
		}

		if err := srv.Client().Users.Delete(ctx, edLeaver.EdAppUserID); err != nil {
			t.Fatal(err)
		}
		gone.Store(true)
		// EdApp's course progress is walked incrementally: its rows of the
		// person deleted stay. SafetyCulture's complete walk (--full)
		// deletes the deactivated person's: the report reads them from
		// course_progress_history.
		wantCode(t, runExport(t, ctx, srv, nil, "--db", url), exitOK)
		wantCode(t, runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url, "--full"), exitOK)
		if got := rowsOf(t, url, `SELECT course_id FROM course_progress WHERE source = 'safetyculture' AND user_id = '`+scLeaver.UserID+`'`); len(got) != 0 {
			t.Fatalf("the complete walk after the deactivation kept the leaver's progress: %v", got)
		}
		if got := rowsOf(t, url, `SELECT id FROM users WHERE (source = 'edapp' AND id = '`+edLeaver.EdAppUserID+`') OR (source = 'safetyculture' AND id = '`+scLeaver.UserID+`')`); len(got) != 0 {
			t.Fatalf("users still holds the leavers: %v", got)
		}
		wantLeaversReported(t, reportOf(t, url, movedAt...), before, names, edLeaver, scLeaver)
		wantLeftCells(t, url, edLeaver.EdAppUserID, scLeaver.EdAppUserID)
	})
}

// leaversOf picks two completions of different people that the move
// carried: the first, then the last of another person.
func leaversOf(t *testing.T, mig *fakedata.Migration) (fakedata.Completion, fakedata.Completion) {
	t.Helper()
	first := mig.Carried[0]
	for i := len(mig.Carried) - 1; i > 0; i-- {
		if c := mig.Carried[i]; c.EdAppUserID != first.EdAppUserID && c.UserID != first.UserID {
			return first, c
		}
	}
	t.Fatalf("the move carried the completions of one person only: %v", mig.Carried)
	return first, first
}

// wantLeaversReported checks that after reports as before did, with the
// leavers (and no one else) marked left, under their names.
func wantLeaversReported(t *testing.T, after, before sqldest.Report, names map[string][]string, leavers ...fakedata.Completion) {
	t.Helper()
	wantSameReport(t, "after the leavers left", after, before)
	scOf := map[string]string{}
	for _, c := range leavers {
		scOf[c.EdAppUserID] = c.UserID
	}
	seen := map[string]bool{}
	for _, d := range after.Differences {
		if d.Person == nil {
			continue
		}
		p, id := d.Person, deref(d.Person.EdAppID)
		if _, ok := scOf[id]; !ok {
			if p.Left {
				t.Errorf("%s: %s/%s marked left", d.Category, id, deref(p.SafetyCultureID))
			}
			continue
		}
		seen[id] = true
		if !p.Left || deref(p.FirstName) != names[id][0] || deref(p.LastName) != names[id][1] || deref(p.SafetyCultureID) != scOf[id] {
			t.Errorf("%s: the leaver is %+v, want left, %v, matched to %s", d.Category, *p, names[id], scOf[id])
		}
	}
	if len(seen) != len(leavers) {
		t.Errorf("the differences show the leavers %v, want %v", seen, scOf)
	}
}

// wantSameReport checks that got has want's totals, courses and
// differences (keyed as diffKeys keys them).
func wantSameReport(t *testing.T, name string, got, want sqldest.Report) {
	t.Helper()
	if got.Totals != want.Totals {
		t.Errorf("%s: totals %+v, want %+v", name, got.Totals, want.Totals)
	}
	if !slices.EqualFunc(got.Courses, want.Courses, func(a, b sqldest.CourseReconciliation) bool {
		return deref(a.EdAppID) == deref(b.EdAppID) && a.EdAppCompletions == b.EdAppCompletions && a.Carried == b.Carried &&
			a.Missing == b.Missing && a.SafetyCultureCompletions == b.SafetyCultureCompletions
	}) {
		t.Errorf("%s: courses %+v, want %+v", name, got.Courses, want.Courses)
	}
	g, w := diffKeys(got), diffKeys(want)
	for _, cat := range sqldest.Categories() {
		if !slices.Equal(g[cat], w[cat]) {
			t.Errorf("%s: %s lists\n%v\nwant\n%v", name, cat, g[cat], w[cat])
		}
	}
}

// reportAtVersion19 is a copy of url's database at schema version 19,
// before the history tables: what the move report read there.
func reportAtVersion19(t *testing.T, url string) string {
	t.Helper()
	from, d := openTestDB(t, url)
	old := sameKind(t, url)
	to, _ := openTestDB(t, old)
	schemaAt(t, to, d, historyVersion-1)
	v19 := tablesAt(t, historyVersion-1)
	for _, tb := range sourcedTables() {
		copyRows(t, from, to, d, v19[tb.Name], "")
	}
	for _, name := range []string{"identities", "edapp_export_kinds", "edapp_export_lock"} {
		copyRows(t, from, to, d, v19[name], "")
	}
	return old
}

// wantLeftCells checks the left marker of the csv, table and html
// reports: the person.left column, and "(left)" after the person.
func wantLeftCells(t *testing.T, url string, leavers ...string) {
	t.Helper()
	r := runEnv(t, env{}, "migrate", "report", "--db", url, "-o", "csv")
	wantCode(t, r, exitOK)
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("csv: %v\n%s", err, r.stdout)
	}
	id, left := slices.Index(rows[0], "person.edapp_id"), slices.Index(rows[0], "person.left")
	marked := 0
	for _, row := range rows[1:] {
		if slices.Contains(leavers, row[id]) && row[left] == "true" {
			marked++
		} else if row[left] == "true" {
			t.Errorf("csv: %v marked left", row)
		}
	}
	if left < 0 || marked == 0 {
		t.Errorf("csv: no row of the leavers %v with person.left true:\n%s", leavers, r.stdout)
	}
	for _, format := range []string{"table", "html"} {
		r := runEnv(t, env{}, "migrate", "report", "--db", url, "-o", format)
		wantCode(t, r, exitOK)
		if n := strings.Count(r.stdout, "(left)"); n != len(leavers) {
			t.Errorf("%s: %d people marked (left), want %d:\n%s", format, n, len(leavers), r.stdout)
		}
	}
}
