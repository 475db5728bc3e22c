package main

import (
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest/fakedata"

	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/scsrc"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// fakeClock is a clock a test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestSafetyCultureExportLateRowsArriveOnTheNextRun: an attempt the
// service publishes two hours after it was made, dated an hour before the
// first run, is missed by that run and fetched by the next, whose lower
// bound is the cursor less SafetyCulture's overlap (EdApp's 10 minutes
// would miss it for good).
func TestSafetyCultureExportLateRowsArriveOnTheNextRun(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		clock := &fakeClock{now: time.Now().UTC()}
		sc := sctest.New(t, sctest.WithClock(clock.Now), sctest.WithAnalyticsLag(2*time.Hour))
		course, lessons, err := sc.AddCourse(sctest.CourseSpec{Title: "Forklift", Lessons: []sctest.LessonSpec{{Title: "One"}}})
		if err != nil || course == "" {
			t.Fatal(err)
		}
		user, err := sc.AddUser(sctest.UserSpec{Email: "late@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.CompleteLesson(user, lessons[0], 90, clock.Now().Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		run := func() int {
			t.Helper()
			r := runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url, "--kinds", "attempts")
			wantCode(t, r, exitOK)
			n, _ := kindLine(t, r.stdout, "attempts")
			return n
		}
		if n := run(); n != 0 {
			t.Fatalf("first run: %d attempts, want 0: the fake has not published it", n)
		}
		clock.Add(2 * time.Hour) // the service's clock: the run's cursor is the Date it sent
		if n := run(); n != 1 {
			t.Errorf("second run: %d attempts, want the late one", n)
		}
		db, _ := openTestDB(t, url)
		if got := rowsOfDB(t, db, `SELECT COUNT(*) FROM attempts WHERE source = 'safetyculture'`)[0][0]; got != "1" {
			t.Errorf("%s attempts in the table, want 1", got)
		}
	})
}

// TestExportBothSourcesAtOnce: the EdApp and the SafetyCulture exports
// run as two processes at once into one database (each source has its
// own lock), both finish, and each source's tables hold what its fake
// does.
func TestExportBothSourcesAtOnce(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 5)
		srv.SetLatency(20 * time.Millisecond)
		sc := sctest.New(t, sctest.WithLatency(20*time.Millisecond))
		if _, err := fakedata.SeedMigration(sc, srv); err != nil {
			t.Fatal(err)
		}
		cmds := []*exec.Cmd{exportChild(srv, 0, "--db", url), childWith(scEnv(sc), 0, "--source", "safetyculture", "--db", url)}
		var wg sync.WaitGroup
		for _, cmd := range cmds {
			wg.Add(1)
			go func() { defer wg.Done(); _ = cmd.Run() }()
		}
		wg.Wait()
		for _, cmd := range cmds {
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("%q: exit %d\n%s", cmd.Args, code, cmd.Stdout)
			}
		}
		db, _ := openTestDB(t, url)
		for name, want := range scCountsWithoutPerUser(t, sc) {
			if got := rowsOfDB(t, db, `SELECT COUNT(*) FROM `+name+` WHERE source = 'safetyculture'`)[0][0]; got != strconv.Itoa(want) {
				t.Errorf("%s: %s safetyculture rows, the fake holds %d", name, got, want)
			}
		}
		for name, want := range fakeCounts(t, srv) {
			if !strings.HasPrefix(name, "user_lesson_progress") { // --per-user kinds: not exported
				if got := rowsOfDB(t, db, `SELECT COUNT(*) FROM `+name+` WHERE source = 'edapp'`)[0][0]; got != strconv.Itoa(want) {
					t.Errorf("%s: %s edapp rows, the fake holds %d", name, got, want)
				}
			}
		}
	})
}

// scCountsWithoutPerUser is scFakeCounts without the --per-user kinds.
func scCountsWithoutPerUser(t *testing.T, sc *sctest.Server) map[string]int {
	t.Helper()
	counts := scFakeCounts(t, sc)
	for _, name := range export.KindNames(scsrc.Kinds(), func(k export.Kind) bool { return k.PerUser }) {
		delete(counts, name)
	}
	return counts
}

// TestSafetyCultureExportFiles: --out with --source safetyculture writes
// a file per mirrored kind and parts per incremental kind, as many rows as
// the fake holds; a second run adds nothing.
func TestSafetyCultureExportFiles(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 5)
	sc := sctest.New(t)
	if _, err := fakedata.SeedMigration(sc, srv); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	want := scCountsWithoutPerUser(t, sc)
	for run := range 2 {
		r := runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--out", dir)
		wantCode(t, r, exitOK)
		for name, n := range want {
			if n == 0 {
				continue // an incremental kind with no records has no file
			}
			if got := len(readKind(t, dir, name)); got != n {
				t.Errorf("run %d: %s: %d rows in the files, the fake holds %d", run+1, name, got, n)
			}
		}
		if run == 1 {
			for _, kind := range export.KindNames(scsrc.Kinds(), func(k export.Kind) bool { return k.Incremental && !k.PerUser }) {
				if n, notes := kindLine(t, r.stdout, kind); !strings.Contains(notes, "0 new records") {
					t.Errorf("second run: %s: %d records, %s: want none new", kind, n, notes)
				}
			}
		}
	}
}
