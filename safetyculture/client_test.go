package safetyculture

import (
	"context"

	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewClientRefusesBadInput(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		token string
		opts  []edapp.Option
	}{
		"empty token":   {token: " "},
		"line break":    {token: "a\nb"},
		"bad base URL":  {token: "t", opts: []edapp.Option{edapp.WithBaseURL("ftp://x")}},
		"nil limiter":   {token: "t", opts: []edapp.Option{edapp.WithRouteLimiter(nil)}},
		"nil client":    {token: "t", opts: []edapp.Option{edapp.WithHTTPClient(nil)}},
		"bad retry":     {token: "t", opts: []edapp.Option{edapp.WithRetry(edapp.RetryPolicy{MaxRetries: -1})}},
		"bad body size": {token: "t", opts: []edapp.Option{edapp.WithMaxResponseBytes(0)}},
	} {
		_, err := NewClient(tc.token, tc.opts...)
		assert.ErrorIs(t, err, edapp.ErrInvalidInput, name)
	}
	c, err := NewClient("t")
	require.NoError(t, err)
	assert.Equal(t, DefaultBaseURL, c.BaseURL())
	_, err = NewClient("t", nil, edapp.WithLogger(nil))
	assert.NoError(t, err, "a nil option is skipped; edapp.WithLogger(nil) is silent, as edapp.WithLogger(nil)")
}

func TestNewClientFromEnv(t *testing.T) {
	t.Setenv(EnvAPIToken, "")
	_, err := NewClientFromEnv()
	require.ErrorIs(t, err, edapp.ErrInvalidInput)
	assert.Contains(t, err.Error(), EnvAPIToken)

	t.Setenv(EnvAPIToken, "env-token")
	t.Setenv(EnvBaseURL, "http://127.0.0.1:9/prefix")
	c, err := NewClientFromEnv()
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9/prefix", c.BaseURL())
	c, err = NewClientFromEnv(edapp.WithBaseURL("https://api.mitti.com"))
	require.NoError(t, err)
	assert.Equal(t, "https://api.mitti.com", c.BaseURL(), "an explicit option wins")

	t.Setenv(EnvBaseURL, "not a url")
	_, err = NewClientFromEnv()
	require.ErrorIs(t, err, edapp.ErrInvalidInput)
	assert.NotContains(t, err.Error(), "not a url")
}

func TestClientSendsTheVendorsHeaders(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/courses/v1", 200, `{"totalCount":0,"items":[]}`)
	c := w.client(t, edapp.WithUserAgent("acme-sync/1"))
	_, err := c.Courses.List(ctx, nil)
	require.NoError(t, err)
	_, err = c.Courses.List(ctx, nil, edapp.WithHeader("X-Trace", "1"))
	require.NoError(t, err)
	reqs := w.requests()
	require.Len(t, reqs, 2)
	h := reqs[0].Header
	assert.Equal(t, "Bearer "+testToken, h.Get("Authorization"))
	assert.Equal(t, IntegrationID, h.Get("sc-integration-id"))
	assert.Equal(t, edapp.Version, h.Get("sc-integration-version"))
	assert.Len(t, h.Get("X-Request-ID"), 32)
	assert.NotEqual(t, h.Get("X-Request-ID"), reqs[1].Header.Get("X-Request-ID"), "a request id per call")
	assert.True(t, strings.HasPrefix(h.Get("User-Agent"), "acme-sync/1 edapp-go/"))
	assert.Equal(t, "1", reqs[1].Header.Get("X-Trace"))
}

func TestClientNeverPrintsTheToken(t *testing.T) {
	t.Parallel()
	c, err := NewClient(testToken)
	require.NoError(t, err)
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%v", c.Courses)} {
		assert.NotContains(t, s, testToken)
	}
}

func TestClientErrorsAreTheRootsAPIErrors(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/lessons/v1/{id}", 404, `{"code":5,"message":"lesson not found for `+testToken+`","details":[]}`)
	c := w.client(t)
	var resp edapp.Response
	_, err := c.Courses.Lesson(ctx, "l1", edapp.WithResponseInto(&resp))
	require.ErrorIs(t, err, edapp.ErrNotFound)
	var ae *edapp.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "/training/lessons/v1/l1", ae.Path)
	assert.Contains(t, ae.Message, "lesson not found")
	assert.NotContains(t, err.Error(), testToken)
	assert.Equal(t, 404, resp.StatusCode)
	_, err = c.Courses.Lesson(ctx, "..")
	assert.ErrorIs(t, err, edapp.ErrInvalidInput)
}

func TestClientRetriesA5xxRead(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	var mu sync.Mutex
	n := 0
	w.mux.HandleFunc("GET /training/paths/v1/{id}", func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			rw.WriteHeader(503)
			return
		}
		rw.Write([]byte(`{"id":"p1","title":"Onboarding"}`))
	})
	var resp edapp.Response
	p, err := w.client(t).Paths.Get(ctx, "p1", edapp.WithResponseInto(&resp))
	require.NoError(t, err)
	assert.Equal(t, "Onboarding", p.Title)
	assert.Equal(t, 2, resp.Attempts)
}

func TestWritesAreNotSentAgainAfterTheServiceMayHaveActed(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("PUT /training/courses/v1/{id}/assignments", 503, `{"message":"busy"}`)
	w.handle("POST /training/courseprogress/v1/reset", 502, ``)
	c := w.client(t)
	_, err := c.Courses.UpdateAssignments(ctx, "c1", AssignmentsParams{Assignments: []Assignment{{ID: "u1", Type: AssignUser, IsAssigned: true}}})
	require.ErrorIs(t, err, edapp.ErrServer)
	_, err = c.Courses.ResetProgress(ctx, ResetProgressParams{CourseID: "c1", UserIDs: []string{"u1"}})
	require.ErrorIs(t, err, edapp.ErrServer)
	assert.Len(t, w.requests(), 2, "each write was sent once")
}

func TestClientBoundsTheAnswer(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/paths/v1/{id}", 200, `{"id":"p1","title":"`+strings.Repeat("x", 500)+`"}`)
	_, err := w.client(t, edapp.WithMaxResponseBytes(100)).Paths.Get(ctx, "p1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than 100 bytes")
}

func TestA429PausesOnlyThatEndpoint(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.mux.HandleFunc("GET /training/courses/v1", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("X-RateLimit-Limit", "200")
		rw.Header().Set("X-RateLimit-Reset", "30")
		rw.WriteHeader(http.StatusTooManyRequests)
	})
	w.handle("GET /feed/users", 200, fixture(t, "feed_users.json"))
	var logs logBuffer
	var waits []edapp.WaitEvent
	var mu sync.Mutex
	obs := edapp.Observer{Wait: func(_ context.Context, e edapp.WaitEvent) { mu.Lock(); waits = append(waits, e); mu.Unlock() }}
	c := w.client(t, edapp.WithLogger(logs.logger()), edapp.WithObserver(obs))

	_, err := c.Courses.List(ctx, nil, edapp.WithMaxThrottle(0))
	require.ErrorIs(t, err, edapp.ErrRateLimited)
	assert.Contains(t, logs.String(), "pausing the requests of GET /training/courses/v1 only")
	assert.NotContains(t, logs.String(), "pausing every request")

	users, err := collect(t, c.Feeds.AllUsers(ctx, edapp.WithMaxThrottle(0)))
	require.NoError(t, err, "another endpoint is not paused")
	assert.Len(t, users, 2)

	_, err = c.Courses.List(ctx, nil, edapp.WithMaxThrottle(0))
	require.ErrorIs(t, err, edapp.ErrRateLimited, "the endpoint is still paused")
	n := 0
	for _, r := range w.requests() {
		if r.URL.Path == "/training/courses/v1" {
			n++
		}
	}
	assert.Equal(t, 1, n, "the paused call was not sent")
}

func TestClientLogsALimitThatDisagreesOnce(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.mux.HandleFunc("GET /training/analytics/v1/lessons/attempts", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("X-RateLimit-Limit", "200")
		rw.Write([]byte(`{"totalCount":0,"items":[]}`))
	})
	var logs logBuffer
	c := w.client(t, edapp.WithLogger(logs.logger()))
	for range 3 {
		_, err := c.Analytics.ListLessonAttempts(ctx, nil)
		require.NoError(t, err)
	}
	assert.Equal(t, 1, strings.Count(logs.String(), "rate limit differs"))
	assert.Contains(t, logs.String(), "assumed=800")
}

func TestWithLimiterIsAskedOncePerRoute(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/courses/v1/{id}/lessons", 200, `{"lessons":[]}`)
	w.handle("GET /feed/groups", 200, fixture(t, "feed_groups.json"))
	var mu sync.Mutex
	asked := map[string]int{}
	c := w.client(t, edapp.WithRouteLimiter(func(route string) edapp.Limiter {
		mu.Lock()
		defer mu.Unlock()
		asked[route]++
		l, _ := edapp.NewWindowLimiter(LimitFor(route), LimitWindow)
		return l
	}))
	for range 2 {
		_, err := c.Courses.Lessons(ctx, "c1")
		require.NoError(t, err)
		_, err = c.Courses.Lessons(ctx, "c2")
		require.NoError(t, err)
		_, err = c.Feeds.ListGroups(ctx, nil)
		require.NoError(t, err)
	}
	assert.Equal(t, map[string]int{"GET /training/courses/v1/{courseId}/lessons": 1, "GET /feed/groups": 1}, asked)
}

func TestClassOf(t *testing.T) {
	t.Parallel()
	assert.Equal(t, ClassCatalogue, ClassOf("GET /training/courses/v1"))
	assert.Equal(t, ClassCatalogue, ClassOf("PUT /training/courses/v1/{courseId}/assignments"))
	assert.Equal(t, ClassOther, ClassOf("GET /training/lessons/v1/{lessonId}"))
	assert.Equal(t, ClassOther, ClassOf("GET /training/analytics/v1/lessons/attempts"))
	assert.Equal(t, 200, LimitFor("GET /training/paths/v1"))
	assert.Equal(t, 800, LimitFor("GET /feed/users"))
	for _, r := range Routes() {
		assert.Contains(t, r, " /", r)
	}
	assert.Len(t, Routes(), 36)
}

func TestObserverSeesTheRoute(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/analytics/v1/users/{id}/lessons/progress", 200, `{"totalCount":1,"items":[{"userId":"u1","lessonId":"l1"}]}`)
	var mu sync.Mutex
	var calls []edapp.CallEvent
	var pages []edapp.PageEvent
	obs := edapp.Observer{
		CallEnd: func(_ context.Context, e edapp.CallEvent) { mu.Lock(); calls = append(calls, e); mu.Unlock() },
		Page:    func(_ context.Context, e edapp.PageEvent) { mu.Lock(); pages = append(pages, e); mu.Unlock() },
	}
	_, err := w.client(t, edapp.WithObserver(obs)).Analytics.ListUserLessonProgress(ctx, "u1", nil)
	require.NoError(t, err)
	require.Len(t, calls, 1)
	assert.Equal(t, "/training/analytics/v1/users/{userId}/lessons/progress", calls[0].Route)
	assert.Equal(t, 200, calls[0].StatusCode)
	require.Len(t, pages, 1)
	assert.Equal(t, 1, pages[0].Items)
}

func TestA429IsRetriedAfterTheReset(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	var mu sync.Mutex
	n := 0
	w.mux.HandleFunc("GET /feed/groups", func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			rw.Header().Set("X-RateLimit-Reset", "1")
			rw.WriteHeader(http.StatusTooManyRequests)
			return
		}
		rw.Write([]byte(fixture(t, "feed_groups.json")))
	})
	var kinds []edapp.WaitKind
	obs := edapp.Observer{Wait: func(_ context.Context, e edapp.WaitEvent) {
		mu.Lock()
		kinds = append(kinds, e.Kind)
		mu.Unlock()
	}}
	var resp edapp.Response
	page, err := w.client(t, edapp.WithObserver(obs)).Feeds.ListGroups(ctx, nil, edapp.WithResponseInto(&resp))
	require.NoError(t, err)
	assert.Len(t, page.Items, 2)
	assert.Equal(t, 2, resp.Attempts)
	assert.Contains(t, kinds, edapp.WaitPause, "the pause is reported")
}
