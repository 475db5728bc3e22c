package edapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

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

func TestA429PausesTheWholeClient(t *testing.T) {
	var first atomic.Bool
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first.CompareAndSwap(false, true) {
			w.WriteHeader(http.StatusTooManyRequests) // no Retry-After: the backoff
			return
		}
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
		io.WriteString(w, `{"id":"a"}`)
	}))
	defer srv.Close()
	lim := &recordingLimiter{}
	policy := RetryPolicy{MaxRetries: 2, MinWait: 100 * time.Millisecond, MaxWait: 200 * time.Millisecond}
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(lim), WithRetry(policy))
	require.NoError(t, err)

	ctx := context.Background()
	got429 := time.Now()
	var r1 Response
	done := make(chan error)
	go func() {
		_, err := c.Users.Get(ctx, "a", WithResponseInto(&r1))
		done <- err
	}()
	// Wait until the 429 has been answered, then start others.
	for !first.Load() {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
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
	for _, a := range arrivals {
		assert.False(t, a.Before(until.Add(-5*time.Millisecond)), "a request went out during the pause")
	}
}

func TestLongLimiterWaitIsLogged(t *testing.T) {
	srv, _ := countingServer(t)
	var buf strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), nil))
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(&recordingLimiter{hold: 1100 * time.Millisecond}), WithLogger(log))
	require.NoError(t, err)
	_, err = c.Users.Get(context.Background(), "a")
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, buf.String(), "waited for the request budget")
	assert.Contains(t, buf.String(), "after429=false")
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestTokenNeverPrintsFromAClientOrATransportError(t *testing.T) {
	const token = "sekret-token-123"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A malformed Location that echoes the token.
		w.Header().Set("Location", "http://[::1"+r.Header.Get("Authorization")+"%zz/")
		w.WriteHeader(http.StatusFound)
	}))
	defer srv.Close()
	c, err := NewClient(token, WithBaseURL(srv.URL), WithRetry(RetryPolicy{}))
	require.NoError(t, err)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.NotContains(t, fmt.Sprintf(verb, c), token, verb)
		assert.NotContains(t, fmt.Sprintf(verb, reflect.ValueOf(c).Elem().Interface()), token, verb) // a copied Client value
		assert.NotContains(t, fmt.Sprintf(verb, []any{c}), token, verb)
		assert.NotContains(t, fmt.Sprintf(verb, struct{ C *Client }{c}), token, verb)
	}
	_, err = c.Users.Get(context.Background(), "a")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), token)
	assert.NotContains(t, err.Error(), url.QueryEscape(token))
}

func TestWithMaxThrottleZeroGoesWhenASlotIsFree(t *testing.T) {
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

func TestRetryLogLineCarriesStatusAndWait(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		io.WriteString(w, `{"totalCount":2,"items":[{"id":"a"},{"id":"b"}]}`)
	}))
	defer srv.Close()
	var buf strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), nil))
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLogger(log), WithRetry(RetryPolicy{}))
	require.NoError(t, err)
	// The iterator's pages take the call's own retry policy and headers.
	n := 0
	for _, err := range c.Users.All(context.Background(), nil,
		WithRequestRetry(RetryPolicy{MaxRetries: 1, MinWait: time.Millisecond, MaxWait: time.Millisecond})) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 2, n)
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, buf.String(), "edapp: retrying request")
	assert.Contains(t, buf.String(), "status=502")
	assert.Contains(t, buf.String(), "waited=")
}

func TestLimiterOptionsReplaceTheDefault(t *testing.T) {
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
