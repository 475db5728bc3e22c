package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stepClock is a fake Clock whose timers fire at once, moving the time on
// by their length; onTimer, if set, runs as each timer is made.
type stepClock struct {
	mu      sync.Mutex
	now     time.Time
	waits   []time.Duration
	onTimer func()
	hold    bool // timers never fire
}

var clockStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	if c.onTimer != nil {
		c.onTimer()
	}
	ch := make(chan time.Time, 1)
	if !c.hold {
		c.now = c.now.Add(d)
		ch <- c.now
	}
	return ch, func() bool { return c.hold }
}

// answersServer answers each request with the next status of statuses (a
// 429 with Retry-After: 30), then 200.
func answersServer(t *testing.T, statuses ...int) (*url.URL, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		i := int(n.Add(1)) - 1
		if i >= len(statuses) {
			w.Write([]byte(`{}`))
			return
		}
		if statuses[i] == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "30")
		}
		w.WriteHeader(statuses[i])
	}))
	t.Cleanup(srv.Close)
	base, err := url.Parse(srv.URL)
	require.NoError(t, err)
	return base, &n
}

func clockedClient(base *url.URL, clock *stepClock) *Client {
	return New(Config{BaseURL: base, Token: "t", MaxBody: 1 << 20, MaxPause: time.Minute,
		Retry: Policy{MaxRetries: 3, MinWait: 10 * time.Second, MaxWait: 10 * time.Second},
		Clock: Clock{Now: clock.Now, NewTimer: clock.NewTimer}})
}

// A 429's pause and a 503's backoff are waited on the client's Clock.
func TestClientWaitsOnItsClock(t *testing.T) {
	t.Parallel()
	base, _ := answersServer(t, http.StatusTooManyRequests, http.StatusServiceUnavailable)
	clock := &stepClock{now: clockStart}
	c := clockedClient(base, clock)

	resp, err := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/x", MaxThrottle: -1})
	require.NoError(t, err)
	defer resp.Release()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, 3, resp.Attempts)
	require.Len(t, clock.waits, 2, "the pause, then the backoff: nothing else waits")
	assert.Equal(t, 30*time.Second, clock.waits[0], "the 429's Retry-After")
	assert.InDelta(t, 7.5*float64(time.Second), float64(clock.waits[1]), float64(2500*time.Millisecond), "the 503's backoff")
	assert.Equal(t, clock.waits[0]+clock.waits[1], resp.Waited, "Waited is read on the same clock")
}

// A wait on the Clock ends when ctx is done, and nothing is sent again.
func TestClientWaitOnItsClockEndsWithTheContext(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		base, sent := answersServer(t, status)
		ctx, cancel := context.WithCancel(context.Background())
		clock := &stepClock{now: clockStart, hold: true, onTimer: cancel}
		c := clockedClient(base, clock)

		resp, err := c.Do(ctx, Request{Method: http.MethodGet, Path: "/x", MaxThrottle: -1})
		require.ErrorIs(t, err, context.Canceled, "status %d", status)
		assert.Equal(t, 1, resp.Attempts, "status %d", status)
		assert.Equal(t, int32(1), sent.Load(), "status %d: sent once", status)
		assert.Len(t, clock.waits, 1, "status %d", status)
	}
}
