package edapp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"sync/atomic"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertPage checks a page's items and count, and that it carries the
// Response it came from.
func assertPage[T any](t *testing.T, want, got *Page[T], msgAndArgs ...any) {
	t.Helper()
	if !assert.NotNil(t, got, msgAndArgs...) {
		return
	}
	assert.Equal(t, want.Items, got.Items, msgAndArgs...)
	assert.Equal(t, totalOf(want.Response), totalOf(got), msgAndArgs...)
	if assert.NotNil(t, got.Response, msgAndArgs...) {
		assert.Equal(t, totalOf(got), totalOf(got.Response), msgAndArgs...)
		assert.Equal(t, 1, got.Response.Attempts, msgAndArgs...)
	}
}

// metaServer answers every request with status and body, a request id and
// a custom header, and records what it was sent.
type metaServer struct {
	mu      sync.Mutex
	headers []http.Header
	fails   int // answer 503 this many times first
}

func (m *metaServer) handler(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.headers = append(m.headers, r.Header.Clone())
		fail := m.fails > 0
		if fail {
			m.fails--
		}
		m.mu.Unlock()
		w.Header().Set("X-Request-Id", "req-42")
		w.Header().Set("X-RateLimit-Remaining", "1399")
		if fail {
			http.Error(w, `{"message":"busy"}`, http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func TestWithResponseIntoOnEveryKindOfCall(t *testing.T) {
	t.Parallel()
	ms := &metaServer{}
	c := coreServer(t, ms.handler(http.StatusOK, `{"totalCount":3,"items":[{"id":"a","name":"x"}]}`))
	ctx := context.Background()
	check := func(t *testing.T, r Response, total int) {
		t.Helper()
		assert.Equal(t, http.StatusOK, r.StatusCode)
		assert.Equal(t, "req-42", r.RequestID)
		assert.Equal(t, "1399", r.Header.Get("X-RateLimit-Remaining"))
		assert.Equal(t, 1, r.Attempts)
		assert.Equal(t, total, totalOf(&r))
	}
	t.Run("v2 method", func(t *testing.T) {
		var r Response
		_, err := c.Users.Get(ctx, "a", WithResponseInto(&r))
		require.NoError(t, err)
		check(t, r, -1)
	})
	t.Run("list", func(t *testing.T) {
		var r Response
		p, err := c.Users.List(ctx, nil, WithResponseInto(&r))
		require.NoError(t, err)
		check(t, r, 3)
		check(t, *p.Response, 3)
	})
	t.Run("Do", func(t *testing.T) {
		var r Response
		require.NoError(t, c.Do(ctx, http.MethodGet, "/v2/anything", nil, nil, nil, WithResponseInto(&r)))
		check(t, r, -1)
	})
	t.Run("failed call", func(t *testing.T) {
		var r Response
		err := c.Do(ctx, http.MethodGet, "/v2/anything", nil, nil, new([]int), WithResponseInto(&r))
		var de *DecodeError
		require.ErrorAs(t, err, &de)
		check(t, r, -1)
		assert.Equal(t, *de.Response, r)
	})
}

func TestWithResponseIntoOnAllIsFilledPerPageOnTheLoopGoroutine(t *testing.T) {
	t.Parallel()
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		page := r.URL.Query().Get("page")
		w.Header().Set("X-Request-Id", "req-page-"+page)
		if page > "3" {
			fmt.Fprint(w, `{"totalCount":6,"items":[]}`)
			return
		}
		fmt.Fprintf(w, `{"totalCount":6,"items":[{"id":"%s-1"},{"id":"%s-2"}]}`, page, page)
	})
	var r Response
	var seen []string
	for u, err := range c.Users.All(context.Background(), &UserListOptions{ListOptions: ListOptions{PageSize: 2}}, WithResponseInto(&r)) {
		require.NoError(t, err)
		// Read without a lock: the race detector proves no other goroutine writes it.
		assert.Equal(t, "req-page-"+u.ID[:1], r.RequestID)
		assert.Equal(t, 6, totalOf(&r))
		seen = append(seen, u.ID)
	}
	assert.Equal(t, []string{"1-1", "1-2", "2-1", "2-2", "3-1", "3-2"}, seen)
}

func TestAttemptsAndWaitedAfterTwo503s(t *testing.T) {
	t.Parallel()
	ms := &metaServer{fails: 2}
	policy := RetryPolicy{MaxRetries: 3, MinWait: 20 * time.Millisecond, MaxWait: 40 * time.Millisecond}
	c := coreServer(t, ms.handler(http.StatusOK, `{"id":"a"}`), WithRetry(policy))
	var r Response
	_, err := c.Users.Get(context.Background(), "a", WithResponseInto(&r))
	require.NoError(t, err)
	assert.Equal(t, 3, r.Attempts)
	// Equal jitter: each wait is at least half its step (MinWait, then 2·MinWait).
	assert.GreaterOrEqual(t, r.Waited, 10*time.Millisecond+20*time.Millisecond)
	assert.Equal(t, http.StatusOK, r.StatusCode)
}

func TestErrorsCarryTheResponse(t *testing.T) {
	t.Parallel()
	ms := &metaServer{}
	c := coreServer(t, ms.handler(http.StatusNotFound, `{"message":"no such user"}`))
	var r Response
	_, err := c.Users.Get(context.Background(), "a", WithResponseInto(&r))
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusNotFound, ae.Response.StatusCode)
	assert.Equal(t, "req-42", ae.RequestID)
	assert.Equal(t, 1, ae.Response.Attempts)
	assert.Equal(t, *ae.Response, r)
}

func TestUnsuccessfulAnswerKeepsItsRealStatus(t *testing.T) {
	t.Parallel()
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"success":false,"message":"locked"}`)
	})
	err := c.Users.Delete(context.Background(), "a")
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.ErrorIs(t, err, ErrUnsuccessful)
	assert.Equal(t, http.StatusAccepted, ae.StatusCode)
	assert.Equal(t, http.StatusAccepted, ae.Response.StatusCode)
}

func TestWithHeader(t *testing.T) {
	t.Parallel()
	ms := &metaServer{}
	c := coreServer(t, ms.handler(http.StatusOK, `{"id":"a"}`))
	_, err := c.Users.Get(context.Background(), "a", WithHeader("X-Trace", "t-1"))
	require.NoError(t, err)
	require.Len(t, ms.headers, 1)
	assert.Equal(t, "t-1", ms.headers[0].Get("X-Trace"))
	assert.Equal(t, "Bearer "+coreToken, ms.headers[0].Get("Authorization"))

	for _, key := range []string{"Authorization", "authorization", " AUTHORIZATION "} {
		var r Response
		_, err := c.Users.Get(context.Background(), "a", WithHeader(key, "Bearer stolen"), WithResponseInto(&r))
		assert.ErrorIs(t, err, ErrInvalidInput, key)
		assert.Zero(t, r.Attempts, "nothing sent")
	}
	for range c.Users.All(context.Background(), nil, WithHeader("Authorization", "x")) {
	}
	_, err = c.Users.Get(context.Background(), "a", WithHeader("X-Bad", "a\r\nInjected: 1"))
	assert.ErrorIs(t, err, ErrInvalidInput)
	assert.Len(t, ms.headers, 1, "refused calls sent nothing")
}

func TestWithRequestRetry(t *testing.T) {
	t.Parallel()
	ms := &metaServer{fails: 5}
	c := coreServer(t, ms.handler(http.StatusOK, `{"id":"a"}`), WithRetry(RetryPolicy{MaxRetries: 0}))
	var r Response
	_, err := c.Users.Get(context.Background(), "a", WithResponseInto(&r),
		WithRequestRetry(RetryPolicy{MaxRetries: 1, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
	assert.ErrorIs(t, err, ErrServer)
	assert.Equal(t, 2, r.Attempts, "this call retried once, though the client does not retry")

	_, err = c.Users.Get(context.Background(), "a", WithRequestRetry(RetryPolicy{MaxRetries: -1}))
	assert.ErrorIs(t, err, ErrInvalidInput)
}

func TestResponseNeverHoldsTheToken(t *testing.T) {
	t.Parallel()
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "echo-"+coreToken)
		w.Header().Set("X-Echo", url.QueryEscape(r.Header.Get("Authorization")))
		io.WriteString(w, `{"id":"a"}`)
	})
	var r Response
	_, err := c.Users.Get(context.Background(), "a", WithResponseInto(&r))
	require.NoError(t, err)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.NotContains(t, fmt.Sprintf(verb, r), coreToken, verb)
	}
	var buf strings.Builder
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "resp", r)
	assert.NotContains(t, buf.String(), coreToken)
}

func TestEmptyAnswerToACreateIsAnError(t *testing.T) {
	t.Parallel()
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) })
	u, err := c.Users.Create(context.Background(), UserCreateParams{Username: "a"})
	var de *DecodeError
	require.ErrorAs(t, err, &de)
	assert.Nil(t, u)
	assert.Equal(t, http.StatusCreated, de.StatusCode)
	_, err = c.UserGroups.Create(context.Background(), UserGroupCreateParams{Name: "g"})
	assert.ErrorAs(t, err, &de)
	_, err = c.Webhooks.Create(context.Background(), WebhookCreateParams{EventName: EventCourseCompleted, WebHookURL: "https://example.com/h"})
	assert.ErrorAs(t, err, &de)
	// Deletes and Do may answer nothing.
	assert.NoError(t, c.Users.Delete(context.Background(), "a"))
	assert.NoError(t, c.Do(context.Background(), http.MethodPost, "/v2/x", nil, nil, new(map[string]any)))
}

// TestRequestOptionsRejectBadValuesBeforeSending: every bad value of every
// per-call option fails that call with ErrInvalidInput, for a typed
// method, a list, an All iterator and Client.Do alike, and nothing is sent.
func TestRequestOptionsRejectBadValuesBeforeSending(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"id":"u1"}`))
	})
	bad := map[string]RequestOption{
		"WithHeader Authorization":     WithHeader("Authorization", "Bearer x"),
		"WithHeader empty key":         WithHeader("", "v"),
		"WithHeader key with a colon":  WithHeader("A:B", "v"),
		"WithHeader value with a CRLF": WithHeader("X-A", "v\r\nX-B: 1"),
		"WithRequestRetry negative":    WithRequestRetry(RetryPolicy{MaxRetries: -1}),
		"WithRequestRetry MaxWait":     WithRequestRetry(RetryPolicy{MinWait: time.Second, MaxWait: time.Millisecond}),
		"WithMaxThrottle negative":     WithMaxThrottle(-time.Second),
		"WithPageConcurrency 0":        WithPageConcurrency(0),
		"WithPageConcurrency negative": WithPageConcurrency(-3),
		"WithInFlight nil":             WithInFlight(nil),
		"WithInFlight unbuffered":      WithInFlight(make(chan struct{})),
		"WithRoute empty":              WithRoute(""),
		"WithRoute relative":           WithRoute("v2/users"),
		"WithRoute with a query":       WithRoute("/v2/users?x=1"),
	}
	ctx := context.Background()
	for name, opt := range bad {
		t.Run(name, func(t *testing.T) {
			var resp Response
			_, err := c.Users.Get(ctx, "u1", opt, WithResponseInto(&resp))
			assert.ErrorIs(t, err, ErrInvalidInput, "Get")
			assert.Equal(t, 0, resp.Attempts)
			_, err = c.Users.List(ctx, nil, opt)
			assert.ErrorIs(t, err, ErrInvalidInput, "List")
			for _, err := range c.Users.All(ctx, nil, opt) {
				assert.ErrorIs(t, err, ErrInvalidInput, "All")
			}
			assert.ErrorIs(t, c.Do(ctx, http.MethodGet, "/v2/users/u1", nil, nil, nil, opt), ErrInvalidInput, "Do")
			assert.ErrorIs(t, c.DoChecked(ctx, http.MethodDelete, "/v2/users/u1", nil, nil, opt), ErrInvalidInput, "DoChecked")
		})
	}
	assert.EqualValues(t, 0, hits.Load(), "nothing was sent")
	_, err := c.Users.Get(ctx, "u1", WithRoute("/v2/users/{userId}"), WithMaxThrottle(0), WithPageConcurrency(1))
	require.NoError(t, err, "good values pass")
}

// TestWithInFlight: two walks and single calls sharing one semaphore never
// have more requests in flight than its places, every page holds one while
// it is fetched, and a call waiting for a place ends with its ctx, unsent.
func TestWithInFlight(t *testing.T) {
	t.Parallel()
	var inFlight, most, hits atomic.Int32
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		page := r.URL.Query().Get("page")
		if page == "4" {
			w.Write([]byte(`{"items":[],"totalCount":6}`))
			return
		}
		fmt.Fprintf(w, `{"items":[{"id":"u%[1]s-1"},{"id":"u%[1]s-2"}],"totalCount":6}`, page)
	})
	sem := make(chan struct{}, 2)
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for _, err := range c.Users.All(ctx, &UserListOptions{ListOptions: ListOptions{PageSize: 2}}, WithInFlight(sem), WithPageConcurrency(4)) {
				assert.NoError(t, err)
				n++
			}
			assert.Equal(t, 6, n, "every user of the walk")
		}()
	}
	wg.Wait()
	assert.EqualValues(t, 2, most.Load(), "the walks filled the two places, and never more")
	assert.Empty(t, sem, "every place given back")

	sem <- struct{}{}
	sem <- struct{}{}
	before := hits.Load()
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err := c.Users.Get(short, "u1", WithInFlight(sem))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, before, hits.Load(), "a call that found no place sent nothing")
}

// Nil means something only where an option documents it: a nil Option is
// skipped, WithLogger(nil) is silent, WithLimiter(nil) turns limiting off
// (TestNewClientRejectsBadInput has the bad values).
func TestNewClientNilOnlyWhereDocumented(t *testing.T) {
	t.Parallel()
	_, err := NewClient("t", nil, WithLogger(nil), WithLimiter(nil))
	assert.NoError(t, err)
	_, err = NewClient("t", WithHTTPClient(nil))
	assert.ErrorIs(t, err, ErrInvalidInput)
}

// gateLimiter holds every call whose context carries heldKey until open
// is closed, and lets the others go at once.
type gateLimiter struct {
	open    chan struct{}
	waiting chan struct{} // told once a held call waits
}

type heldKey struct{}

func (l gateLimiter) Wait(ctx context.Context) error {
	if ctx.Value(heldKey{}) == nil {
		return nil
	}
	l.waiting <- struct{}{}
	select {
	case <-l.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestWithInFlightLimiterWaitHoldsNoPlace: a call waiting for the limiter
// leaves its place to a call that may go, and takes one once it may.
func TestWithInFlightLimiterWaitHoldsNoPlace(t *testing.T) {
	t.Parallel()
	l := gateLimiter{open: make(chan struct{}), waiting: make(chan struct{}, 1)}
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"id":"u1"}`)
	}, WithLimiter(l))
	sem := make(chan struct{}, 1)
	ctx := context.Background()
	held := make(chan error, 1)
	go func() {
		_, err := c.Users.Get(context.WithValue(ctx, heldKey{}, true), "u1", WithInFlight(sem))
		held <- err
	}()
	<-l.waiting
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := c.Users.Get(short, "u1", WithInFlight(sem))
	assert.NoError(t, err, "the one place is free while the other call waits for the limiter")
	close(l.open)
	assert.NoError(t, <-held)
	assert.Empty(t, sem, "every place given back")
}
