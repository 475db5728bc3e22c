package edapp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// fakeClock is a clock for WindowLimiter tests: time moves only when the
// test advances it, and timers fire then.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	when time.Time
	c    chan time.Time
}

// fakeEpoch is far enough ahead that a context deadline in fake time never
// passes in real time while a test runs.
var fakeEpoch = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)

func newFakeClock() *fakeClock { return &fakeClock{now: fakeEpoch} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{when: c.now.Add(d), c: make(chan time.Time, 1)}
	if d <= 0 {
		t.c <- c.now
		return t.c, func() bool { return false }
	}
	c.timers = append(c.timers, t)
	return t.c, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		i := slices.Index(c.timers, t)
		if i < 0 {
			return false
		}
		c.timers = slices.Delete(c.timers, i, i+1)
		return true
	}
}

// Pending is the number of timers not yet fired or stopped.
func (c *fakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Advance moves the clock by d and fires the timers due by then.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.fire()
}

// AdvanceToNext moves the clock to the earliest timer and fires the timers
// due then. It reports false when no timer is pending.
func (c *fakeClock) AdvanceToNext() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return false
	}
	next := c.timers[0].when
	for _, t := range c.timers {
		if t.when.Before(next) {
			next = t.when
		}
	}
	c.now = next
	c.fire()
	return true
}

func (c *fakeClock) fire() {
	c.timers = slices.DeleteFunc(c.timers, func(t *fakeTimer) bool {
		if t.when.After(c.now) {
			return false
		}
		t.c <- c.now
		return true
	})
}

// waitPending waits, in real time, until n timers are pending: then n
// goroutines are parked in the limiter.
func (c *fakeClock) waitPending(t *testing.T, n int) {
	t.Helper()
	for i := 0; c.Pending() != n; i++ {
		if i > 10_000_000 {
			t.Fatalf("timers pending: %d, want %d", c.Pending(), n)
		}
		runtime.Gosched()
	}
}

func newFakeWindow(limit int, window time.Duration, opts ...WindowOption) (*WindowLimiter, *fakeClock) {
	c := newFakeClock()
	return mustWindowLimiter(limit, window, append(opts, withClock(c.Now, c.NewTimer))...), c
}

// mustWindowLimiter is NewWindowLimiter for arguments known to be good.
func mustWindowLimiter(limit int, window time.Duration, opts ...WindowOption) *WindowLimiter {
	l, err := NewWindowLimiter(limit, window, opts...)
	if err != nil {
		panic(err)
	}
	return l
}

// noWait is a context that makes any wait fail at once: its deadline is
// the fake clock's now.
func noWait(t *testing.T, c *fakeClock) context.Context {
	ctx, cancel := context.WithDeadline(context.Background(), c.Now())
	t.Cleanup(cancel)
	return ctx
}

// admission is one call the limiter let through, on the fake clock.
type admission struct {
	at   time.Time
	bulk bool
}

// maxInWindow returns the most calls, and the most bulk calls, that started
// in any half-open window [s, s+window) of the log, sorted by time. Only
// windows starting at a call need checking: any window can slide right to
// its first call without losing one.
func maxInWindow(log []admission, window time.Duration) (all, bulk int) {
	bulkBefore := make([]int, len(log)+1) // bulk calls in log[:i]
	for i, a := range log {
		bulkBefore[i+1] = bulkBefore[i]
		if a.bulk {
			bulkBefore[i+1]++
		}
	}
	j := 0 // log[i:j] is the window starting at log[i]
	for i := range log {
		for j < len(log) && log[j].at.Sub(log[i].at) < window {
			j++
		}
		all = max(all, j-i)
		bulk = max(bulk, bulkBefore[j]-bulkBefore[i])
	}
	return all, bulk
}

func TestWindowLimiterBurst(t *testing.T) {
	t.Parallel()
	const window = 5*time.Minute + 2*time.Second
	l, c := newFakeWindow(1400, window)
	ctx := noWait(t, c)
	for i := range 1400 {
		require.NoError(t, l.Wait(ctx), "call %d", i+1)
	}
	assert.Equal(t, window, l.Delay(false), "the 1401st call waits for the first to leave the window")
	assert.Equal(t, window, l.Delay(true))

	c.Advance(window - time.Second)
	assert.Equal(t, time.Second, l.Delay(false))
	c.Advance(time.Second)
	ctx = noWait(t, c)
	for i := range 1400 {
		require.NoError(t, l.Wait(ctx), "second burst, call %d", i+1)
	}
	assert.Error(t, l.Wait(ctx))
}

func TestWindowLimiterRefusesAtOnce(t *testing.T) {
	t.Parallel()
	l, c := newFakeWindow(2, time.Minute)
	require.NoError(t, l.Wait(context.Background()))
	c.Advance(10 * time.Second)
	require.NoError(t, l.Wait(context.Background()))

	// The next slot is 50 s away; a deadline 49 s away is refused without waiting.
	ctx, cancel := context.WithDeadline(context.Background(), c.Now().Add(49*time.Second))
	defer cancel()
	err := l.Wait(ctx)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, ErrRateLimited)
	assert.Equal(t, "edapp: rate limit: next slot in 50s, after the context deadline", err.Error())
	assert.Zero(t, c.Pending(), "a refused call must not wait")
	assert.Equal(t, 50*time.Second, l.Delay(false), "a refused call must not keep a slot")

	// A deadline exactly at the slot is enough.
	ctx, cancel = context.WithDeadline(context.Background(), c.Now().Add(50*time.Second))
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- l.Wait(ctx) }()
	c.waitPending(t, 1)
	c.AdvanceToNext()
	require.NoError(t, <-done)
	assert.Equal(t, fakeEpoch.Add(time.Minute), c.Now())

	// A context already done fails with its own error.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, l.Wait(ctx), context.Canceled)
}

func TestWindowLimiterCancel(t *testing.T) {
	t.Parallel()
	l, c := newFakeWindow(1, time.Minute)
	require.NoError(t, l.Wait(context.Background()))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Wait(ctx) }()
	c.waitPending(t, 1)
	assert.Equal(t, 2*time.Minute, l.Delay(false), "the waiting call holds the slot at 1m")
	c.Advance(20 * time.Second)
	cancel()
	err := <-done
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, ErrRateLimited)
	assert.Equal(t, "edapp: rate limit: context canceled after waiting 20s for a slot", err.Error())
	assert.Zero(t, c.Pending(), "the timer is stopped")
	assert.Equal(t, 40*time.Second, l.Delay(false), "the cancelled call gave its slot back")
}

func TestWindowLimiterBulkShare(t *testing.T) {
	t.Parallel()
	l, c := newFakeWindow(10, time.Minute, WithBulkShare(0.5))
	ctx := noWait(t, c)
	for i := range 5 {
		require.NoError(t, l.WaitLane(ctx, true), "bulk call %d", i+1)
	}
	assert.Error(t, l.WaitLane(ctx, true), "bulk stops at its share")
	assert.Equal(t, time.Minute, l.Delay(true))
	assert.Zero(t, l.Delay(false))

	// Bulk callers wait for their slots; interactive calls pass them at once.
	bulkDone := make(chan error, 3)
	for range 3 {
		go func() { bulkDone <- l.WaitLane(context.Background(), true) }()
	}
	c.waitPending(t, 3)
	for i := range 5 {
		require.NoError(t, l.WaitLane(ctx, false), "interactive call %d", i+1)
	}
	assert.Error(t, l.Wait(ctx), "the window is full: 5 bulk and 5 interactive")
	assert.Equal(t, time.Minute, l.Delay(false))

	c.AdvanceToNext()
	for range 3 {
		require.NoError(t, <-bulkDone)
	}
	assert.Equal(t, fakeEpoch.Add(time.Minute), c.Now())
}

func TestWindowLimiterInteractiveUsesWholeWindow(t *testing.T) {
	t.Parallel()
	l, c := newFakeWindow(10, time.Minute, WithBulkShare(0.5))
	ctx := noWait(t, c)
	for range 10 {
		require.NoError(t, l.Wait(ctx))
	}
	assert.Error(t, l.Wait(ctx))
	assert.Error(t, l.WaitLane(ctx, true))
}

func TestWindowLimiterSlotsBeforeReservedOnes(t *testing.T) {
	t.Parallel()
	// A call may take a slot before one a waiting call holds, as long as no
	// window, including those holding the reserved slot, goes over a limit.
	l, c := newFakeWindow(3, time.Minute, WithBulkShare(0.34)) // 1 bulk call per window
	require.NoError(t, l.WaitLane(noWait(t, c), true))
	c.Advance(10 * time.Second)
	done := make(chan error, 1)
	go func() { done <- l.WaitLane(context.Background(), true) }()
	c.waitPending(t, 1) // it holds the slot at 60s
	assert.Equal(t, 110*time.Second, l.Delay(true), "the next bulk slot is at 120s")

	ctx := noWait(t, c)
	require.NoError(t, l.Wait(ctx))
	require.NoError(t, l.Wait(ctx))
	// [0s, 60s) holds 3 calls, and so does [10s, 70s) with the slot at 60s:
	// the next interactive call starts when the calls at 10s leave, at 70s.
	assert.Error(t, l.Wait(ctx))
	assert.Equal(t, time.Minute, l.Delay(false))

	c.AdvanceToNext()
	require.NoError(t, <-done)
	assert.Equal(t, fakeEpoch.Add(time.Minute), c.Now())
	assert.Equal(t, 10*time.Second, l.Delay(false))
}

func TestWindowLimiterPause(t *testing.T) {
	t.Parallel()
	l, c := newFakeWindow(10, time.Minute)
	l.Pause(c.Now().Add(30 * time.Second))
	l.Pause(c.Now().Add(10 * time.Second)) // never shortens
	assert.Equal(t, 30*time.Second, l.Delay(false))
	assert.Equal(t, 30*time.Second, l.Delay(true))
	assert.Error(t, l.Wait(noWait(t, c)))

	done := make(chan error, 4)
	for i := range 4 {
		go func() { done <- l.WaitLane(context.Background(), i%2 == 0) }()
	}
	c.waitPending(t, 4)
	c.Advance(29 * time.Second)
	assert.Len(t, done, 0, "nothing passes during the pause")
	c.Advance(time.Second)
	for range 4 {
		require.NoError(t, <-done)
	}

	// A pause that comes while calls wait for their slots holds them too.
	for range 6 {
		require.NoError(t, l.Wait(context.Background()))
	}
	go func() { done <- l.Wait(context.Background()) }()
	c.waitPending(t, 1)
	assert.Equal(t, time.Minute, l.Delay(false))
	l.Pause(c.Now().Add(90 * time.Second)) // later than the waiting call's slot
	c.AdvanceToNext()                      // its old slot: it takes one after the pause
	assert.Len(t, done, 0)
	c.waitPending(t, 1)
	c.AdvanceToNext()
	require.NoError(t, <-done)
	assert.Equal(t, fakeEpoch.Add(2*time.Minute), c.Now())

	// The same, with a deadline between the old slot and the pause: the
	// call is refused when it finds the pause.
	ctx, cancel := context.WithDeadline(context.Background(), c.Now().Add(time.Minute))
	defer cancel()
	for range 9 {
		require.NoError(t, l.Wait(context.Background()))
	}
	go func() { done <- l.Wait(ctx) }()
	c.waitPending(t, 1)
	l.Pause(c.Now().Add(5 * time.Minute))
	c.AdvanceToNext()
	assert.ErrorIs(t, <-done, context.DeadlineExceeded)
}

func TestWindowLimiterConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		share float64
		limit int
		want  int
	}{
		{0.9, 1400, 1260},
		{0.29, 100, 29},
		{0.5, 3, 1},
		{0.01, 10, 1},
		{1, 10, 10},
		{0.9, math.MaxInt, int(0.9 * float64(math.MaxInt))},
	} {
		l := mustWindowLimiter(tc.limit, time.Minute, WithBulkShare(tc.share))
		assert.Equal(t, tc.want, l.bulkMax, "share %v of %d", tc.share, tc.limit)
	}
	assert.Equal(t, 1260, mustWindowLimiter(1400, time.Minute).bulkMax, "the default share is 0.9")
}

// TestWindowLimiterRealClock checks the limiter on the real clock, without
// waiting: refusals and cancellation return at once.
func TestWindowLimiterRealClock(t *testing.T) {
	t.Parallel()
	l := mustWindowLimiter(2, time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, l.Wait(ctx))
	require.NoError(t, l.WaitLane(ctx, true))
	assert.ErrorIs(t, l.Wait(ctx), context.DeadlineExceeded)
	assert.Greater(t, l.Delay(false), 59*time.Minute)

	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Wait(ctx) }()
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
}

// TestWindowLimiterNeverOverLimit runs goroutines that call the limiter in
// random lanes, some with deadlines, while the test cancels some of them
// and pauses the limiter, on a fake clock that moves to the next timer
// whenever every goroutine waits. No window of the admission log may hold
// more than the limit, or more bulk calls than the share.
func TestWindowLimiterNeverOverLimit(t *testing.T) {
	t.Parallel()
	for seed := range uint64(4) {
		t.Run("", func(t *testing.T) { testNeverOverLimit(t, seed) })
	}
}

func testNeverOverLimit(t *testing.T, seed uint64) {
	const (
		limit   = 20
		window  = time.Minute
		workers = 16
		calls   = 60
	)
	rng := rand.New(rand.NewPCG(seed, 1))
	l, c := newFakeWindow(limit, window, WithBulkShare(0.6))

	var (
		mu       sync.Mutex
		log      []admission
		refused  int
		canceled int
		cancels  [workers]context.CancelFunc
		returned [workers]atomic.Int64
		live     atomic.Int64
		wg       sync.WaitGroup
	)
	type plan struct {
		bulk     bool
		deadline time.Duration // 0: none
	}
	plans := make([][]plan, workers)
	for w := range plans {
		for range calls {
			p := plan{bulk: rng.IntN(2) == 0}
			if rng.IntN(4) == 0 {
				p.deadline = time.Duration(rng.Int64N(int64(2 * window)))
			}
			plans[w] = append(plans[w], p)
		}
	}
	for w := range workers {
		ctx, cancel := context.WithCancel(context.Background())
		mu.Lock()
		cancels[w] = cancel
		mu.Unlock()
		live.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer live.Add(-1)
			for _, p := range plans[w] {
				cctx, cancelDeadline := ctx, context.CancelFunc(func() {})
				var deadline time.Time
				if p.deadline > 0 {
					deadline = c.Now().Add(p.deadline)
					cctx, cancelDeadline = context.WithDeadline(ctx, deadline)
				}
				err := l.WaitLane(cctx, p.bulk)
				now := c.Now()
				cancelDeadline()
				mu.Lock()
				switch {
				case err == nil:
					log = append(log, admission{now, p.bulk})
					if p.deadline > 0 && now.After(deadline) {
						t.Errorf("admitted at %v, after the deadline %v", now, deadline)
					}
				case errors.Is(err, context.Canceled):
					canceled++
					ctx, cancel = context.WithCancel(context.Background())
					cancels[w] = cancel
				case errors.Is(err, context.DeadlineExceeded):
					refused++
				default:
					t.Errorf("unexpected error: %v", err)
				}
				mu.Unlock()
				returned[w].Add(1)
			}
		}()
	}

	type pause struct {
		after int // admissions logged before the pause
		until time.Time
	}
	var pauses []pause
	for live.Load() > 0 {
		// Wait until every live goroutine is parked on a timer.
		for c.Pending() != int(live.Load()) {
			runtime.Gosched()
		}
		if live.Load() == 0 {
			break
		}
		switch rng.IntN(10) {
		case 0: // cancel one parked goroutine and wait for it to return
			var parked []int
			for w := range workers {
				if returned[w].Load() < calls {
					parked = append(parked, w)
				}
			}
			w := parked[rng.IntN(len(parked))]
			n := returned[w].Load()
			mu.Lock()
			cancels[w]()
			mu.Unlock()
			for returned[w].Load() == n {
				runtime.Gosched()
			}
			continue
		case 1:
			until := c.Now().Add(time.Duration(rng.Int64N(int64(window / 2))))
			l.Pause(until)
			mu.Lock()
			pauses = append(pauses, pause{len(log), until})
			mu.Unlock()
		}
		c.AdvanceToNext()
	}
	wg.Wait()

	for _, p := range pauses {
		for _, a := range log[p.after:] {
			if a.at.Before(p.until) {
				t.Fatalf("admitted at %v during a pause until %v", a.at, p.until)
			}
		}
	}
	slices.SortStableFunc(log, func(a, b admission) int { return a.at.Compare(b.at) })
	all, bulk := maxInWindow(log, window)
	t.Logf("admitted %d, refused %d, cancelled %d, %d pauses; most in a window: %d (bulk %d)",
		len(log), refused, canceled, len(pauses), all, bulk)
	assert.Equal(t, limit, all, "the test must fill windows")
	assert.Equal(t, 12, bulk, "the test must fill the bulk share")
	assert.Positive(t, refused)
	assert.Positive(t, canceled)
	assert.Equal(t, workers*calls, len(log)+refused+canceled)
}

// TestFirstFit checks firstFit against brute force on random small logs:
// lo is the first time at or after t that fits, and every time in [lo, hi]
// fits.
func TestFirstFit(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		n := 1 + rng.IntN(4)
		w := time.Duration(1 + rng.IntN(12))
		// A valid log: add random times that fit.
		var a []time.Duration
		for range rng.IntN(15) {
			if x := time.Duration(rng.IntN(40)); fits(a, n, w, x) {
				a = insertSorted(a, x)
			}
		}
		start := time.Duration(rng.IntN(40))
		lo, hi := firstFit(a, n, w, start)
		require.GreaterOrEqual(t, lo, start)
		require.LessOrEqual(t, lo, hi)
		for x := start; x < lo; x++ {
			require.False(t, fits(a, n, w, x), "log %v, n %d, w %d: %d fits before %d", a, n, w, x, lo)
		}
		for x := lo; x <= min(hi, 60); x++ {
			require.True(t, fits(a, n, w, x), "log %v, n %d, w %d: %d in [%d, %d] does not fit", a, n, w, x, lo, hi)
		}
	}
}

// TestEarliestBulk checks the two lanes together against brute force: a
// bulk call's slot is the first that fits both the whole log and the bulk
// calls' share of it.
func TestEarliestBulk(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		l := &WindowLimiter{limit: 1 + rng.IntN(5), window: time.Duration(1 + rng.IntN(12))}
		l.bulkMax = 1 + rng.IntN(l.limit)
		for range rng.IntN(20) {
			x, bulk := time.Duration(rng.IntN(40)), rng.IntN(2) == 0
			if fits(l.all, l.limit, l.window, x) && (!bulk || fits(l.bulk, l.bulkMax, l.window, x)) {
				l.all = insertSorted(l.all, x)
				if bulk {
					l.bulk = insertSorted(l.bulk, x)
				}
			}
		}
		start := time.Duration(rng.IntN(40))
		for _, bulk := range []bool{false, true} {
			got := l.earliest(start, bulk)
			want := start
			for !fits(l.all, l.limit, l.window, want) || bulk && !fits(l.bulk, l.bulkMax, l.window, want) {
				want++
			}
			require.Equal(t, want, got, "%+v, bulk %v, from %d", l, bulk, start)
		}
	}
}

// fits reports whether x can join the sorted log a with at most n times in
// any window of length w, by checking every window.
func fits(a []time.Duration, n int, w, x time.Duration) bool {
	b := insertSorted(slices.Clone(a), x)
	for i := 0; i+n < len(b); i++ {
		if b[i+n]-b[i] < w {
			return false
		}
	}
	return true
}

// BenchmarkLimiterReserve compares the cost of taking a slot in a full
// 1400-call window with the token bucket's, both on simulated time, one
// call every window/1400 so that every call goes at once.
func BenchmarkLimiterReserve(b *testing.B) {
	const window = 5*time.Minute + 2*time.Second
	step := window / 1400
	b.Run("window", func(b *testing.B) {
		l := newSimWindow(window)
		now := simStart
		for range b.N {
			now = l.reserve(now.Add(step), false)
		}
	})
	b.Run("bucket", func(b *testing.B) {
		l := rate.NewLimiter(rate.Every(step), 50)
		now := simStart
		for range b.N {
			now = now.Add(step)
			now = now.Add(l.ReserveN(now, 1).DelayFrom(now))
		}
	})
}

// BenchmarkWindowLimiterRefuse measures the path WithMaxThrottle takes: a
// full window, and a context whose deadline comes before the next slot.
func BenchmarkWindowLimiterRefuse(b *testing.B) {
	l, c := newFakeWindow(1400, 5*time.Minute+2*time.Second)
	for range 1400 {
		if err := l.Wait(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), c.Now().Add(time.Second))
	defer cancel()
	b.ReportAllocs()
	for range b.N {
		if err := l.Wait(ctx); err == nil {
			b.Fatal("admitted")
		}
	}
}

// TestNewWindowLimiterRejectsBadInput: a bad limit, window or option value
// is NewWindowLimiter's error, never a clamp.
func TestNewWindowLimiterRejectsBadInput(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		limit  int
		window time.Duration
		opts   []WindowOption
	}{
		"zero limit":       {0, time.Minute, nil},
		"negative limit":   {-1, time.Minute, nil},
		"zero window":      {1, 0, nil},
		"negative window":  {1, -time.Second, nil},
		"share 0":          {10, time.Minute, []WindowOption{WithBulkShare(0)}},
		"negative share":   {10, time.Minute, []WindowOption{WithBulkShare(-1)}},
		"share above 1":    {10, time.Minute, []WindowOption{WithBulkShare(1.5)}},
		"share NaN":        {10, time.Minute, []WindowOption{WithBulkShare(math.NaN())}},
		"share +Inf":       {10, time.Minute, []WindowOption{WithBulkShare(math.Inf(1))}},
		"bad after a good": {10, time.Minute, []WindowOption{WithBulkShare(0.5), WithBulkShare(7)}},
	} {
		t.Run(name, func(t *testing.T) {
			l, err := NewWindowLimiter(tc.limit, tc.window, tc.opts...)
			assert.Nil(t, l)
			assert.ErrorIs(t, err, ErrInvalidInput)
		})
	}
}

// TestWindowLimiterHugeLimitNeverOverflows: NewWindowLimiter(math.MaxInt, w)
// once panicked on its third call, holding its mutex, and every later call
// hung. Its arithmetic never adds to the limit now.
func TestWindowLimiterHugeLimitNeverOverflows(t *testing.T) {
	t.Parallel()
	l, c := newFakeWindow(math.MaxInt, time.Minute)
	ctx := noWait(t, c)
	for i := range 10 {
		require.NotPanics(t, func() { require.NoError(t, l.WaitLane(ctx, i%2 == 0)) }, "call %d", i+1)
	}
	used, limit := l.BudgetUsed()
	assert.Equal(t, 10, used)
	assert.Equal(t, math.MaxInt, limit)
	assert.Equal(t, time.Duration(0), l.Delay(true))
}

// TestWindowLimiterReadsTheClockUnderItsLock: a time read before the lock
// could be older than what another caller pruned meanwhile, and the limiter
// then admitted limit+1 calls in one window. Here a call reads 5 s while,
// before it locks, another caller at 10 s prunes the call made at 0 s: the
// call at 5 s must still see that one, and wait for 10 s.
func TestWindowLimiterReadsTheClockUnderItsLock(t *testing.T) {
	t.Parallel()
	var (
		mu      sync.Mutex
		now     = fakeEpoch
		hook    func()
		stamped = func(d time.Duration) { mu.Lock(); now = fakeEpoch.Add(d); mu.Unlock() }
	)
	clock := func() time.Time {
		mu.Lock()
		h, at := hook, now
		hook = nil
		mu.Unlock()
		if h != nil {
			h()
		}
		return at
	}
	l := mustWindowLimiter(1, 10*time.Second, withClock(clock, newFakeClock().NewTimer))
	require.NoError(t, l.Wait(context.Background()), "the call at 0 s")

	stamped(5 * time.Second)
	pruned := make(chan struct{})
	mu.Lock()
	hook = func() {
		// Between this caller's clock read and its lock, another caller
		// prunes at 10 s. (Under the lock, it must wait for the lock.)
		go func() {
			stamped(10 * time.Second)
			l.Delay(false)
			close(pruned)
		}()
		select {
		case <-pruned:
		case <-time.After(100 * time.Millisecond):
		}
		stamped(5 * time.Second) // this caller's read stays 5 s
	}
	mu.Unlock()
	ctx, cancel := context.WithDeadline(context.Background(), fakeEpoch.Add(7*time.Second))
	defer cancel()
	err := l.Wait(ctx)
	<-pruned
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the slot at 5 s would be a second call within 10 s")
}

// textOnlyLimiter fails with x/time/rate's words for a deadline refusal,
// but not its meaning: the error matches nothing.
type textOnlyLimiter struct{}

func (textOnlyLimiter) Wait(context.Context) error {
	return errors.New("rate: Wait(n=1) would exceed context deadline")
}

// TestLimiterRefusalsRecognisedByType: a refusal to wait past a deadline is
// known by its type (it matches context.DeadlineExceeded), never by its
// text. A *rate.Limiter, given either way, refuses so; a limiter whose
// error only reads like a refusal has failed.
func TestLimiterRefusalsRecognisedByType(t *testing.T) {
	t.Parallel()
	ok := func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{}`)) }
	for name, opt := range map[string]Option{
		"WithRateLimit":         WithRateLimit(rate.Every(time.Hour), 1),
		"WithLimiter(*rate...)": WithLimiter(rate.NewLimiter(rate.Every(time.Hour), 1)),
	} {
		t.Run(name, func(t *testing.T) {
			c := coreServer(t, ok, opt)
			require.NoError(t, c.Do(context.Background(), http.MethodGet, "/v2/x", nil, nil, nil))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := c.Do(ctx, http.MethodGet, "/v2/x", nil, nil, nil)
			assert.ErrorIs(t, err, ErrRateLimited)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.NoError(t, ctx.Err(), "refused at once")
		})
	}
	c := coreServer(t, ok, WithLimiter(textOnlyLimiter{}))
	err := c.Do(context.Background(), http.MethodGet, "/v2/x", nil, nil, nil)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrRateLimited, "the limiter failed; it did not throttle")
	assert.Contains(t, err.Error(), "the rate limiter failed")
}

// TestWindowLimiterAdmissions: a limiter seeded with another's admissions
// (a job resumed after Ctrl-C) counts them: the calls it lets through and
// those already made never exceed the limit in any window, and the seed
// holds calls back for one window at most.
func TestWindowLimiterAdmissions(t *testing.T) {
	t.Parallel()
	const window = 10 * time.Second
	first, c := newFakeWindow(5, window, WithBulkShare(1))
	for range 3 {
		require.NoError(t, first.WaitLane(noWait(t, c), true))
		c.Advance(time.Second)
	}
	spent := first.Admissions()
	require.Len(t, spent, 3)
	assert.Equal(t, fakeEpoch, spent[0])
	assert.True(t, slices.IsSortedFunc(spent, time.Time.Compare))

	// The resumed job: 2 calls left in the window, then the first of the
	// earlier calls must leave it.
	second := mustWindowLimiter(5, window, WithBulkShare(1), WithAdmissions(spent), withClock(c.Now, c.NewTimer))
	used, _ := second.BudgetUsed()
	assert.Equal(t, 3, used)
	ctx := noWait(t, c)
	require.NoError(t, second.WaitLane(ctx, true))
	require.NoError(t, second.WaitLane(ctx, true))
	assert.Error(t, second.WaitLane(ctx, true), "the window holds 5 calls")
	assert.Equal(t, window-3*time.Second, second.Delay(true))
	assert.Len(t, second.Admissions(), 5)

	// A window later, nothing of the seed counts.
	c.Advance(window)
	assert.Empty(t, second.Admissions())
	assert.Zero(t, second.Delay(true))
}

// TestWithAdmissionsBounds: the seed holds calls back for at most one
// window, whatever it holds: old times are dropped, times ahead count as
// now, more than limit keep the latest limit; a zero time is refused.
func TestWithAdmissionsBounds(t *testing.T) {
	t.Parallel()
	const window = time.Minute
	now := fakeEpoch
	c := newFakeClock()
	seed := []time.Time{now.Add(-2 * window), now.Add(-window), now.Add(time.Hour), now.Add(100 * 365 * 24 * time.Hour)}
	for range 10 {
		seed = append(seed, now.Add(-time.Second))
	}
	l := mustWindowLimiter(3, window, WithAdmissions(seed), withClock(c.Now, c.NewTimer))
	got := l.Admissions()
	assert.Equal(t, []time.Time{now.Add(-time.Second), now, now}, got, "the latest 3, the future ones at now")
	assert.Equal(t, window-time.Second, l.Delay(false), "held for one window at most, not a century")

	// The seed is copied: changing the caller's slice changes nothing.
	mine := []time.Time{now}
	opt := WithAdmissions(mine)
	mine[0] = now.Add(-time.Hour)
	l = mustWindowLimiter(1, window, opt, withClock(c.Now, c.NewTimer))
	assert.Len(t, l.Admissions(), 1)

	_, err := NewWindowLimiter(3, window, WithAdmissions([]time.Time{{}}))
	assert.ErrorIs(t, err, ErrInvalidInput)
	l = mustWindowLimiter(3, window, WithAdmissions(nil))
	assert.Empty(t, l.Admissions())
}
