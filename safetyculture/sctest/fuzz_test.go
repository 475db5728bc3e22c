package sctest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// FuzzQueryParameters: no query string makes a route fail with a 5xx or
// a panic.
func FuzzQueryParameters(f *testing.F) {
	for _, seed := range []string{"limit=5&cursor=MQ", "cursor=%ff", "offset=-3", "page=2&pageSize=0",
		"completion_status=COMPLETION_STATUS_ALL&modifiedAfter=2026-01-01T00:00:00Z", "show_only_leaf_nodes=1&include_deleted=t",
		"startDateTime=2026-13-01", "leaderboardId=" + strings.Repeat("x", 300)} {
		f.Add(seed)
	}
	s, err := sctest.NewServer()
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	uid, _ := s.AddUser(sctest.UserSpec{Email: "a@example.com"})
	_, lids, _ := s.AddCourse(sctest.CourseSpec{Title: "C", Lessons: []sctest.LessonSpec{{Title: "L"}}})
	_ = s.CompleteLesson(uid, lids[0], 50, time.Time{})
	paths := []string{"/feed/users", "/feed/sites", "/training/v1/feed/training-course-progress", "/training/courses/v1",
		"/training/analytics/v1/lessons/attempts", "/training/individualleaderboards/v1/rankings"}
	f.Fuzz(func(t *testing.T, query string) {
		for _, p := range paths {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.URL.Path, req.URL.RawQuery = p, query
			req.Header.Set("Authorization", "Bearer "+s.Token)
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			if rec.Code >= 500 {
				t.Fatalf("%s?%s: %d %s", p, query, rec.Code, rec.Body)
			}
		}
	})
}

// panicRecorder stands in for a test, to see New report a handler panic.
type panicRecorder struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (p *panicRecorder) Helper()          {}
func (p *panicRecorder) Cleanup(f func()) { p.cleanups = append(p.cleanups, f) }

func (p *panicRecorder) Errorf(format string, args ...any) {
	p.errors = append(p.errors, fmt.Sprintf(format, args...))
}

func TestNewFailsTheTestOnAHandlerPanic(t *testing.T) {
	t.Parallel()
	rec := &panicRecorder{TB: t}
	s := sctest.New(rec)
	s.Handle("GET /feed/users", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	if a := get(t, s, "/feed/users"); a.status != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", a.status)
	}
	if len(rec.errors) != 0 {
		t.Errorf("reported before the test ends: %q", rec.errors)
	}
	for _, f := range rec.cleanups {
		f()
	}
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "GET /feed/users: boom") {
		t.Errorf("reported %q", rec.errors)
	}
}
