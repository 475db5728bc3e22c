package edapp

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/edapp-go/edapp/internal/core"
	"github.com/edapp-go/edapp/internal/opt"
)

// Limiter holds a request back until the account's budget allows it. Every
// attempt the client makes, retries included, waits on it first: its one
// method, Wait(ctx context.Context) error, returns an error when ctx ends
// first, or when the wait would outlast ctx's deadline. *rate.Limiter and
// *[WindowLimiter] satisfy it; so does redislimit.Limiter, which shares one
// budget between processes.
type Limiter = core.Limiter

// LaneLimiter is a [Limiter] that keeps part of the budget for interactive
// calls: WaitLane(ctx, bulk bool) error. Bulk calls (the All* iterators,
// and any call made [WithBulk]) use WaitLane(ctx, true) and may take at
// most their share of the budget; the rest stays for interactive calls,
// which may use all of it. A Limiter that does not implement LaneLimiter
// treats both lanes alike.
type LaneLimiter = core.LaneLimiter

// Pauser is a [Limiter] that can be told the service asked everyone to slow
// down: after a 429, the client calls Pause(until time.Time) with the time
// before which nothing should be sent. A limiter shared between processes
// passes it on to all of them.
type Pauser = core.Pauser

// WindowLimiter spends a request budget the way the service counts it: at
// most limit calls start in any trailing window. The service allows 1400
// requests per 5 minutes for the whole account; a new client uses
// NewWindowLimiter(1400, 5*time.Minute+2*time.Second), whose 2 extra seconds
// cover latency and clock skew, so that two full bursts one window apart
// never land in the same 5 minutes at the service.
//
// Unlike a token bucket, it lets a burst of up to limit calls go at once,
// so a short job can use the whole budget. Once the budget is spent, the
// next call waits until the oldest call in the window is a window old.
//
// Calls come in two lanes. Bulk calls (the All* iterators, and calls made
// [WithBulk]) may use at most a share of any window, 0.9 by default (see
// [WithBulkShare]); interactive calls may use the whole window. With the
// defaults, an export takes at most 1260 calls in any window and leaves at
// least 140 for learners' launches and other interactive calls, which go
// ahead of bulk calls waiting for their turn. Wait is the interactive lane.
//
// Pause holds every call until a given time; the client calls it when the
// service answers 429.
//
// A waiting call holds its slot, so concurrent calls never get the same
// one. Wait returns an error at once, without waiting, when the slot comes
// after ctx's deadline; the error matches [ErrRateLimited] and
// context.DeadlineExceeded. A call whose ctx ends while it waits returns an
// error matching ErrRateLimited and ctx.Err(), and gives its slot back to
// later calls; calls already holding later slots keep them.
//
// A WindowLimiter counts only the calls made through it: other processes on
// the same account spend the same budget unseen (redislimit shares one
// budget between processes). It remembers the start times of the last
// window's calls and of the calls waiting. It is safe for concurrent use.
type WindowLimiter struct {
	limit   int
	bulkMax int // at most this many bulk calls in any window
	window  time.Duration
	share   float64 // set by WithBulkShare, read once by NewWindowLimiter

	base     time.Time // times below are offsets from base
	now      func() time.Time
	newTimer func(time.Duration) (<-chan time.Time, func() bool)

	mu    sync.Mutex
	all   []time.Duration // start times of calls in either lane, sorted: the last window's and the reserved ones
	bulk  []time.Duration // the same, bulk calls only
	pause time.Duration   // nothing starts before this

	seed []time.Time // set by WithAdmissions, read once by NewWindowLimiter
}

// WindowOption configures a [WindowLimiter].
type WindowOption func(*WindowLimiter) error

// WithBulkShare sets the share of any window that bulk calls may use:
// floor(f*limit) calls, but at least 1. The default is 0.9; 1 lets bulk
// calls use the whole window. f must be more than 0 and at most 1:
// NewWindowLimiter fails on any other value (NaN included).
func WithBulkShare(f float64) WindowOption {
	return func(l *WindowLimiter) error {
		if !(f > 0 && f <= 1) {
			return fmt.Errorf("%w: WithBulkShare(%v): the share must be more than 0 and at most 1", ErrInvalidInput, f)
		}
		l.share = f
		return nil
	}
}

// WithAdmissions counts calls an earlier process made: times are their
// start times, as [WindowLimiter.Admissions] reported them, so that a job
// resumed after Ctrl-C or a crash does not start as if the window were
// empty. They count against the whole budget and against the bulk share
// alike. Only the last window's matter: times a window or more before now
// are dropped, a time after now (a clock set back since) counts as now, and
// of more than limit times only the latest limit are kept, so the seed
// holds calls back for at most one window. A zero time is an error.
func WithAdmissions(times []time.Time) WindowOption {
	times = slices.Clone(times)
	return func(l *WindowLimiter) error {
		for _, t := range times {
			if t.IsZero() {
				return fmt.Errorf("%w: WithAdmissions: a zero time", ErrInvalidInput)
			}
		}
		l.seed = times
		return nil
	}
}

// withClock replaces the clock, for tests. newTimer returns a channel that
// receives once d has passed, and a func that stops the timer.
func withClock(now func() time.Time, newTimer func(d time.Duration) (<-chan time.Time, func() bool)) WindowOption {
	return func(l *WindowLimiter) error {
		l.now, l.newTimer = now, newTimer
		return nil
	}
}

// NewWindowLimiter returns a limiter that starts at most limit calls in any
// trailing window. A limit below 1, a window of zero or less, or a bad
// option is an error (to turn client-side limiting off, use
// WithLimiter(nil)).
func NewWindowLimiter(limit int, window time.Duration, opts ...WindowOption) (*WindowLimiter, error) {
	if limit < 1 {
		return nil, fmt.Errorf("%w: NewWindowLimiter(%d, ...): the limit must be at least 1", ErrInvalidInput, limit)
	}
	if window <= 0 {
		return nil, fmt.Errorf("%w: NewWindowLimiter(..., %v): the window must be longer than 0", ErrInvalidInput, window)
	}
	l := &WindowLimiter{
		limit:  limit,
		window: window,
		share:  0.9,
		now:    time.Now,
		newTimer: func(d time.Duration) (<-chan time.Time, func() bool) {
			t := time.NewTimer(d)
			return t.C, t.Stop
		},
	}
	if err := opt.Apply(l, opts); err != nil {
		return nil, err
	}
	if l.share >= 1 {
		l.bulkMax = l.limit
	} else {
		// The epsilon keeps a share like 0.29 of 100 from rounding down to
		// 28. The product is below limit, so it converts without overflow.
		l.bulkMax = min(max(int(math.Floor(l.share*float64(l.limit)+1e-9)), 1), l.limit)
	}
	l.base = l.now()
	l.admit(l.seed)
	l.seed = nil
	return l, nil
}

// admit records the start times of calls made before the limiter existed
// (see WithAdmissions), in both lanes.
func (l *WindowLimiter) admit(times []time.Time) {
	cut := -l.window
	var ds []time.Duration
	for _, t := range times {
		if d := min(t.Sub(l.base), 0); d > cut { // Sub saturates
			ds = append(ds, d)
		}
	}
	slices.Sort(ds)
	if len(ds) > l.limit {
		ds = ds[len(ds)-l.limit:]
	}
	l.all = ds
	l.bulk = slices.Clone(ds)
}

// Admissions returns the start times of the calls that started in the
// trailing window that ends now, oldest first: what the limiter would
// count if the next call came now. A job saves them as it goes and at its
// end; the next process gives them to [WithAdmissions]. Calls still
// waiting for a slot are not included.
func (l *WindowLimiter) Admissions() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.now().Sub(l.base)
	l.prune(t)
	n, _ := slices.BinarySearch(l.all, t+1)
	out := make([]time.Time, n)
	for i, d := range l.all[:n] {
		out[i] = l.base.Add(d).Round(0)
	}
	return out
}

// newDefaultLimiter is the limiter of a client made without WithLimiter.
func newDefaultLimiter() *WindowLimiter {
	l, err := NewWindowLimiter(DefaultBudget, DefaultBudgetWindow)
	if err != nil {
		panic(err) // unreachable: the defaults are valid
	}
	return l
}

// Wait waits for a slot in the interactive lane: WaitLane(ctx, false).
func (l *WindowLimiter) Wait(ctx context.Context) error {
	return l.WaitLane(ctx, false)
}

// WaitLane waits until a call in the given lane may start, or returns an
// error at once if that would be after ctx's deadline.
func (l *WindowLimiter) WaitLane(ctx context.Context, bulk bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	deadline, hasDeadline := ctx.Deadline()
	start, at, ok := l.reserveNow(bulk, deadline, hasDeadline)
	now := start
	for {
		if !ok {
			return &core.ThrottleError{Wait: at.Sub(start), Cause: context.DeadlineExceeded, Refused: true}
		}
		d := at.Sub(now)
		if d <= 0 {
			return nil
		}
		c, stop := l.newTimer(d)
		select {
		case <-c:
		case <-ctx.Done():
			stop()
			l.release(at, bulk)
			return &core.ThrottleError{Wait: l.now().Sub(start), Cause: ctx.Err()}
		}
		now, at, ok = l.keepOrMove(at, bulk, deadline, hasDeadline)
	}
}

// reserveNow reads the clock and reserves a slot, both under the lock: a
// time read before it could be older than what another caller has pruned.
func (l *WindowLimiter) reserveNow(bulk bool, deadline time.Time, hasDeadline bool) (now, at time.Time, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now = l.now()
	at, ok = l.reserve(now, bulk, deadline, hasDeadline)
	return now, at, ok
}

// keepOrMove is called when a reserved slot comes: it keeps the slot, or
// moves it past a pause that began after the slot was reserved.
func (l *WindowLimiter) keepOrMove(at time.Time, bulk bool, deadline time.Time, hasDeadline bool) (now, slot time.Time, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now = l.now()
	if l.pause <= at.Sub(l.base) {
		return now, at, true
	}
	l.remove(at, bulk)
	slot, ok = l.reserve(now, bulk, deadline, hasDeadline)
	return now, slot, ok
}

// release gives back a slot a cancelled call will not use.
func (l *WindowLimiter) release(at time.Time, bulk bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.remove(at, bulk)
}

// Delay reports how long a call in the given lane made now would wait,
// without reserving anything.
func (l *WindowLimiter) Delay(bulk bool) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.now().Sub(l.base)
	l.prune(t)
	return l.earliest(max(t, l.pause), bulk) - t
}

// BudgetUsed reports how many calls started in the trailing window that
// ends now, and the limit: the budget used in the current window.
func (l *WindowLimiter) BudgetUsed() (used, limit int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.now().Sub(l.base)
	l.prune(t)
	used, _ = slices.BinarySearch(l.all, t+1)
	return used, l.limit
}

// Pause holds every call until until. A later Pause extends the hold; an
// earlier one never shortens it.
func (l *WindowLimiter) Pause(until time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pause = max(l.pause, until.Sub(l.base))
}

// reserve takes the first slot at or after now for a call in the given
// lane, unless it comes after deadline. It returns the slot either way.
func (l *WindowLimiter) reserve(now time.Time, bulk bool, deadline time.Time, hasDeadline bool) (time.Time, bool) {
	t := now.Sub(l.base)
	l.prune(t)
	at := l.earliest(max(t, l.pause), bulk)
	if hasDeadline && at > deadline.Sub(l.base) {
		return l.base.Add(at), false
	}
	l.all = insertSorted(l.all, at)
	if bulk {
		l.bulk = insertSorted(l.bulk, at)
	}
	return l.base.Add(at), true
}

// remove gives back a slot that will not be used.
func (l *WindowLimiter) remove(at time.Time, bulk bool) {
	t := at.Sub(l.base)
	l.all = removeSorted(l.all, t)
	if bulk {
		l.bulk = removeSorted(l.bulk, t)
	}
}

// prune forgets calls that started a window or more before t: they no
// longer count for any call at or after t.
func (l *WindowLimiter) prune(t time.Duration) {
	cut := subSat(t, l.window)
	drop := func(s []time.Duration) []time.Duration {
		i := 0
		for i < len(s) && s[i] <= cut {
			i++
		}
		return s[i:]
	}
	l.all, l.bulk = drop(l.all), drop(l.bulk)
}

// earliest returns the first time at or after t at which a call may start
// without putting more than limit calls, or for a bulk call more than
// bulkMax bulk calls, in any window.
func (l *WindowLimiter) earliest(t time.Duration, bulk bool) time.Duration {
	for {
		lo, hi := firstFit(l.all, l.limit, l.window, t)
		if !bulk {
			return lo
		}
		blo, _ := firstFit(l.bulk, l.bulkMax, l.window, lo)
		if blo <= hi {
			return blo
		}
		t = blo
	}
}

// firstFit finds where one more start time fits among the sorted times a,
// keeping at most n of them in any half-open window of length w; that is,
// a[i+n]-a[i] >= w for every i. It returns the first time lo at or after t
// that fits, and hi, the end of the run of times from lo that all fit.
// Reserved slots may lie in the future, so the new time may land between
// them: an interactive call can start before a waiting bulk call's slot.
func firstFit(a []time.Duration, n int, w, t time.Duration) (lo, hi time.Duration) {
	// full(i): a[i..i+n-1] already fill a window; no time may go between them.
	// n may be as large as math.MaxInt: compare it with lengths, never add to it.
	full := func(i int) bool { return n <= len(a)-i && a[i+n-1]-a[i] < w }
	p := sort.Search(len(a), func(i int) bool { return a[i] > t }) // the new time goes at index p
	spanning := 0                                                  // full runs i with p-n < i < p
	for i := max(0, p-n+1); i < min(p, len(a)-n+1); i++ {
		if full(i) {
			spanning++
		}
	}
	for ; ; p++ {
		if spanning == 0 {
			lo, hi = t, time.Duration(math.MaxInt64)
			if p > 0 {
				lo = max(lo, a[p-1])
			}
			if p >= n {
				lo = max(lo, addSat(a[p-n], w))
			}
			if p < len(a) {
				hi = a[p]
			}
			if n <= len(a)-p {
				hi = min(hi, a[p+n-1]-w)
			}
			if lo <= hi {
				return lo, hi
			}
		}
		// At p == len(a) nothing spans p and hi is unbounded, so the loop
		// has returned before p passes len(a).
		if full(p) {
			spanning++
		}
		if i := p - n + 1; i >= 0 && full(i) {
			spanning--
		}
	}
}

func addSat(a, b time.Duration) time.Duration {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func subSat(a, b time.Duration) time.Duration {
	if b > 0 && a < math.MinInt64+b {
		return math.MinInt64
	}
	return a - b
}

func insertSorted(s []time.Duration, t time.Duration) []time.Duration {
	i, _ := slices.BinarySearch(s, t)
	return slices.Insert(s, i, t)
}

func removeSorted(s []time.Duration, t time.Duration) []time.Duration {
	if i, ok := slices.BinarySearch(s, t); ok {
		return slices.Delete(s, i, i+1)
	}
	return s
}

var (
	_ LaneLimiter    = (*WindowLimiter)(nil)
	_ Pauser         = (*WindowLimiter)(nil)
	_ BudgetReporter = (*WindowLimiter)(nil)
)
