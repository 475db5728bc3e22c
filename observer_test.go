package edapp_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

// eventLog records every Observer event.
type eventLog struct {
	mu       sync.Mutex
	starts   []edapp.CallEvent
	ends     []edapp.CallEvent
	attempts []edapp.AttemptEvent
	waits    []edapp.WaitEvent
	pages    []edapp.PageEvent
}

func (l *eventLog) observer() edapp.Observer {
	return edapp.Observer{
		CallStart: func(ctx context.Context, e edapp.CallEvent) context.Context {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.starts = append(l.starts, e)
			return ctx
		},
		CallEnd: func(_ context.Context, e edapp.CallEvent) { l.mu.Lock(); l.ends = append(l.ends, e); l.mu.Unlock() },
		Attempt: func(_ context.Context, e edapp.AttemptEvent) {
			l.mu.Lock()
			l.attempts = append(l.attempts, e)
			l.mu.Unlock()
		},
		Wait: func(_ context.Context, e edapp.WaitEvent) { l.mu.Lock(); l.waits = append(l.waits, e); l.mu.Unlock() },
		Page: func(_ context.Context, e edapp.PageEvent) { l.mu.Lock(); l.pages = append(l.pages, e); l.mu.Unlock() },
	}
}

// waited sums the waits of one kind ("" for every kind).
func (l *eventLog) waited(kind edapp.WaitKind) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var d time.Duration
	for _, w := range l.waits {
		if kind == "" || w.Kind == kind {
			d += w.Duration
		}
	}
	return d
}

func (l *eventLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprintf("%+v %+v %+v %+v %+v", l.starts, l.ends, l.attempts, l.waits, l.pages)
}

var fastRetry = edapp.RetryPolicy{MaxRetries: 5, MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond}

func TestObserverSeesACallThroughA429Storm(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	id, err := srv.AddUser(edapptest.UserSpec{Username: "ann@example.com", ExternalID: "secret-ext"})
	require.NoError(t, err)
	var log eventLog
	c := srv.Client(edapp.WithObserver(log.observer()), edapp.WithRetry(fastRetry))

	srv.FailNext(3, http.StatusTooManyRequests, 0)
	var resp edapp.Response
	_, err = c.Users.Get(context.Background(), id, edapp.WithResponseInto(&resp))
	require.NoError(t, err)

	require.Len(t, log.starts, 1)
	require.Len(t, log.ends, 1)
	assert.Equal(t, edapp.CallEvent{Method: "GET", Route: "/v2/users/{userId}"}, log.starts[0])
	end := log.ends[0]
	assert.Equal(t, "/v2/users/{userId}", end.Route)
	assert.Equal(t, 200, end.StatusCode)
	assert.Equal(t, edapp.ErrorClassNone, end.Error)
	assert.Equal(t, 4, end.Attempts)
	assert.Equal(t, resp.Waited, end.Waited)

	var statuses []int
	for i, a := range log.attempts {
		assert.Equal(t, i+1, a.Attempt)
		assert.Equal(t, "/v2/users/{userId}", a.Route)
		statuses = append(statuses, a.StatusCode)
	}
	assert.Equal(t, []int{429, 429, 429, 200}, statuses)
	assert.Equal(t, 4, resp.Attempts)
	assert.Greater(t, log.waited(edapp.WaitPause), time.Duration(0), "the 429 pauses are waits")
	assert.Equal(t, resp.Waited, log.waited(""), "Waited counts every wait the observer saw")

	text := log.String()
	assert.NotContains(t, text, id, "events carry the route, never the path")
	assert.NotContains(t, text, srv.Token)
	assert.NotContains(t, text, "ann@example.com")
}

func TestObserverSeesEveryPageOfAWalk(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	for i := range 5 {
		_, err := srv.AddUser(edapptest.UserSpec{Username: fmt.Sprintf("u%d@example.com", i)})
		require.NoError(t, err)
	}
	var log eventLog
	limiter, err := edapp.NewWindowLimiter(100, time.Minute)
	require.NoError(t, err)
	c := srv.Client(edapp.WithObserver(log.observer()), edapp.WithLimiter(limiter))
	n := 0
	for _, err := range c.Users.All(context.Background(), &edapp.UserListOptions{ListOptions: edapp.ListOptions{PageSize: 2}}, edapp.WithPageConcurrency(1)) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 5, n)
	var pages, items []int
	for _, p := range log.pages {
		assert.Equal(t, "/v2/users", p.Route)
		pages, items = append(pages, p.Page), append(items, p.Items)
	}
	assert.Equal(t, []int{1, 2, 3}, pages)
	assert.Equal(t, []int{2, 2, 1}, items)
	require.Len(t, log.waits, 3, "one limiter wait per page")
	for _, w := range log.waits {
		assert.Equal(t, edapp.WaitBulk, w.Kind, "a walk draws from the bulk lane")
	}
	used, limit := limiter.BudgetUsed()
	assert.Equal(t, 3, used)
	assert.Equal(t, 100, limit)
}

func TestObserverRoutesOfDoAndV1(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	var log eventLog
	c := srv.Client(edapp.WithObserver(log.observer()))
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, http.MethodGet, "/v2/users", nil, nil, nil))
	require.NoError(t, c.Do(ctx, http.MethodGet, "/v2/users", nil, nil, nil, edapp.WithRoute("/v2/users")))
	err := c.Do(ctx, http.MethodGet, "/v2/users/nobody", nil, nil, nil)
	require.ErrorIs(t, err, edapp.ErrNotFound)
	var routes []string
	for _, e := range log.ends {
		routes = append(routes, e.Route)
	}
	assert.Equal(t, []string{"custom", "/v2/users", "custom"}, routes)
	assert.Equal(t, edapp.ErrorClassStatus, log.ends[2].Error)
	assert.Equal(t, 404, log.ends[2].StatusCode)
}

// TestObserverThatPanicsDoesNotBreakTheCall: every callback panics, and the
// calls, a retry and a walk still succeed.
func TestObserverThatPanicsDoesNotBreakTheCall(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	_, err := srv.AddUser(edapptest.UserSpec{Username: "a@example.com"})
	require.NoError(t, err)
	boom := func() { panic("observer bug") }
	c := srv.Client(edapp.WithRetry(fastRetry), edapp.WithObserver(edapp.Observer{
		CallStart: func(context.Context, edapp.CallEvent) context.Context { boom(); return nil },
		CallEnd:   func(context.Context, edapp.CallEvent) { boom() },
		Attempt:   func(context.Context, edapp.AttemptEvent) { boom() },
		Wait:      func(context.Context, edapp.WaitEvent) { boom() },
		Page:      func(context.Context, edapp.PageEvent) { boom() },
	}))
	srv.FailNext(1, http.StatusServiceUnavailable, 0)
	users, err := c.Users.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, users.Items, 1)
	for _, err := range c.Users.All(context.Background(), nil) {
		require.NoError(t, err)
	}
}

// TestObserverUnsetCostsNothing: a client whose Observer has no callbacks
// allocates no more per call than one without.
// TestResponseWaitedCountsThePause: a call that got a 429 with a
// Retry-After of one second, and a call that came during the pause, both
// count the pause in Response.Waited.
func TestResponseWaitedCountsThePause(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	id, err := srv.AddUser(edapptest.UserSpec{Username: "a@example.com"})
	require.NoError(t, err)
	spy := &pauseSpy{paused: make(chan struct{}, 2)}
	c := srv.Client(edapp.WithRetry(fastRetry), edapp.WithLimiter(spy))
	srv.FailNext(1, http.StatusTooManyRequests, time.Second)
	ctx := context.Background()
	var first, second edapp.Response
	_, err = c.Users.Get(ctx, id, edapp.WithResponseInto(&first))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, first.Waited, 900*time.Millisecond, "the call that got the 429 sat out its Retry-After")
	assert.Equal(t, 2, first.Attempts)
	<-spy.paused

	srv.FailNext(1, http.StatusTooManyRequests, time.Second)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := c.Users.Get(ctx, id)
		assert.NoError(t, err)
	}()
	<-spy.paused // the other call's 429 paused the client
	_, err = c.Users.Get(ctx, id, edapp.WithResponseInto(&second))
	require.NoError(t, err)
	<-done
	assert.Greater(t, second.Waited, 500*time.Millisecond, "a call made during the pause sat it out: %v", second.Waited)
}

// pauseSpy is a Limiter that lets everything through and signals each
// Pause the client makes.
type pauseSpy struct{ paused chan struct{} }

func (p *pauseSpy) Wait(context.Context) error { return nil }
func (p *pauseSpy) Pause(time.Time)            { p.paused <- struct{}{} }

// TestObserverAccountsForEveryCallInAStorm: eight calls at once meet a
// storm of 429s. Every call ends, every attempt the fake received is one
// Attempt event, and the calls' Waited add up to the Wait events.
func TestObserverAccountsForEveryCallInAStorm(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	id, err := srv.AddUser(edapptest.UserSpec{Username: "a@example.com"})
	require.NoError(t, err)
	var log eventLog
	c := srv.Client(edapp.WithObserver(log.observer()),
		edapp.WithRetry(edapp.RetryPolicy{MaxRetries: 10, MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond}))
	srv.FailNext(12, http.StatusTooManyRequests, 0)

	const calls = 8
	resps := make([]edapp.Response, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Users.Get(context.Background(), id, edapp.WithResponseInto(&resps[i]))
			assert.NoError(t, err)
		}()
	}
	wg.Wait()

	require.Len(t, log.starts, calls)
	require.Len(t, log.ends, calls)
	var attempts int
	var waited time.Duration
	for _, r := range resps {
		attempts += r.Attempts
		waited += r.Waited
	}
	assert.Len(t, log.attempts, attempts)
	assert.Len(t, srv.Requests(), attempts, "every request the fake received was an attempt")
	assert.Equal(t, calls+12, attempts, "each call succeeded once; each 429 cost one attempt")
	throttled := 0
	for _, a := range log.attempts {
		if a.StatusCode == http.StatusTooManyRequests {
			throttled++
		}
	}
	assert.Equal(t, 12, throttled)
	assert.Equal(t, waited, log.waited(""), "the calls' Waited add up to the Wait events")
	assert.Greater(t, log.waited(edapp.WaitPause), time.Duration(0))
}

// callKey marks the context a CallStart returns.
type callKey struct{}

func TestObserverCallStartContextReachesTheCall(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	id, err := srv.AddUser(edapptest.UserSpec{Username: "ann@example.com"})
	require.NoError(t, err)
	var mu sync.Mutex
	seen := map[string]any{}
	note := func(what string, ctx context.Context) {
		mu.Lock()
		defer mu.Unlock()
		seen[what] = ctx.Value(callKey{})
	}
	c := srv.Client(edapp.WithRetry(fastRetry), edapp.WithObserver(edapp.Observer{
		CallStart: func(ctx context.Context, e edapp.CallEvent) context.Context {
			return context.WithValue(ctx, callKey{}, e.Route)
		},
		CallEnd: func(ctx context.Context, _ edapp.CallEvent) { note("end", ctx) },
		Attempt: func(ctx context.Context, _ edapp.AttemptEvent) { note("attempt", ctx) },
		Wait:    func(ctx context.Context, _ edapp.WaitEvent) { note("wait", ctx) },
	}))
	srv.FailNext(1, http.StatusServiceUnavailable, 0)
	_, err = c.Users.Get(context.Background(), id)
	require.NoError(t, err)
	for _, what := range []string{"end", "attempt", "wait"} {
		assert.Equal(t, "/v2/users/{userId}", seen[what], "%s callback's context", what)
	}
}

func TestObserverCallStartReturningNilKeepsTheContext(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	var got context.Context
	c := srv.Client(edapp.WithObserver(edapp.Observer{
		CallStart: func(context.Context, edapp.CallEvent) context.Context { return nil },
		CallEnd:   func(ctx context.Context, _ edapp.CallEvent) { got = ctx },
	}))
	ctx := context.WithValue(context.Background(), callKey{}, "caller's")
	_, err := c.Users.List(ctx, nil)
	require.NoError(t, err)
	require.NotNil(t, got)
	assert.Equal(t, "caller's", got.Value(callKey{}))
}
