package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// TestSafetyCultureExportResumedKeepsMode: after the service deleted
// users and a course, a re-run of course progress that is killed three
// times (SIGKILL, as its walk begins and after its first and second
// committed pages) and then resumed keeps what an uninterrupted re-run
// keeps, row for row: the resumed walk goes on in the mode its run chose
// (here incremental, which sees no deletion), never in another.
func TestSafetyCultureExportResumedKeepsMode(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills processes; skipped in -short")
	}
	bothDBs(t, testResumedKeepsMode)
}

func testResumedKeepsMode(t *testing.T, killed string) {
	sc, users, courses := scDeletesFixture(t)
	clean := cleanDBLike(t, killed)
	kinds := []string{"--source", "safetyculture", "--kinds", "users,courses,course_progress", "--concurrency", "2"}
	for _, url := range []string{killed, clean} {
		wantCode(t, runEnv(t, scEnv(sc), append([]string{"export", "--db", url}, kinds...)...), exitOK)
	}
	// Progress changed since (five pages for the incremental walk to be
	// killed in), then users and a course deleted.
	now := time.Now()
	for i, u := range users[:200/len(courses)] {
		for _, c := range courses {
			if err := sc.SetCourseProgress(sctest.ProgressSpec{UserID: u, CourseID: c, CompletedAt: now.Add(-time.Duration(i) * time.Second)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, u := range users[len(users)-10:] {
		if err := sc.DeleteUser(u); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.DeleteCourse(courses[0]); err != nil {
		t.Fatal(err)
	}
	r := runEnv(t, scEnv(sc), append([]string{"export", "--db", clean}, kinds...)...)
	wantCode(t, r, exitOK)
	if _, notes := kindLine(t, r.stdout, "course_progress"); !strings.Contains(notes, "fetched from ") {
		t.Fatalf("the uninterrupted re-run's course progress: %s, want an incremental fetch", notes)
	}
	landed := 0
	for pages := range 3 {
		if killAtWalkPages(t, sc, killed, pages, kinds) {
			landed++
		}
	}
	if landed == 0 {
		t.Fatal("no kill landed in the course-progress walk")
	}
	cmd := childWith(scEnv(sc), killPageSize, append([]string{"--db", killed}, kinds...)...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("the last run: %v\n%s", err, cmd.Stdout.(*strings.Builder).String())
	}
	compareWithClean(t, killed, clean, "users", "courses", "course_progress")
}

// scDeletesFixture is a fake with 60 people and 4 courses, each person
// having completed each course in January 2026.
func scDeletesFixture(t *testing.T) (sc *sctest.Server, users, courses []string) {
	t.Helper()
	sc = sctest.New(t, sctest.WithLatency(5*time.Millisecond))
	for i := range 4 {
		c, _, err := sc.AddCourse(sctest.CourseSpec{Title: fmt.Sprintf("Course %d", i), Lessons: []sctest.LessonSpec{{Title: "One"}}})
		if err != nil {
			t.Fatal(err)
		}
		courses = append(courses, c)
	}
	jan := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	for i := range 60 {
		u, err := sc.AddUser(sctest.UserSpec{Email: fmt.Sprintf("p%d@example.com", i)})
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u)
		for _, c := range courses {
			if err := sc.SetCourseProgress(sctest.ProgressSpec{UserID: u, CourseID: c, CompletedAt: jan.Add(time.Duration(i) * time.Minute)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return sc, users, courses
}

// killAtWalkPages runs the export as a child and kills it with SIGKILL
// once its course-progress walk is under way with at least pages pages
// committed, and reports whether it did; a child that finishes first is
// no failure.
func killAtWalkPages(t *testing.T, sc *sctest.Server, dbURL string, pages int, args []string) bool {
	t.Helper()
	db, _ := openTestDB(t, dbURL)
	cmd := childWith(scEnv(sc), killPageSize, append([]string{"--db", dbURL}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("child: %v\n%s", err, cmd.Stdout.(*strings.Builder).String())
			}
			return false
		case <-tick.C:
		}
		if walkPages(db) >= pages {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-exited
			return true
		}
	}
}

// walkPages is the pages the course-progress walk under way committed;
// -1 when none is under way.
func walkPages(db *sql.DB) int {
	var n sql.NullInt64
	err := db.QueryRowContext(context.Background(), `SELECT walk_pages FROM edapp_export_kinds
WHERE source = 'safetyculture' AND kind = 'course_progress' AND walk_run IS NOT NULL`).Scan(&n)
	if err != nil { // sql.ErrNoRows: no walk under way
		return -1
	}
	return int(n.Int64)
}
