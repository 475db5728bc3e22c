package edapp_test

// The client's default limiter against the fake with a request budget
// (edapptest.WithBudget). The budget is scaled down from the service's 1400
// per 5 minutes; the client's limiter keeps the default shape: the same
// limit, over the service's window plus a margin for latency and
// scheduling. The client, its limiter and the fake run on one simClock, so
// windows of seconds pass in milliseconds.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
)

const (
	scaledLimit  = 60              // the service's 1400, scaled down
	scaledWindow = 2 * time.Second // the service's 5 minutes, scaled down
	// scaledMargin plays the default limiter's 2 extra seconds, the same
	// share of the window as on the real clock's tests before.
	scaledMargin = time.Second
)

// simClock is one fake clock for a client, its limiter and the fake. It
// stands still while any call is running, and jumps to the earliest timer
// once every call in progress waits on one of its timers. So no request is
// ever late on its way from the limiter to the fake, and the tests assert
// what the limiter does, never how busy the machine is. Calls are counted
// through the client's Observer (simClock.observer); every wait of a call
// (the limiter's, a pause, a backoff) is a timer of this clock.
type simClock struct {
	mu      sync.Mutex
	now     time.Time
	running int // calls in progress that are not waiting on a timer
	timers  []*simTimer
}

type simTimer struct {
	at time.Time
	c  chan time.Time
}

func newSimClock() *simClock {
	return &simClock{now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
}

func (c *simClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer is a timer its caller, a call, now waits on.
func (c *simClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &simTimer{at: c.now.Add(d), c: make(chan time.Time, 1)}
	if d <= 0 {
		t.c <- c.now
		return t.c, func() bool { return false }
	}
	c.timers = append(c.timers, t)
	c.running--
	c.advance()
	return t.c, func() bool { return c.stop(t) }
}

// stop removes a timer that has not fired: its call runs again.
func (c *simClock) stop(t *simTimer) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.Index(c.timers, t)
	if i < 0 {
		return false
	}
	c.timers = slices.Delete(c.timers, i, i+1)
	c.running++
	return true
}

// advance jumps to the earliest timer and fires the timers due then, once
// no call is running. c.mu is held.
func (c *simClock) advance() {
	if c.running > 0 || len(c.timers) == 0 {
		return
	}
	c.now = slices.MinFunc(c.timers, func(a, b *simTimer) int { return a.at.Compare(b.at) }).at
	c.timers = slices.DeleteFunc(c.timers, func(t *simTimer) bool {
		if t.at.After(c.now) {
			return false
		}
		t.c <- c.now
		c.running++
		return true
	})
}

// observer counts the client's calls in progress.
func (c *simClock) observer() edapp.Observer {
	return edapp.Observer{
		CallStart: func(context.Context, edapp.CallEvent) context.Context {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.running++
			return nil
		},
		CallEnd: func(context.Context, edapp.CallEvent) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.running--
			c.advance()
		},
	}
}

// simContext is the context of a simulation's calls: without a deadline,
// which is on the real clock, while the limiter's slots are on the fake;
// it ends after a minute of real time, should the simulation hang.
func simContext(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	stop := time.AfterFunc(time.Minute, cancel)
	t.Cleanup(func() { stop.Stop(); cancel() })
	return ctx
}

// newSimServer is the fake with the scaled budget, on clock.
func newSimServer(t *testing.T, clock *simClock) *edapptest.Server {
	srv := edapptest.New(t, edapptest.WithBudget(scaledLimit, scaledWindow), edapptest.WithClock(clock.Now))
	t.Cleanup(srv.Close)
	return srv
}

// statusCounter counts the answers the client got on the wire, by status.
type statusCounter struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    map[int]int
}

func newStatusCounter() *statusCounter {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 2 * scaledLimit // no reconnects: they add latency
	return &statusCounter{next: tr, n: map[int]int{}}
}

func (c *statusCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil {
		c.mu.Lock()
		c.n[resp.StatusCode]++
		c.mu.Unlock()
	}
	return resp, err
}

func (c *statusCounter) count(status int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[status]
}

func (c *statusCounter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.n {
		n += v
	}
	return n
}

// defaultShapedClient is a client with the default limiter's shape at the
// scaled budget, on clock, counting what it gets on the wire.
func defaultShapedClient(srv *edapptest.Server, clock *simClock) (*edapp.Client, *statusCounter) {
	sc := newStatusCounter()
	l, err := edapp.NewWindowLimiter(scaledLimit, scaledWindow+scaledMargin,
		edapp.WithWindowClockForTest(clock.Now, clock.NewTimer))
	if err != nil {
		panic(err)
	}
	return srv.Client(
		edapp.WithLimiter(l),
		edapp.WithHTTPClient(&http.Client{Transport: sc}),
		edapp.WithObserver(clock.observer()),
		edapp.WithTransportClockForTest(clock.Now, clock.NewTimer),
	), sc
}

// fakeStatuses counts the fake's answers by status, from its request log.
func fakeStatuses(srv *edapptest.Server) map[int]int {
	out := map[int]int{}
	for _, r := range srv.Requests() {
		out[r.Status]++
	}
	return out
}

// flatOut is the load of a busy app: an AllAttempts export (bulk, pages in
// parallel) and workers calling Users.Get (interactive) as fast as the
// client lets them, until the export is over and each worker has made at
// least minCalls calls.
type flatOut struct {
	workers, minCalls int
	users             []string
	pageSize          int
}

type flatOutResult struct {
	ids      []string // the export's attempt ids, in order
	calls    int      // interactive calls made
	retried  int      // calls and pages whose Response says they were sent more than once
	attempts int      // attempts according to the Responses
}

func (f flatOut) run(ctx context.Context, c *edapp.Client) (flatOutResult, error) {
	var (
		res      flatOutResult
		mu       sync.Mutex
		wg       sync.WaitGroup
		done     atomic.Bool
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer done.Store(true)
		var resp edapp.Response
		last := ""
		for a, err := range c.Analytics.AllAttempts(ctx, &edapp.AttemptListOptions{ListOptions: edapp.ListOptions{PageSize: f.pageSize}},
			edapp.WithResponseInto(&resp)) {
			if err != nil {
				fail(fmt.Errorf("export: %w", err))
				return
			}
			res.ids = append(res.ids, a.ID)
			if id := resp.RequestID; id != last { // the first item of a page
				last = id
				mu.Lock()
				res.attempts += resp.Attempts
				if resp.Attempts != 1 {
					res.retried++
				}
				mu.Unlock()
			}
		}
		if resp.RequestID != last { // an empty last page
			mu.Lock()
			res.attempts += resp.Attempts
			mu.Unlock()
		}
	}()
	for w := range f.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < f.minCalls || !done.Load(); n++ {
				var resp edapp.Response
				_, err := c.Users.Get(ctx, f.users[(w+n*f.workers)%len(f.users)], edapp.WithResponseInto(&resp))
				mu.Lock()
				res.calls++
				res.attempts += resp.Attempts
				if resp.Attempts != 1 {
					res.retried++
				}
				mu.Unlock()
				if err != nil {
					fail(fmt.Errorf("worker %d: %w", w, err))
					return
				}
			}
		}()
	}
	wg.Wait()
	return res, firstErr
}

// loadUsers returns the ids of the users SeedAccount made (usr_1 on).
func loadUsers(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "usr_" + strconv.Itoa(i+1)
	}
	return ids
}

// wantAttemptIDs is att_1 to att_n, the order in which the fake lists
// SeedAccount's attempts.
func wantAttemptIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "att_" + strconv.Itoa(i+1)
	}
	return ids
}

func TestDefaultShapedClientFlatOutNeverGets429(t *testing.T) {
	t.Parallel()
	clock := newSimClock()
	srv := newSimServer(t, clock)
	const users, attempts = 20, 3000
	require.NoError(t, fakedata.SeedAccount(srv, fakedata.AccountSpec{Users: users, Attempts: attempts}))
	c, wire := defaultShapedClient(srv, clock)
	start := clock.Now()

	load := flatOut{workers: 4, minCalls: 10, users: loadUsers(users), pageSize: 100}
	res, err := load.run(simContext(t), c)
	require.NoError(t, err)

	sent := wire.total()
	t.Logf("%d requests (%d pages, %d interactive calls) in windows of %d per %v, over %v on the fake clock",
		sent, attempts/load.pageSize, res.calls, scaledLimit, scaledWindow, clock.Now().Sub(start))
	// The load must outgrow one window, or the limiter never had to act
	// and no burst came one window after another.
	require.Greater(t, sent, scaledLimit, "the load spans more than one window")
	assert.Zero(t, wire.count(http.StatusTooManyRequests), "429s on the wire")
	assert.Zero(t, fakeStatuses(srv)[http.StatusTooManyRequests], "429s in the fake's log")
	assert.Zero(t, res.retried, "calls and pages sent more than once (Response.Attempts)")
	assert.Equal(t, sent, res.attempts, "every attempt is accounted for by a Response")
	assert.Equal(t, wantAttemptIDs(attempts), res.ids, "the export is whole and in order")
}

func TestClientRecoversWhenSomethingElseSpendsTheBudget(t *testing.T) {
	t.Parallel()
	clock := newSimClock()
	srv := newSimServer(t, clock)
	const users, attempts = 20, 2000
	require.NoError(t, fakedata.SeedAccount(srv, fakedata.AccountSpec{Users: users, Attempts: attempts}))
	ctx := simContext(t)

	// Another tool on the same account spends the whole budget at once.
	other := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	otherGet := func() (int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v2/users?pageSize=1", nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+srv.Token)
		resp, err := other.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	var wg sync.WaitGroup
	var ok atomic.Int64
	for range scaledLimit {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if status, err := otherGet(); err == nil && status == http.StatusOK {
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, int64(scaledLimit), ok.Load())
	status, err := otherGet()
	require.NoError(t, err)
	require.Equal(t, http.StatusTooManyRequests, status, "the budget is spent")
	srv.ResetRequests()

	c, wire := defaultShapedClient(srv, clock)
	load := flatOut{workers: 4, minCalls: 10, users: loadUsers(users), pageSize: 100}
	res, err := load.run(ctx, c)
	require.NoError(t, err, "the client waits the budget out and finishes")
	assert.Equal(t, wantAttemptIDs(attempts), res.ids, "the export is whole and in order")

	got429 := wire.count(http.StatusTooManyRequests)
	t.Logf("%d requests, %d answered 429, %d calls or pages retried", wire.total(), got429, res.retried)
	assert.Equal(t, got429, fakeStatuses(srv)[http.StatusTooManyRequests], "the fake's log agrees")
	assert.Positive(t, got429, "the spent budget was felt")
	// A 429 pauses the whole client: only requests already on their way
	// when the first 429 came back get one too (the workers and the
	// export's first page), not every request of the window. The fake's
	// Retry-After says when the oldest request leaves its window; when the
	// other tool's requests leave it a few milliseconds apart, a second
	// round of the same requests may still find it full.
	assert.LessOrEqual(t, got429, 2*(load.workers+1), "no storm of 429s")
	assert.Equal(t, wire.total(), res.attempts, "Response.Attempts counts every attempt, retries included")
	assert.LessOrEqual(t, res.retried, got429)
}

func TestDefaultClientSpendsTheRealBudgetAtOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("1450 calls; skipped in -short")
	}
	// The service's real budget, and a client with every default.
	srv := edapptest.New(t, edapptest.WithBudget(edapp.DefaultBudget, 5*time.Minute))
	t.Cleanup(srv.Close)
	require.NoError(t, fakedata.SeedAccount(srv, fakedata.AccountSpec{Users: 10}))
	c, err := edapp.NewClient(srv.Token, edapp.WithBaseURL(srv.URL))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	const calls = edapp.DefaultBudget + 50
	var wg sync.WaitGroup
	var ok, refused atomic.Int64
	sem := make(chan struct{}, 32)
	start := time.Now()
	for i := range calls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			_, err := c.Users.Get(ctx, "usr_"+strconv.Itoa(1+i%10))
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, edapp.ErrRateLimited) && errors.Is(err, context.DeadlineExceeded):
				refused.Add(1) // the next slot is 5 minutes away: refused at once
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	log := srv.Requests()
	statuses := fakeStatuses(srv)
	assert.Equal(t, int64(edapp.DefaultBudget), ok.Load(), "the whole budget is spent")
	assert.Equal(t, int64(calls-edapp.DefaultBudget), refused.Load())
	assert.Equal(t, map[int]int{http.StatusOK: edapp.DefaultBudget}, statuses, "no 429, nothing else")
	require.Len(t, log, edapp.DefaultBudget)
	first, last := log[0].Time, log[0].Time
	for _, r := range log {
		first, last = minTime(first, r.Time), maxTime(last, r.Time)
	}
	t.Logf("%d calls: %d sent and answered 200 in %v (first to last at the fake: %v), %d refused at once; 429s: %d",
		calls, ok.Load(), elapsed.Round(time.Millisecond), last.Sub(first).Round(time.Millisecond),
		refused.Load(), statuses[http.StatusTooManyRequests])
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
