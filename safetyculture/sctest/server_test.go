package sctest_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// Every option reports a bad value as the constructor's error wrapping
// edapp.ErrInvalidInput, the first one given; nil (a logger, an option)
// and zero (lag, latency) are good only where documented.
func TestNewServerRefusesBadOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []sctest.Option
		ok   bool
	}{
		{"no options", nil, true},
		{"a nil option is skipped", []sctest.Option{nil}, true},
		{"empty token", []sctest.Option{sctest.WithToken(" ")}, false},
		{"nil clock", []sctest.Option{sctest.WithClock(nil)}, false},
		{"no lag", []sctest.Option{sctest.WithAnalyticsLag(0)}, true},
		{"negative lag", []sctest.Option{sctest.WithAnalyticsLag(-time.Second)}, false},
		{"no latency", []sctest.Option{sctest.WithLatency(0)}, true},
		{"negative latency", []sctest.Option{sctest.WithLatency(-time.Second)}, false},
		{"nil logger: silent", []sctest.Option{sctest.WithLogger(nil)}, true},
		{"limits", []sctest.Option{sctest.WithLimits(sctest.Limits{Catalogue: 1, Other: 1, Window: time.Second})}, true},
		{"zero window", []sctest.Option{sctest.WithLimits(sctest.Limits{Catalogue: 1, Other: 1})}, false},
		{"negative limit", []sctest.Option{sctest.WithLimits(sctest.Limits{Catalogue: -1, Other: 1, Window: time.Minute})}, false},
		{"zero limit, once unlimited", []sctest.Option{sctest.WithLimits(sctest.Limits{Other: 1, Window: time.Minute})}, false},
		{"no limits, on purpose", []sctest.Option{sctest.WithoutLimits()}, true},
		{"the first bad value", []sctest.Option{sctest.WithClock(nil), sctest.WithToken("")}, false},
	} {
		s, err := sctest.NewServer(tc.opts...)
		if tc.ok != (err == nil) || !tc.ok && !errors.Is(err, edapp.ErrInvalidInput) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
		if err == nil {
			s.Close()
		}
	}
	if _, err := sctest.NewServer(sctest.WithClock(nil), sctest.WithToken("")); err == nil || !strings.Contains(err.Error(), "WithClock") {
		t.Errorf("the first bad value is reported: %v", err)
	}
}

func TestServeNeedsTheToken(t *testing.T) {
	t.Parallel()
	s := sctest.New(t, sctest.WithToken("secret-token"))
	for _, auth := range []string{"", "Bearer wrong", "secret-token"} {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/feed/users", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		noErr(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, resp.StatusCode)
		}
	}
	if n := s.RequestCount("GET /feed/users"); n != 0 {
		t.Errorf("unauthenticated requests counted: %d", n)
	}
	if a := get(t, s, "/no/such/route"); a.status != http.StatusNotFound || a.body["code"] != float64(5) {
		t.Errorf("unknown route: %d %s", a.status, a.raw)
	}
}

func TestWhoAmIAnswersTheFirstUser(t *testing.T) {
	t.Parallel()
	s := sctest.New(t)
	uid := must[string](t)(s.AddUser(sctest.UserSpec{Email: "owner@example.com", FirstName: "Olga", LastName: "Owner"}))
	must[string](t)(s.AddUser(sctest.UserSpec{Email: "other@example.com"}))
	a := get(t, s, "/accounts/user/v1/user:WhoAmI")
	if a.body["user_id"] != uid || a.body["organisation_id"] != s.OrganisationID() || a.body["firstname"] != "Olga" || a.body["lastname"] != "Owner" {
		t.Errorf("WhoAmI = %s", a.raw)
	}
	if !strings.HasPrefix(uid, "user_") || len(uid) != 37 {
		t.Errorf("user id %q: want user_ and 32 hex digits", uid)
	}
}

func TestListCoursesPages(t *testing.T) {
	t.Parallel()
	s := sctest.New(t)
	for i := range 30 {
		must[string](t)(first(s.AddCourse(sctest.CourseSpec{Title: fmt.Sprintf("Course %02d", i), Lessons: []sctest.LessonSpec{{Title: "L"}}})))
	}
	a := get(t, s, "/training/courses/v1?page=2&pageSize=25")
	if a.status != http.StatusOK || a.body["totalCount"] != float64(30) || len(a.items()) != 5 {
		t.Fatalf("page 2: %d totalCount=%v items=%d", a.status, a.body["totalCount"], len(a.items()))
	}
	c := a.items()[0]
	if c["title"] != "Course 25" || c["LessonCount"] != float64(1) || c["isPublished"] != true || len(c["id"].(string)) != 24 {
		t.Errorf("course = %v", c)
	}
}

// first drops AddCourse's lesson ids.
func first(id string, _ []string, err error) (string, error) { return id, err }

func TestLimitsAnswer429PerEndpoint(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := sctest.New(t, sctest.WithClock(clk.Now), sctest.WithLimits(sctest.Limits{Catalogue: 2, Other: 3, Window: time.Minute}))
	for i := range 2 {
		a := get(t, s, "/training/courses/v1")
		if a.status != http.StatusOK || a.header.Get("x-ratelimit-remaining") != fmt.Sprint(1-i) {
			t.Fatalf("request %d: %d remaining=%q", i, a.status, a.header.Get("x-ratelimit-remaining"))
		}
	}
	clk.Add(15500 * time.Millisecond)
	a := get(t, s, "/training/courses/v1")
	if a.status != http.StatusTooManyRequests || a.body["code"] != float64(8) {
		t.Fatalf("third catalogue request: %d %s", a.status, a.raw)
	}
	if h := a.header; h.Get("x-ratelimit-limit") != "2" || h.Get("x-ratelimit-remaining") != "0" || h.Get("x-ratelimit-reset") != "45" {
		t.Errorf("429 headers: limit=%q remaining=%q reset=%q", h.Get("x-ratelimit-limit"), h.Get("x-ratelimit-remaining"), h.Get("x-ratelimit-reset"))
	}
	// Another endpoint has its own window and the other class's limit.
	if a := get(t, s, "/feed/users"); a.status != http.StatusOK || a.header.Get("x-ratelimit-limit") != "3" {
		t.Errorf("/feed/users: %d limit=%q", a.status, a.header.Get("x-ratelimit-limit"))
	}
	if s.RequestCount("GET /training/courses/v1") != 3 {
		t.Errorf("count = %d, want 3 (the 429 included)", s.RequestCount("GET /training/courses/v1"))
	}
	clk.Add(45 * time.Second)
	if a := get(t, s, "/training/courses/v1"); a.status != http.StatusOK {
		t.Errorf("after the window: %d", a.status)
	}
}

func TestHandleOverridesARoute(t *testing.T) {
	t.Parallel()
	s := sctest.New(t)
	s.Handle("GET /feed/groups", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	if a := get(t, s, "/feed/groups"); a.status != http.StatusServiceUnavailable {
		t.Errorf("overridden: %d", a.status)
	}
	if a := get(t, s, "/feed/users"); a.status != http.StatusOK {
		t.Errorf("other route: %d", a.status)
	}
	if got := s.RequestCounts(); got["GET /feed/groups"] != 1 || got["GET /feed/users"] != 1 {
		t.Errorf("RequestCounts = %v", got)
	}
}

// TestNewUnstartedServesThroughItsHandler mounts a fake that listens
// nowhere on a server of the test's own, with a latency.
func TestNewUnstartedServesThroughItsHandler(t *testing.T) {
	t.Parallel()
	s, err := sctest.NewUnstarted(sctest.WithLatency(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close() // nothing to stop
	if s.URL != "" {
		t.Errorf("URL = %q, want none", s.URL)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	s.URL = srv.URL
	if a := get(t, s, "/accounts/user/v1/user:WhoAmI"); a.status != http.StatusOK {
		t.Errorf("WhoAmI: %d %s", a.status, a.raw)
	}
	if _, err := sctest.NewUnstarted(sctest.WithLatency(-time.Second)); !errors.Is(err, edapp.ErrInvalidInput) {
		t.Errorf("negative latency: %v", err)
	}
}

func TestServerFailNextOn(t *testing.T) {
	t.Parallel()
	s := sctest.New(t)
	s.FailNextOn("GET /feed/users", 1, http.StatusServiceUnavailable, 1500*time.Millisecond)
	s.FailNext(1, http.StatusTooManyRequests, 0)
	a := get(t, s, "/feed/users")
	if a.status != http.StatusServiceUnavailable || a.header.Get("Retry-After") != "2" || a.body["code"] != float64(13) {
		t.Errorf("scoped failure first: %d %q %s", a.status, a.header.Get("Retry-After"), a.raw)
	}
	if a := get(t, s, "/feed/users"); a.status != http.StatusTooManyRequests || a.body["code"] != float64(8) {
		t.Errorf("then the unscoped one: %d %s", a.status, a.raw)
	}
	if a := get(t, s, "/feed/users"); a.status != http.StatusOK {
		t.Errorf("then none: %d %s", a.status, a.raw)
	}
	if n := s.RequestCount("GET /feed/users"); n != 3 {
		t.Errorf("failed requests are counted: %d, want 3", n)
	}
}

func TestServerHandleRefusesABadPattern(t *testing.T) {
	t.Parallel()
	s := sctest.New(t)
	if err := s.Handle("GET /feed/{bad", http.NotFoundHandler()); !errors.Is(err, edapp.ErrInvalidInput) {
		t.Errorf("bad pattern: %v", err)
	}
}
