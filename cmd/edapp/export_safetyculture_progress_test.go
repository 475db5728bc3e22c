package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// scProgressFixture is a fake with one course and six people who
// completed it in January 2026, long before any run's overlap.
func scProgressFixture(t *testing.T, opts ...sctest.Option) (sc *sctest.Server, course string, users []string) {
	t.Helper()
	sc = sctest.New(t, opts...)
	course, _, err := sc.AddCourse(sctest.CourseSpec{Title: "Forklift", ExternalID: "FL-1", Lessons: []sctest.LessonSpec{{Title: "One"}}})
	if err != nil {
		t.Fatal(err)
	}
	jan := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	for i := range 6 {
		id, err := sc.AddUser(sctest.UserSpec{Email: fmt.Sprintf("p%d@example.com", i), ExternalID: fmt.Sprintf("EXT-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, id)
		if err := sc.SetCourseProgress(sctest.ProgressSpec{UserID: id, CourseID: course, CompletedAt: jan.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	return sc, course, users
}

// ignoreModifiedAfter serves sc at a URL of its own that drops every
// request's modifiedAfter, as a service that does not know it would.
func ignoreModifiedAfter(t *testing.T, sc *sctest.Server) {
	h := sc.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		q.Del("modifiedAfter")
		r.URL.RawQuery = q.Encode()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	sc.URL = srv.URL
}

// kindLine reads a kind's line of the export's summary: its records and
// its notes.
func kindLine(t *testing.T, stdout, kind string) (records int, notes string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + kind + `\s+(\d+) records, \d+ requests[^ ]*  (.*)$`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no summary line for %s in\n%s", kind, stdout)
	}
	n, _ := strconv.Atoi(m[1])
	return n, m[2]
}

// scProgressRows is the course-progress rows the database holds for
// SafetyCulture: user id to completion time.
func scProgressRows(t *testing.T, url string) map[string]string {
	t.Helper()
	db, _ := openTestDB(t, url)
	out := map[string]string{}
	for _, r := range rowsOfDB(t, db, `SELECT user_id, completed_date_time FROM course_progress WHERE source = 'safetyculture'`) {
		out[r[0]] = r[1]
	}
	return out
}

// TestSafetyCultureCourseProgressProbe: against a service that honours
// modifiedAfter, course progress is fetched from the cursor minus the
// overlap (a change arrives, a reset waits for the full walk --max-age
// brings); against one that ignores it, every run is a full mirror, so a
// reset row disappears at once. Every status is fetched on both.
func TestSafetyCultureCourseProgressProbe(t *testing.T) {
	t.Parallel()
	for _, ignores := range []bool{false, true} {
		t.Run(fmt.Sprintf("ignores=%v", ignores), func(t *testing.T) {
			bothDBs(t, func(t *testing.T, url string) { testCourseProgressProbe(t, url, ignores) })
		})
	}
}

func testCourseProgressProbe(t *testing.T, url string, ignores bool) {
	sc, course, users := scProgressFixture(t)
	if ignores {
		ignoreModifiedAfter(t, sc)
	}
	export := func(args ...string) (int, string) {
		t.Helper()
		r := runEnv(t, scEnv(sc), append([]string{"export", "--source", "safetyculture", "--db", url, "--kinds", "course_progress"}, args...)...)
		wantCode(t, r, exitOK)
		return kindLine(t, r.stdout, "course_progress")
	}
	n, notes := export()
	if n != 6 || !strings.Contains(notes, "fetched in full: no full fetch") {
		t.Fatalf("first run: %d records (%s), want all 6 in full", n, notes)
	}
	// One person's progress changes (not completed any more: a status the
	// completed-only feed would leave out), another's is reset.
	if err := sc.SetCourseProgress(sctest.ProgressSpec{UserID: users[0], CourseID: course, OpenedAt: time.Now().Add(-time.Minute), ModifiedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	c, err := safetyculture.NewClient(sc.Token, edapp.WithBaseURL(sc.URL))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Courses.ResetProgress(context.Background(), safetyculture.ResetProgressParams{CourseID: course, UserIDs: []string{users[1]}}); err != nil {
		t.Fatal(err)
	}
	n, notes = export()
	rows := scProgressRows(t, url)
	if rows[users[0]] != "<nil>" { // rowsOfDB's NULL
		t.Errorf("the changed row still completed at %q", rows[users[0]])
	}
	_, reset := rows[users[1]]
	if ignores {
		if n != 5 || !strings.Contains(notes, "the service ignores the date filter") || reset || len(rows) != 5 {
			t.Errorf("second run: %d records (%s), %d rows, reset row kept %v: want a full mirror of 5", n, notes, len(rows), reset)
		}
		return
	}
	if n != 1 || !strings.Contains(notes, "fetched from ") || !reset {
		t.Errorf("second run: %d records (%s), reset row kept %v: want the 1 changed, the reset row kept until a full walk", n, notes, reset)
	}
	n, notes = export("--max-age", "1ms")
	if rows := scProgressRows(t, url); n != 5 || !strings.Contains(notes, "fetched in full") || len(rows) != 5 {
		t.Errorf("run past --max-age: %d records (%s), %d rows: want a full mirror of 5", n, notes, len(rows))
	}
}
