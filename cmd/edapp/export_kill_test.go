package main

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/dbtest"
)

// TestExportChild is the child process of the tests that run an export
// as a process of its own (to kill it, or to measure its memory): it runs
// edapp export with the arguments of EDAPP_EXPORT_CHILD_ARGS (separated by
// spaces) and the environment it was given.
func TestExportChild(t *testing.T) {
	t.Parallel()
	args := os.Getenv("EDAPP_EXPORT_CHILD_ARGS")
	if args == "" {
		t.Skip("the child process of TestExportDBKillLoop and TestExportDBBench")
	}
	if p, ok := gcPercent(os.Getenv); ok { // as main does
		debug.SetGCPercent(p)
	}
	pageSize, _ := strconv.Atoi(os.Getenv("EDAPP_EXPORT_CHILD_PAGE_SIZE"))
	var out, errOut strings.Builder
	f := newFactory(newIOStreams(strings.NewReader(""), &out, &errOut), os.Getenv)
	if pageSize > 0 {
		withPageSize(f, pageSize)
	}
	if os.Getenv(killAtIndexBuild) != "" {
		withHookedDB(killAtIndexBuildURL(args), killAtIndexBuildHook, nil)(f)
	}
	code := runCommand(context.Background(), f, append([]string{"export"}, strings.Fields(args)...))
	os.Stdout.WriteString(out.String())
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
}

// exportChild is the command that runs TestExportChild against srv.
// An argument that begins with -test. goes to the test binary.
func exportChild(srv *edapptest.Server, pageSize int, args ...string) *exec.Cmd {
	return childWith(fakeEnv(srv), pageSize, args...)
}

// childWith is the command that runs TestExportChild with e added to the
// environment.
func childWith(e env, pageSize int, args ...string) *exec.Cmd {
	testArgs := []string{"-test.run=^TestExportChild$", "-test.count=1", "-test.v"}
	var exportArgs []string
	for _, a := range args {
		if strings.HasPrefix(a, "-test.") {
			testArgs = append(testArgs, a)
		} else {
			exportArgs = append(exportArgs, a)
		}
	}
	args = exportArgs
	cmd := exec.Command(os.Args[0], testArgs...)
	cmd.Env = append(os.Environ(), "EDAPP_EXPORT_CHILD_ARGS="+strings.Join(args, " "), "EDAPP_EXPORT_CHILD_PAGE_SIZE="+strconv.Itoa(pageSize))
	for k, v := range e {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout = new(strings.Builder)
	cmd.Stderr = cmd.Stdout
	return cmd
}

// killPageSize is the page of the kill loop's exports: small, so that a
// walk has many pages to be killed in.
const killPageSize = 40

// TestExportDBKillLoop kills an export with SIGKILL at random moments, at
// least 10 times, then lets it finish, and compares every table with a
// clean export of the same data: equal, row for row. After each kill, a
// date-filtered kind whose walk was under way resumes after its last
// committed page. EDAPP_EXPORT_KILL_LOOP=N runs N kills on 20 times the
// data.
func TestExportDBKillLoop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills processes; skipped in -short")
	}
	kills, users, attempts := 10, 100, 2000
	if raceEnabled {
		users, attempts = 40, 800
	}
	if n, err := strconv.Atoi(os.Getenv("EDAPP_EXPORT_KILL_LOOP")); err == nil && n > 0 {
		kills, users, attempts = n, 2000, 40000
	}
	// Each database gets its own fake, whose request count paces the
	// kills, so that the two run side by side.
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
			srv.SetLatency(10 * time.Millisecond)
			testKillLoop(t, srv, d.url(t), kills)
		})
	}
}

// testKillLoop runs the kill loop into dbURL, then compares it with a
// clean export.
func testKillLoop(t *testing.T, srv *edapptest.Server, dbURL string, kills int) {
	// The clean export first: it also counts the requests of a whole run,
	// over which the kills are spread.
	clean := cleanDBLike(t, dbURL)
	srv.ResetRequests()
	wantCode(t, runExport(t, context.Background(), srv, func(f *factory) { withPageSize(f, killPageSize) }, "--db", clean, "--concurrency", "2"), exitOK)
	requests := len(srv.Requests())

	killLoop(t, edappKillTarget(srv), dbURL, kills, requests)
	compareWithClean(t, dbURL, clean, "users", "attempts", "lesson_progress_events", "course_progress", "group_members", "lessons")
}

// cleanDBLike is a fresh database of dbURL's kind.
func cleanDBLike(t *testing.T, dbURL string) string {
	if strings.HasPrefix(dbURL, "sqlite:") {
		return dbtest.SQLite(t)
	}
	return dbtest.Postgres(t)
}

// compareWithClean compares every table of the killed export with the
// clean one, row for row; the tables named must not be empty.
func compareWithClean(t *testing.T, dbURL, clean string, tables ...string) {
	t.Helper()
	killed, _ := openTestDB(t, dbURL)
	whole, _ := openTestDB(t, clean)
	a, b := snapshot(t, killed), snapshot(t, whole)
	for _, tb := range tables {
		if len(b[tb]) == 0 {
			t.Errorf("the clean export's %s is empty", tb)
		}
	}
	diffSnapshots(t, "killed export against a clean one", b, a)
}

// killTarget is what the kill loop needs of a fake and its export: the
// requests it has answered since reset, the child export into a database
// (full: with --full), and, before each run, the check after it that the
// walks under way resumed after their committed pages.
type killTarget struct {
	sent    func() int
	reset   func()
	child   func(dbURL string, full bool) *exec.Cmd
	resumed func(t *testing.T, dbURL string) (walks int, check func())
}

// requestsOf counts the requests srv has answered since it was reset.
func requestsOf(srv *edapptest.Server) func() int { return func() int { return len(srv.Requests()) } }

func edappKillTarget(srv *edapptest.Server) killTarget {
	return killTarget{
		sent:  requestsOf(srv),
		reset: srv.ResetRequests,
		child: func(dbURL string, full bool) *exec.Cmd { return childExport(srv, dbURL, full) },
		resumed: func(t *testing.T, dbURL string) (int, func()) {
			walks := walksUnderWay(t, dbURL)
			return len(walks), func() { checkResumed(t, srv, walks) }
		},
	}
}

// killLoop runs the child export and kills it once the fake has answered
// a random number of its requests (out of the requests of a whole run),
// kills times; then runs it to the end. After each kill it checks that the
// next run resumes the walks under way after their committed pages.
func killLoop(t *testing.T, k killTarget, dbURL string, kills, requests int) {
	t.Helper()
	done, resumed, full := 0, 0, false
	for i := 0; done < kills && i < kills*5; i++ {
		n, check := k.resumed(t, dbURL)
		resumed += n
		k.reset()
		cmd := k.child(dbURL, full)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		stop := make(chan struct{})
		select {
		case err := <-exited:
			// It finished before the kill: the next run starts over with
			// --full, to give the kills a whole export again.
			if err != nil {
				t.Fatalf("child: %v\n%s", err, cmd.Stdout.(*strings.Builder).String())
			}
			full = true
		case <-afterRequests(k.sent, 1+rand.IntN(requests), stop):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-exited
			done++
			full = false
		}
		close(stop)
		check()
	}
	if done < kills {
		t.Fatalf("only %d kills landed", done)
	}
	n, check := k.resumed(t, dbURL)
	k.reset()
	cmd := k.child(dbURL, false)
	if err := cmd.Run(); err != nil {
		t.Fatalf("the last run: %v\n%s", err, cmd.Stdout.(*strings.Builder).String())
	}
	check()
	t.Logf("%d kills, %d walks resumed after committed pages", done, resumed+n)
}

func childExport(srv *edapptest.Server, dbURL string, full bool) *exec.Cmd {
	args := []string{"--db", dbURL, "--concurrency", "2"}
	if full {
		args = append(args, "--full")
	}
	return exportChild(srv, killPageSize, args...)
}

// walk is a date-filtered kind's walk under way: the pages it committed.
type walk struct {
	path  string
	pages int
}

// walksUnderWay reads the walks an interrupted run left in the database.
func walksUnderWay(t *testing.T, dbURL string) []walk {
	db, _, err := openDB(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	paths := map[string]string{"attempts": "/v2/analytics/attempts", "lesson_progress_events": "/v2/analytics/lesson-progress/events"}
	var out []walk
	rows, err := db.Query(`SELECT kind, walk_pages FROM edapp_export_kinds WHERE walk_run IS NOT NULL`)
	if err != nil {
		if strings.Contains(err.Error(), "edapp_export_kinds") {
			return nil // not created yet
		}
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var pages sql.NullInt64
		if err := rows.Scan(&kind, &pages); err != nil {
			t.Fatal(err)
		}
		if p, ok := paths[kind]; ok && pages.Int64 > 0 {
			out = append(out, walk{p, int(pages.Int64)})
		}
	}
	return out
}

// checkResumed checks that no walk under way fetched a committed page
// again.
func checkResumed(t *testing.T, srv *edapptest.Server, walks []walk) {
	t.Helper()
	for _, w := range walks {
		for _, r := range srv.Requests() {
			if !strings.EqualFold(r.Path, w.path) {
				continue
			}
			q, _ := url.ParseQuery(r.RawQuery)
			if page, _ := strconv.Atoi(q.Get("page")); page <= w.pages {
				t.Errorf("%s: page %d fetched again after %d pages were committed", w.path, page, w.pages)
			}
		}
	}
}

// afterRequests is closed once the fake has seen n requests (sent
// counts them), unless stop is closed first.
func afterRequests(sent func() int, n int, stop <-chan struct{}) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		for sent() < n {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
		close(ch)
	}()
	return ch
}
