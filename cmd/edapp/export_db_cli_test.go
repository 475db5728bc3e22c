package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/export/sqldest"
)

const dbPassword = "hunter2-db-secret"

// noPassword fails when the database password is in any output.
func noPassword(t *testing.T, r result) {
	t.Helper()
	if strings.Contains(r.stdout+r.stderr, dbPassword) {
		t.Errorf("the database password is in the output:\n%s%s", r.stdout, r.stderr)
	}
}

func TestExportDBUsage(t *testing.T) {
	t.Chdir(t.TempDir()) // a usage error creates no file; if one did, not here
	srv := edapptest.New(t)
	defer srv.Close()
	for _, tc := range []struct {
		args []string
		env  env
		want string
	}{
		{[]string{"--db", "mysql://u:" + dbPassword + "@h/db"}, nil, "unknown scheme"},
		{[]string{"--db", "postgres://u:" + dbPassword + "@h:port/db"}, nil, "invalid database URL"},
		{[]string{"--db", "sqlite:x.db", "--format", "csv"}, nil, "--format applies to --out only"},
		{nil, nil, "--db or --out is required"},
		{[]string{"--db", "sqlite:x.db", "--open-window", "-1h"}, nil, "--open-window"},
		{[]string{"--db", "sqlite:x.db", "--max-age", "-1h"}, nil, "--max-age"},
		{nil, env{"EDAPP_EXPORT_DB": "redis://u:" + dbPassword + "@h"}, "unknown scheme"},
	} {
		e := fakeEnv(srv)
		for k, v := range tc.env {
			e[k] = v
		}
		srv.ResetRequests()
		r := runEnv(t, e, append([]string{"export"}, tc.args...)...)
		wantCode(t, r, exitUsage)
		noPassword(t, r)
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, r.stderr, tc.want)
		}
		if n := len(srv.Requests()); n > 0 {
			t.Errorf("%v: %d requests sent before the usage error", tc.args, n)
		}
	}
}

func TestExportDBFromEnvironment(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 1)
	url := dbtest.SQLite(t)
	e := fakeEnv(srv)
	e["EDAPP_EXPORT_DB"] = url
	wantCode(t, runEnv(t, e, "export", "--kinds", "users"), exitOK)
	db, _ := openTestDB(t, url)
	if n := dbCounts(t, db, []string{"users"})["users"]; n == 0 {
		t.Error("EDAPP_EXPORT_DB: no users exported")
	}
}

func TestExportDBUnreachableHidesPassword(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	url := "postgres://edapp:" + dbPassword + "@127.0.0.1:" + freeLoopbackPort(t) + "/edapp?sslmode=disable&connect_timeout=3"
	for _, args := range [][]string{{"export", "--db", url}, {"-v", "export", "--db", url}} {
		r := runFake(t, srv, args...)
		wantCode(t, r, exitError)
		noPassword(t, r)
		if !strings.Contains(r.stderr, "cannot be reached") || !strings.Contains(r.stderr, "edapp:xxxxx@127.0.0.1") {
			t.Errorf("stderr: %s", r.stderr)
		}
	}
	if n := len(srv.Requests()); n > 0 {
		t.Errorf("%d requests sent to the service", n)
	}
}

func TestExportDBRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv := edapptest.New(t)
		defer srv.Close()
		db, d := openTestDB(t, url)
		if err := dbschema.NewMigrator(db, d).Up(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(rebind(d, `INSERT INTO edapp_schema (version, name, applied_at) VALUES (?, 'later', ?)`), latestVersion()+1, "2030-01-01T00:00:00.000000Z"); err != nil {
			t.Fatal(err)
		}
		r := runFake(t, srv, "export", "--db", url)
		wantCode(t, r, exitError)
		if !strings.Contains(r.stderr, "newer") {
			t.Errorf("stderr: %s", r.stderr)
		}
		if n := len(srv.Requests()); n > 0 {
			t.Errorf("%d requests sent", n)
		}
	})
}

// TestExportDBSecondExportRefused: while one export holds the database, a
// second one is refused before it writes anything.
func TestExportDBSecondExportRefused(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 1)
		db, d := openTestDB(t, url)
		first, err := sqldest.OpenDatabase(context.Background(), db, d)
		if err != nil {
			t.Fatal(err)
		}
		r := runExport(t, context.Background(), srv, func(f *factory) { withLockWait(f, 300*time.Millisecond) }, "--db", url)
		wantCode(t, r, exitError)
		if !strings.Contains(r.stderr, "another export") {
			t.Errorf("stderr: %s", r.stderr)
		}
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users"), exitOK)
	})
}

// TestExportFormatFromState: a re-run without --format keeps the
// directory's format; a conflicting --format is refused.
func TestExportFormatFromState(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 1)
	dir := t.TempDir()
	wantCode(t, runExport(t, context.Background(), srv, nil, "--out", dir, "--format", "jsonl", "--kinds", "users,attempts"), exitOK)
	wantCode(t, runExport(t, context.Background(), srv, nil, "--out", dir, "--kinds", "users,attempts"), exitOK)
	if m, _ := filepath.Glob(filepath.Join(dir, "*.csv")); len(m) > 0 {
		t.Errorf("a re-run without --format wrote CSV: %v", m)
	}
	if st := loadState(t, dir); st.Format != "jsonl" {
		t.Errorf("state format %q", st.Format)
	}
	r := runExport(t, context.Background(), srv, nil, "--out", dir, "--format", "csv")
	wantCode(t, r, exitUsage)
	if !strings.Contains(r.stderr, "jsonl") {
		t.Errorf("stderr: %s", r.stderr)
	}
}

// TestExportDBAndFilesInOnePass: --db and --out together write both from
// one fetch.
func TestExportDBAndFilesInOnePass(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 2)
	url, dir := dbtest.SQLite(t), t.TempDir()
	srv.ResetRequests()
	wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--out", dir, "--kinds", "users,attempts"), exitOK)
	requests := len(srv.Requests())
	db, _ := openTestDB(t, url)
	want := len(apiAttemptIDs(t, srv))
	if got := dbCounts(t, db, []string{"attempts"})["attempts"]; got != want {
		t.Errorf("database: %d attempts, want %d", got, want)
	}
	if got := len(readKind(t, dir, "attempts")); got != want {
		t.Errorf("files: %d attempts, want %d", got, want)
	}
	srv.ResetRequests()
	wantCode(t, runExport(t, context.Background(), srv, nil, "--out", t.TempDir(), "--kinds", "users,attempts"), exitOK)
	if alone := len(srv.Requests()); requests != alone {
		t.Errorf("both destinations took %d requests, files alone %d", requests, alone)
	}
}

// TestExportDBMaxAge: into a database, group_children and group_members
// hold the fake's hierarchy and memberships; a re-run with --max-age 1h
// fetches only the incremental kinds, and says when the others were.
func TestExportDBMaxAge(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 3)
		wantCode(t, runFake(t, srv, "export", "--db", url), exitOK)
		if n := srv.RequestCount("/v2/usersgroups/{id}/users"); n != 0 {
			t.Errorf("%d requests to a group's users", n)
		}
		db, _ := openTestDB(t, url)
		var members, children []string
		c := srv.Client()
		for g, err := range c.UserGroups.All(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			for u, err := range c.UserGroups.AllUsers(context.Background(), g.ID, nil) {
				if err != nil {
					t.Fatal(err)
				}
				members = append(members, g.ID+" "+u.ID)
			}
			for k, err := range c.UserGroups.AllChildren(context.Background(), g.ID, nil) {
				if err != nil {
					t.Fatal(err)
				}
				children = append(children, g.ID+" "+k.ID)
			}
		}
		if got := pairs(t, db, "SELECT group_id, user_id FROM group_members ORDER BY 1, 2"); !slices.Equal(got, sortedCopy(members)) {
			t.Errorf("group_members %v, the groups' users routes %v", got, members)
		}
		if got := pairs(t, db, "SELECT parent_id, child_id FROM group_children ORDER BY 1, 2"); !slices.Equal(got, sortedCopy(children)) || len(got) == 0 {
			t.Errorf("group_children %v, the fake's hierarchy %v", got, children)
		}

		srv.ResetCounters()
		r := runFake(t, srv, "export", "--db", url, "--max-age", "1h")
		wantCode(t, r, exitOK)
		if !regexp.MustCompile(`(?m)^users +not fetched: complete at `).MatchString(r.stdout) {
			t.Errorf("stdout: %s", r.stdout)
		}
		for route := range srv.RequestCounts() {
			if !strings.Contains(route, "/analytics/attempts") && !strings.Contains(route, "/analytics/courseprogress") &&
				!strings.Contains(route, "/analytics/lesson-progress/events") && !strings.Contains(route, "/analytics/surveyanswers") {
				t.Errorf("--max-age 1h: a request to %s", route)
			}
		}
	})
}

func pairs(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		out = append(out, a+" "+b)
	}
	return out
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
