package edapp

// Tests of the waits before an attempt: the limiter and its lanes,
// WithMaxThrottle, and the pause a 429 or the rate-limit headers start.

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// TestRetryAfterPausesUpToOneWindow: a 429's Retry-After pauses the whole
// client for as long as it says, up to one budget window, whatever the
// retry policy's MaxWait; a call that may not wait that long fails at once
// with the 429, and so does the next call, without sending anything.
func TestRetryAfterPausesUpToOneWindow(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	}, WithRetry(RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: 10 * time.Millisecond}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.Do(ctx, http.MethodGet, "/v2/x", nil, nil, nil)
	require.ErrorIs(t, err, ErrRateLimited)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, time.Hour, apiErr.RetryAfter)
	assert.EqualValues(t, 1, hits.Load(), "no retry into another 429")
	assert.NoError(t, ctx.Err())
	d := c.core.PausedFor()
	assert.True(t, d > DefaultBudgetWindow-time.Minute && d <= DefaultBudgetWindow, "paused for one window, not MaxWait: %v", d)

	var resp Response
	err = c.Do(ctx, http.MethodGet, "/v2/x", nil, nil, nil, WithMaxThrottle(time.Minute), WithResponseInto(&resp))
	require.ErrorIs(t, err, ErrRateLimited)
	assert.EqualValues(t, 1, hits.Load(), "the next call is refused by the pause, nothing sent")
	assert.Equal(t, 0, resp.Attempts)
}

func TestCancelDuringRateLimitWait(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	c := coreServer(t, statusSeq(&hits), WithRateLimit(rate.Every(time.Hour), 1))
	require.NoError(t, c.Do(context.Background(), http.MethodGet, "/v2/x", nil, nil, nil))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Do(ctx, http.MethodGet, "/v2/x", nil, nil, nil) }()
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("Do did not return after cancel during a rate-limit wait")
	}
	assert.EqualValues(t, 1, hits.Load())

	// A deadline the wait cannot meet fails at once, as a deadline error.
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	assert.ErrorIs(t, c.Do(ctx, http.MethodGet, "/v2/x", nil, nil, nil), context.DeadlineExceeded)
}

func TestRateLimiterDrawsForEveryAttempt(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	// Burst 3, then nothing for an hour: the fourth attempt must wait.
	c := coreServer(t, statusSeq(&hits, 503, 503, 503, 503, 503),
		WithRateLimit(rate.Every(time.Hour), 3),
		WithRetry(RetryPolicy{MaxRetries: 5, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := c.Do(ctx, http.MethodGet, "/v2/x", nil, nil, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualValues(t, 3, hits.Load(), "three tokens, three attempts")
}

// countingServer answers {"id":"a"} and counts the requests.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.WriteString(w, `{"id":"a","totalCount":1,"items":[{"id":"a"}]}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestDefaultClientSendsAFullBurstAndNoMore(t *testing.T) {
	t.Parallel()
	srv, sent := countingServer(t)
	c, err := NewClient("t", WithBaseURL(srv.URL))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var wg sync.WaitGroup
	var ok, throttled atomic.Int64
	sem := make(chan struct{}, 32)
	for range 1450 {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			_, err := c.Users.Get(ctx, "a")
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ErrRateLimited) && errors.Is(err, context.DeadlineExceeded):
				throttled.Add(1) // refused at once: the wait would outlast ctx
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(DefaultBudget), sent.Load(), "requests on the wire")
	assert.Equal(t, int64(DefaultBudget), ok.Load(), "the whole budget goes out at once")
	assert.Equal(t, int64(50), throttled.Load())
}

// recordingLimiter records the lane of every wait and can fail or pause.
type recordingLimiter struct {
	mu     sync.Mutex
	lanes  []bool
	paused []time.Time
	err    error
	hold   time.Duration
}

func (l *recordingLimiter) Wait(ctx context.Context) error { return l.WaitLane(ctx, false) }

func (l *recordingLimiter) WaitLane(ctx context.Context, bulk bool) error {
	l.mu.Lock()
	l.lanes = append(l.lanes, bulk)
	l.mu.Unlock()
	if l.hold > 0 {
		select {
		case <-time.After(l.hold):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return l.err
}

func (l *recordingLimiter) Pause(until time.Time) {
	l.mu.Lock()
	l.paused = append(l.paused, until)
	l.mu.Unlock()
}

func (l *recordingLimiter) waits() []bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]bool(nil), l.lanes...)
}

func TestLanes(t *testing.T) {
	t.Parallel()
	srv, _ := countingServer(t)
	lim := &recordingLimiter{}
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(lim))
	require.NoError(t, err)
	ctx := context.Background()

	_, err = c.Users.Get(ctx, "a")
	require.NoError(t, err)
	_, err = c.Users.Get(ctx, "a", WithBulk())
	require.NoError(t, err)
	for _, err := range c.Users.All(ctx, nil) {
		require.NoError(t, err)
	}
	_, err = c.Users.Courses(ctx, "a") // paging that serves one interactive call
	require.NoError(t, err)
	assert.Equal(t, []bool{false, true, true, false}, lim.waits())
}

func TestLimiterErrorIsNeverRetried(t *testing.T) {
	t.Parallel()
	srv, sent := countingServer(t)
	down := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	lim := &recordingLimiter{err: errors.New("redis: " + down.Error())}
	lim.err = errors.Join(lim.err, down)
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(lim),
		WithRetry(RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
	require.NoError(t, err)
	var r Response
	_, err = c.Users.Get(context.Background(), "a", WithResponseInto(&r))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rate limiter failed")
	assert.Contains(t, err.Error(), "redis")
	assert.False(t, errors.Is(err, ErrRateLimited), "a broken limiter is not throttling")
	assert.Len(t, lim.waits(), 1, "not retried")
	assert.Zero(t, sent.Load(), "never sent unlimited")
}

func TestWithMaxThrottleFailsFast(t *testing.T) {
	t.Parallel()
	srv, sent := countingServer(t)
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(mustWindowLimiter(1, time.Hour)))
	require.NoError(t, err)
	ctx := context.Background()
	_, err = c.Users.Get(ctx, "a")
	require.NoError(t, err)

	var r Response
	_, err = c.Users.Get(ctx, "a", WithMaxThrottle(50*time.Millisecond), WithResponseInto(&r))
	assert.ErrorIs(t, err, ErrRateLimited)
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "ctx had no deadline")
	assert.Less(t, r.Waited, 50*time.Millisecond, "refused without waiting")
	assert.Equal(t, int64(1), sent.Load(), "nothing sent")

	// Out of ctx while throttled: both.
	ctx2, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err = c.Users.Get(ctx2, "a")
	assert.ErrorIs(t, err, ErrRateLimited)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestA429PausesTheWholeClient, on a fake clock: the call answered 429 and
// the calls made meanwhile all wait out one pause, and nothing is sent
// during it.
func TestA429PausesTheWholeClient(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	var first atomic.Bool
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first.CompareAndSwap(false, true) {
			w.WriteHeader(http.StatusTooManyRequests) // no Retry-After: the backoff
			return
		}
		mu.Lock()
		arrivals = append(arrivals, clock.Now())
		mu.Unlock()
		io.WriteString(w, `{"id":"a"}`)
	}))
	defer srv.Close()
	lim := &recordingLimiter{}
	policy := RetryPolicy{MaxRetries: 2, MinWait: 100 * time.Millisecond, MaxWait: 200 * time.Millisecond}
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(lim), WithRetry(policy), withTransportClock(clock.Now, clock.NewTimer))
	require.NoError(t, err)

	ctx := context.Background()
	got429 := clock.Now()
	var r1 Response
	done := make(chan error)
	go func() {
		_, err := c.Users.Get(ctx, "a", WithResponseInto(&r1))
		done <- err
	}()
	waitForTimers(t, clock, 1) // the 429 was answered: its call waits out the pause
	var others sync.WaitGroup
	for range 3 {
		others.Add(1)
		go func() {
			defer others.Done()
			var r Response
			_, err := c.Users.Get(ctx, "a", WithResponseInto(&r))
			assert.NoError(t, err)
			assert.Greater(t, r.Waited, time.Duration(0), "held by the pause")
		}()
	}
	waitForTimers(t, clock, 4) // and so do the calls made during it
	for clock.AdvanceToNext() {
	}
	others.Wait()
	require.NoError(t, <-done)
	assert.Equal(t, 2, r1.Attempts)
	lim.mu.Lock()
	require.Len(t, lim.paused, 1, "the Pauser was told")
	until := lim.paused[0]
	lim.mu.Unlock()
	// A 429 without Retry-After backs off two steps further: at least 2·MinWait, capped at MaxWait.
	assert.GreaterOrEqual(t, until.Sub(got429), 100*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, arrivals, 4)
	for _, a := range arrivals {
		assert.False(t, a.Before(until), "a request went out during the pause")
	}
}

// waitForTimers waits, in real time, until n timers of clock are pending:
// the goroutines that set them are waiting on the fake time.
func waitForTimers(t *testing.T, clock *fakeClock, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); clock.Pending() < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d timers pending, want %d", clock.Pending(), n)
		}
	}
}

func TestLongLimiterWaitIsLogged(t *testing.T) {
	t.Parallel()
	srv, _ := countingServer(t)
	buf := new(lockedBuffer)
	log := slog.New(slog.NewTextHandler(buf, nil))
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(&recordingLimiter{hold: 1100 * time.Millisecond}), WithLogger(log))
	require.NoError(t, err)
	_, err = c.Users.Get(context.Background(), "a")
	require.NoError(t, err)
	assert.Contains(t, buf.String(), "waited for the request budget")
	assert.Contains(t, buf.String(), "after429=false")
}

func TestWithMaxThrottleZeroGoesWhenASlotIsFree(t *testing.T) {
	t.Parallel()
	srv, sent := countingServer(t)
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(mustWindowLimiter(1, time.Hour)))
	require.NoError(t, err)
	_, err = c.Users.Get(context.Background(), "a", WithMaxThrottle(0))
	require.NoError(t, err, "a free slot: no wait needed")
	_, err = c.Users.Get(context.Background(), "a", WithMaxThrottle(0))
	assert.ErrorIs(t, err, ErrRateLimited, "no free slot: refused at once")
	assert.Equal(t, int64(1), sent.Load())
}

func TestRateLimitHeadersPauseTheClient(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", "1")
		}
		io.WriteString(w, `{"id":"a"}`)
	}))
	defer srv.Close()
	lim := &recordingLimiter{}
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(lim))
	require.NoError(t, err)
	_, err = c.Users.Get(context.Background(), "a")
	require.NoError(t, err)
	lim.mu.Lock()
	require.Len(t, lim.paused, 1, "no requests left: the budget resets in 1 s")
	lim.mu.Unlock()
	// The next call would have to sit out the pause: refused at once.
	_, err = c.Users.Get(context.Background(), "a", WithMaxThrottle(100*time.Millisecond))
	assert.ErrorIs(t, err, ErrRateLimited)
	assert.Equal(t, int64(1), calls.Load())
}

func TestLimiterOptionsReplaceTheDefault(t *testing.T) {
	t.Parallel()
	srv, sent := countingServer(t)
	for name, opt := range map[string]Option{
		"WithRateLimit(rate.Inf, 0)": WithRateLimit(rate.Inf, 0),
		"WithLimiter(nil)":           WithLimiter(nil),
		"a limiter of one's own":     WithLimiter(mustWindowLimiter(DefaultBudget+100, time.Hour)),
	} {
		sent.Store(0)
		c, err := NewClient("t", WithBaseURL(srv.URL), opt)
		require.NoError(t, err, name)
		for range DefaultBudget + 50 {
			_, err := c.Users.Get(context.Background(), "a", WithMaxThrottle(0))
			require.NoError(t, err, "%s: the default limiter would refuse past %d", name, DefaultBudget)
		}
		assert.Equal(t, int64(DefaultBudget+50), sent.Load(), name)
	}
}
