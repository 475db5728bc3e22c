package main

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/scsrc"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// openTestDB opens a database the test exported into.
func openTestDB(t *testing.T, url string) (*sql.DB, dbschema.Dialect) {
	t.Helper()
	db, target, err := openDB(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, target.Dialect
}

// migratedTestDB is openTestDB with the schema at its latest version.
func migratedTestDB(t *testing.T, url string) (*sql.DB, dbschema.Dialect) {
	t.Helper()
	db, dialect := openTestDB(t, url)
	if err := dbschema.NewMigrator(db, dialect).Up(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, dialect
}

func count[T any](t *testing.T, seq iter.Seq2[T, error]) int {
	t.Helper()
	n := 0
	for _, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// fakeCounts is what the fake holds of each kind: its lists' counts, and
// for the kinds listed per parent, the sum over the parents.
func fakeCounts(t *testing.T, srv *edapptest.Server) map[string]int {
	t.Helper()
	ctx := context.Background()
	c := srv.Client()
	got := map[string]int{
		"groups":                 count(t, c.UserGroups.All(ctx, nil)),
		"collections":            count(t, c.Catalog.AllCollections(ctx, nil)),
		"courses":                count(t, c.Catalog.AllCourses(ctx, nil)),
		"course_statistics":      count(t, c.Analytics.AllCourseStatistics(ctx, nil)),
		"lesson_statistics":      count(t, c.Analytics.AllLessonStatistics(ctx, nil)),
		"survey_questions":       count(t, c.Analytics.AllSurveyQuestionDefinitions(ctx, nil)),
		"attempts":               count(t, c.Analytics.AllAttempts(ctx, nil)),
		"course_progress":        count(t, c.Analytics.AllCourseProgress(ctx, nil)),
		"lesson_progress_events": count(t, c.Analytics.AllLessonProgressEvents(ctx, nil)),
		"survey_answers":         count(t, c.Analytics.AllSurveyAnswers(ctx, nil)),
	}
	for u, err := range c.Users.All(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got["users"]++
		got["user_custom_fields"] += len(u.CustomFields)
	}
	for g, err := range c.UserGroups.All(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got["group_members"] += count(t, c.UserGroups.AllUsers(ctx, g.ID, nil))
	}
	for col, err := range c.Catalog.AllCollections(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got["collection_courses"] += count(t, c.Catalog.AllCollectionCourses(ctx, col.ID, nil))
	}
	for u, err := range c.Users.All(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got["user_lesson_progress"] += count(t, c.Analytics.AllUserLessonProgress(ctx, u.ID, nil))
		got["user_lesson_progress_events"] += count(t, c.Analytics.AllUserLessonProgressEvents(ctx, u.ID, nil))
	}
	for course, err := range c.Catalog.AllCourses(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		lessons, err := c.Catalog.Lessons(ctx, course.ID)
		if err != nil {
			t.Fatal(err)
		}
		got["lessons"] += len(lessons)
	}
	return got
}

// dbCounts counts the rows of every kind's table.
func dbCounts(t *testing.T, db *sql.DB, tables []string) map[string]int {
	t.Helper()
	got := map[string]int{}
	for _, tb := range tables {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM ` + tb).Scan(&n); err != nil {
			t.Fatal(err)
		}
		got[tb] = n
	}
	return got
}

// snapshot is every row of every kind's table, but edapp_run and
// edapp_digest (NULL in a database migrated from before it), as text,
// sorted: what two exports of the same data must hold alike.
func snapshot(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, tb := range sourcedTables() {
		var cols []string
		for _, c := range tb.Columns {
			if c.Name != "edapp_run" && c.Name != "edapp_digest" {
				cols = append(cols, c.Name)
			}
		}
		rows, err := db.Query(`SELECT ` + strings.Join(cols, ", ") + ` FROM ` + tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			vals := scanAny(t, rows, len(cols))
			var b strings.Builder
			for i, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%s=%v|", cols[i], v)
			}
			out[tb.Name] = append(out[tb.Name], b.String())
		}
		rows.Close()
		sort.Strings(out[tb.Name])
	}
	return out
}

// exportTables are the schema's tables the export fills with records: one
// per kind, and user_custom_fields.
func exportTables() []dbschema.Table {
	var out []dbschema.Table
	all := func(export.Kind) bool { return true }
	for _, name := range append([]string{"user_custom_fields"}, kindNames(all)...) {
		tb, _ := dbschema.Lookup(name)
		out = append(out, tb)
	}
	return out
}

// sourcedTables are exportTables and the tables of the kinds only
// SafetyCulture has: every table a snapshot compares.
func sourcedTables() []dbschema.Table {
	out := exportTables()
	for _, name := range export.KindNames(scsrc.Kinds(), func(export.Kind) bool { return true }) {
		if !slices.ContainsFunc(out, func(tb dbschema.Table) bool { return tb.Name == name }) {
			tb, _ := dbschema.Lookup(name)
			out = append(out, tb)
		}
	}
	return out
}

func kindTables(perUser bool) []string {
	var out []string
	for _, tb := range exportTables() {
		if !perUser && strings.HasPrefix(tb.Name, "user_lesson_progress") {
			continue
		}
		out = append(out, tb.Name)
	}
	return out
}

func diffSnapshots(t *testing.T, what string, a, b map[string][]string) {
	t.Helper()
	for tb := range a {
		if !slices.Equal(a[tb], b[tb]) {
			t.Errorf("%s: table %s differs: %d rows, then %d", what, tb, len(a[tb]), len(b[tb]))
		}
	}
}

func TestExportDBFullThenNothingNew(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 5)
		if _, err := srv.AddUser(edapptest.UserSpec{Username: "custom", CustomFields: map[string]string{"site": "Perth", "team": "=1+1"}}); err != nil {
			t.Fatal(err)
		}
		r := runExport(t, context.Background(), srv, nil, "--db", url, "--per-user")
		wantCode(t, r, exitOK)
		db, _ := openTestDB(t, url)
		want := fakeCounts(t, srv)
		got := dbCounts(t, db, kindTables(true))
		for tb, n := range want {
			if got[tb] != n {
				t.Errorf("%s: %d rows, the fake holds %d", tb, got[tb], n)
			}
		}
		for _, tb := range kindTables(true) {
			if got[tb] == 0 {
				t.Errorf("%s is empty", tb)
			}
		}
		before := snapshot(t, db)
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--per-user"), exitOK)
		diffSnapshots(t, "a second run", before, snapshot(t, db))
	})
}

// TestExportDBNewProgressAndOpenAttempts: a re-run adds exactly the new
// attempts, and an attempt opened three days before the first run, long
// behind the cursor, is updated in place when it completes, because it is
// younger than --open-window; with a window of an hour it is not.
func TestExportDBNewProgressAndOpenAttempts(t *testing.T) {
	t.Parallel()
	for _, window := range []string{"168h", "1h"} {
		t.Run(window, func(t *testing.T) {
			t.Parallel()
			bothDBs(t, func(t *testing.T, url string) { testOpenAttempts(t, url, window) })
		})
	}
}

func testOpenAttempts(t *testing.T, url, window string) {
	var shift atomic.Int64 // how far the fake's clock is behind
	srv := edapptest.New(t, edapptest.WithClock(func() time.Time { return time.Now().Add(-time.Duration(shift.Load())) }))
	t.Cleanup(srv.Close)
	demo, err := fakedata.SeedDemo(srv)
	if err != nil {
		t.Fatal(err)
	}
	shift.Store(int64(72 * time.Hour))
	open, err := srv.OpenLesson(demo.UserIDs[3], demo.LessonIDs[1][0])
	if err != nil {
		t.Fatal(err)
	}
	shift.Store(0)
	wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--open-window", window), exitOK)
	db, d := openTestDB(t, url)
	before := dbCounts(t, db, []string{"attempts"})["attempts"]
	var completed sql.NullString
	q := rebind(d, `SELECT CAST(completed_date_time AS TEXT) FROM attempts WHERE id = ?`)
	if err := db.QueryRow(q, open).Scan(&completed); err != nil || completed.Valid {
		t.Fatalf("the open attempt: %v %v", completed, err)
	}

	// Dave completes the lesson he opened, and another.
	if err := srv.CompleteLesson(demo.UserIDs[3], demo.LessonIDs[1][0], 95); err != nil {
		t.Fatal(err)
	}
	if err := srv.CompleteLesson(demo.UserIDs[3], demo.LessonIDs[1][1], 80); err != nil {
		t.Fatal(err)
	}
	wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--open-window", window), exitOK)
	after := dbCounts(t, db, []string{"attempts"})["attempts"]
	if want := fakeCounts(t, srv)["attempts"]; after != want || after-before != 1 {
		t.Errorf("attempts: %d then %d rows; the fake holds %d (one new)", before, after, want)
	}
	if err := db.QueryRow(q, open).Scan(&completed); err != nil {
		t.Fatal(err)
	}
	if landed := completed.Valid; landed != (window == "168h") {
		t.Errorf("--open-window %s: the completion of a 3-day-old attempt landed: %v", window, landed)
	}
}

// exportUsersInterrupted runs an export of the users in pages of 5 and
// cancels it once a group of its walk is committed, with its keys.
func exportUsersInterrupted(t *testing.T, srv *edapptest.Server, url string, db *sql.DB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := runExport(t, ctx, srv, func(f *factory) {
		withPageSize(f, 5)
		onRecords(f, func(kind string, n int) {
			// Not t.Fatal: the hook runs on the export's goroutine.
			for deadline := time.Now().Add(10 * time.Second); kind == "users" && n >= 10 && time.Now().Before(deadline); {
				var keys int
				if db.QueryRow(`SELECT COUNT(*) FROM edapp_export_seen`).Scan(&keys) == nil && keys > 0 {
					cancel()
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}, "--db", url, "--kinds", "users")
	wantCode(t, r, exitError)
	if countRows(t, db, `SELECT COUNT(*) FROM edapp_export_seen`) == 0 {
		t.Fatal("the interrupted run recorded no keys")
	}
}

// TestExportDBSendsNoUnchangedRow: a run with nothing changed sends no
// row, and says so; a row whose digest was cleared is written again.
func TestExportDBSendsNoUnchangedRow(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, demo := exportFixture(t, 3)
		ctx := context.Background()
		wantCode(t, runExport(t, ctx, srv, nil, "--db", url, "--kinds", "users"), exitOK)
		db, d := openTestDB(t, url)
		users := fakeCounts(t, srv)["users"]
		r := runExport(t, ctx, srv, nil, "--db", url, "--kinds", "users")
		wantCode(t, r, exitOK)
		if want := fmt.Sprintf("0 rows written, %d unchanged", users); !strings.Contains(r.stdout, want) {
			t.Errorf("a run with nothing changed: want %q in\n%s", want, r.stdout)
		}
		if _, err := db.Exec(rebind(d, `UPDATE users SET edapp_digest = NULL WHERE id = ?`), demo.UserIDs[0]); err != nil {
			t.Fatal(err)
		}
		r = runExport(t, ctx, srv, nil, "--db", url, "--kinds", "users")
		wantCode(t, r, exitOK)
		if want := fmt.Sprintf("1 rows written, %d unchanged", users-1); !strings.Contains(r.stdout, want) {
			t.Errorf("a run after a digest was cleared: want %q in\n%s", want, r.stdout)
		}
	})
}

// countRows is the count query q answers.
func countRows(t *testing.T, db *sql.DB, q string) (n int) {
	t.Helper()
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestExportDBLeavesTheOverlapAlone: an incremental kind's re-run fetches
// its overlap again and leaves the rows it finds unchanged as they are (no
// update: on PostgreSQL, each row keeps its version, xmin; on SQLite, a
// trigger counts the updates); a row whose values differ is updated.
func TestExportDBLeavesTheOverlapAlone(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 3)
		ctx := context.Background()
		args := []string{"--db", url, "--kinds", "attempts", "--overlap", "8760h"}
		wantCode(t, runExport(t, ctx, srv, nil, args...), exitOK)
		db, d := openTestDB(t, url)
		updated := attemptsUpdated(t, db, d)
		r := runExport(t, ctx, srv, nil, args...)
		wantCode(t, r, exitOK)
		if !strings.Contains(r.stdout, "1 requests") {
			t.Fatalf("the re-run fetched no overlap:\n%s", r.stdout)
		}
		if got := updated(); len(got) != 0 {
			t.Errorf("the re-run over an unchanged overlap updated %v", got)
		}
		var changed string
		if err := db.QueryRow(`SELECT MIN(id) FROM attempts`).Scan(&changed); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(rebind(d, `UPDATE attempts SET score = -1 WHERE id = ?`), changed); err != nil {
			t.Fatal(err)
		}
		updated = attemptsUpdated(t, db, d)
		wantCode(t, runExport(t, ctx, srv, nil, args...), exitOK)
		if got := updated(); !slices.Equal(got, []string{changed}) {
			t.Errorf("the re-run after a score changed updated %v, want [%s]", got, changed)
		}
	})
}

// attemptsUpdated starts watching the rows of attempts, and returns a
// function that gives the ids of those updated since, sorted.
func attemptsUpdated(t *testing.T, db *sql.DB, d dbschema.Dialect) func() []string {
	t.Helper()
	if d == dbschema.SQLite {
		for _, q := range []string{
			`CREATE TABLE IF NOT EXISTS test_updates (id TEXT)`, `DELETE FROM test_updates`,
			`CREATE TRIGGER IF NOT EXISTS test_attempts_updated AFTER UPDATE ON attempts BEGIN INSERT INTO test_updates VALUES (new.id); END`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		return func() []string { return rowIDs(t, db, `SELECT id FROM test_updates ORDER BY id`) }
	}
	versions := func() map[string]string {
		out := map[string]string{}
		for _, row := range rowIDs(t, db, `SELECT id || ' ' || xmin::text FROM attempts`) {
			id, xmin, _ := strings.Cut(row, " ")
			out[id] = xmin
		}
		return out
	}
	before := versions()
	return func() []string {
		var out []string
		for id, xmin := range versions() {
			if before[id] != xmin {
				out = append(out, id)
			}
		}
		slices.Sort(out)
		return out
	}
}

// TestExportDBCountsRowsTheDatabaseWrote: a re-run of the incremental kinds
// (their overlap fetched again, the digests not read) reports the rows the
// database inserted or changed, none here, for both sources.
func TestExportDBCountsRowsTheDatabaseWrote(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 3)
		sc := sctest.New(t)
		if _, err := fakedata.SeedMigration(sc, srv); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		edappKinds := []string{"attempts", "course_progress", "lesson_progress_events"}
		scKinds := []string{"attempts", "course_progress", "lesson_progress_events"}
		runs := []func() result{
			func() result {
				return runExport(t, ctx, srv, nil, "--db", url, "--kinds", strings.Join(edappKinds, ","))
			},
			func() result {
				return runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url, "--kinds", strings.Join(scKinds, ","))
			},
		}
		for i, run := range runs {
			wantCode(t, run(), exitOK)
			r := run()
			wantCode(t, r, exitOK)
			for _, k := range [][]string{edappKinds, scKinds}[i] {
				line := regexp.MustCompile(`(?m)^` + k + `\s.*$`).FindString(r.stdout)
				if !strings.Contains(line, " 0 rows written") {
					t.Errorf("source %d, a re-run with nothing changed: %s: %q, want 0 rows written\n%s", i, k, line, r.stdout)
				}
			}
		}
	})
}
