package redislimit

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/redis/go-redis/v9"
)

var (
	_ edapp.Limiter     = (*Limiter)(nil)
	_ edapp.LaneLimiter = (*Limiter)(nil)
	_ edapp.Pauser      = (*Limiter)(nil)
)

// DefaultBulkShare is the share of each window that bulk calls may use
// unless [WithBulkShare] says otherwise.
const DefaultBulkShare = 0.9

// pauseTimeout bounds the Redis call made by Pause, which has no ctx.
const pauseTimeout = 2 * time.Second

// policyRecheck is how long a Limiter trusts the eviction policy it read.
const policyRecheck = time.Minute

// Limiter is a request budget shared through Redis: at most limit
// admissions in any trailing window, over every Limiter (in any process)
// that uses the same Redis and key. It implements [edapp.Limiter],
// [edapp.LaneLimiter] and [edapp.Pauser], and is safe for concurrent use.
//
// How quickly Wait reports that Redis is down is up to the Redis client's
// options. With go-redis's defaults, a refused connection is reported after
// about 2 seconds (4 tries of 5 dials each), and at once after repeated
// failures; a client made with MaxRetries: -1 and DialerRetries: 1 reports
// it at once. If the Redis client retries a command whose reply was lost,
// one request may be counted twice: the budget is then under-used, never
// overrun.
type Limiter struct {
	rdb       redis.UniversalClient
	keys      []string // all admissions, bulk admissions, pause, marker
	limit     int
	share     float64 // the bulk lane's share of each window
	bulkLimit int
	window    time.Duration

	member string // this Limiter's prefix for unique sorted-set members
	seq    atomic.Uint64

	// The latest admission and bulk admission this Limiter knows of, in µs
	// on Redis's clock: they notice a budget lost with its marker.
	lastAll, lastBulk atomic.Int64

	mu        sync.Mutex
	notBefore time.Time // local copy of the latest Pause, on this process's clock
	policyAt  time.Time // when the eviction policy was last read
	policyErr error     // what it said

	budget budgetCache // what BudgetUsed last read
}

// Option configures a [Limiter]. An Option given a bad value makes [New]
// fail with an error wrapping [edapp.ErrInvalidInput]; a nil Option is
// skipped.
type Option func(*Limiter) error

// WithBulkShare sets the share of each window that bulk calls may use
// (default 0.9), as [edapp.WithBulkShare] does: bulk calls then get
// floor(f*limit) admissions per window, and never fewer than one;
// interactive calls may use the whole window. f must be more than 0 and
// at most 1: [New] fails on any other value (0 and NaN included).
func WithBulkShare(f float64) Option {
	return func(l *Limiter) error {
		if !(f > 0 && f <= 1) { // false for NaN
			return fmt.Errorf("redislimit: %w: WithBulkShare(%v): the share must be more than 0 and at most 1", edapp.ErrInvalidInput, f)
		}
		l.share = f
		return nil
	}
}

// New returns a [Limiter] that admits at most limit requests in any trailing
// window, counted over every process that uses the same Redis and key.
// Give every process that uses one EdApp token the same key, and processes
// with different tokens different keys: KeyForToken makes such a key from
// the token. For EdApp's budget use limit 1400 and window
// 5*time.Minute+2*time.Second, as the client's default limiter does: the 2
// seconds are a margin against latency.
//
// The Limiter keeps its state under four Redis keys derived from key
// ({key}:all, {key}:bulk, {key}:pause and {key}:mark; the braces keep them
// in one Redis Cluster slot). A nil rdb, an empty key, a key that holds a
// brace (it would split them over slots), a limit below 1, a window shorter
// than a millisecond, or a bad option value is an error; New does not
// contact Redis.
func New(rdb redis.UniversalClient, key string, limit int, window time.Duration, opts ...Option) (*Limiter, error) {
	switch {
	case rdb == nil:
		return nil, fmt.Errorf("redislimit: %w: no Redis client", edapp.ErrInvalidInput)
	case key == "":
		return nil, fmt.Errorf("redislimit: %w: empty key", edapp.ErrInvalidInput)
	case strings.ContainsAny(key, "{}"):
		// The key is not quoted: it might be a secret used by mistake.
		return nil, fmt.Errorf("redislimit: %w: the key holds '{' or '}', which would put its Redis keys in different Redis Cluster slots", edapp.ErrInvalidInput)
	case limit < 1:
		return nil, fmt.Errorf("redislimit: %w: limit %d is below 1", edapp.ErrInvalidInput, limit)
	case window < time.Millisecond:
		return nil, fmt.Errorf("redislimit: %w: window %v is shorter than a millisecond", edapp.ErrInvalidInput, window)
	}
	l := &Limiter{
		rdb:    rdb,
		limit:  limit,
		share:  DefaultBulkShare,
		window: window,
		keys:   []string{"{" + key + "}:all", "{" + key + "}:bulk", "{" + key + "}:pause", "{" + key + "}:mark"},
		member: rand.Text(),
		budget: budgetCache{now: time.Now},
	}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(l); err != nil {
			return nil, err
		}
	}
	// The epsilon keeps a share like 0.29 of 100 from rounding down to 28.
	l.bulkLimit = min(max(1, int(math.Floor(l.share*float64(limit)+1e-9))), limit)
	return l, nil
}

// Error is returned by Wait when Redis could not be reached or did not
// answer as expected. The request was not sent.
//
// The Redis client's error is kept in Err but deliberately not unwrapped:
// a limiter failure must never pass for a failed connection to the API,
// which an HTTP client would retry.
type Error struct {
	Err error // the Redis client's error
}

func (e *Error) Error() string {
	return "redislimit: Redis error, nothing admitted: " + e.Err.Error()
}

// Wait blocks until the shared budget admits one interactive request, or
// fails. It is WaitLane(ctx, false).
func (l *Limiter) Wait(ctx context.Context) error {
	return l.WaitLane(ctx, false)
}

// WaitLane blocks until the shared budget admits one request in the given
// lane: bulk requests may use at most their share of each window,
// interactive ones the whole window. It returns
//
//   - nil once the request is admitted (and counted);
//   - at once, an error matching context.DeadlineExceeded when the wait
//     would outlast ctx's deadline;
//   - ctx's error when ctx ends while waiting;
//   - an *[Error] when Redis cannot be reached or fails, without waiting
//     for ctx (see [Limiter] for how quickly), or when Redis evicts keys
//     without a TTL (an allkeys-* maxmemory-policy);
//   - when Redis does not answer before ctx ends, an error that matches
//     ctx's error, at once, whatever the Redis client's own timeouts.
func (l *Limiter) WaitLane(ctx context.Context, bulk bool) error {
	_, err := l.wait(ctx, bulk)
	return err
}

// wait is WaitLane that also returns the admission's time on Redis's clock.
func (l *Limiter) wait(ctx context.Context, bulk bool) (time.Time, error) {
	for {
		if err := ctx.Err(); err != nil {
			return time.Time{}, err
		}
		l.mu.Lock()
		local := time.Until(l.notBefore)
		l.mu.Unlock()
		if local > 0 {
			if err := sleep(ctx, local); err != nil {
				return time.Time{}, err
			}
			continue
		}
		if err := l.checkPolicy(ctx); err != nil {
			return time.Time{}, err
		}
		ok, d, at, err := l.admit(ctx, bulk)
		if err != nil {
			return time.Time{}, err
		}
		if ok {
			return at, nil
		}
		if err := sleep(ctx, d); err != nil {
			return time.Time{}, err
		}
	}
}

// admit runs the admission script once. It reports whether the request was
// admitted, and if not how long to wait before asking again.
func (l *Limiter) admit(ctx context.Context, bulk bool) (ok bool, wait time.Duration, at time.Time, err error) {
	lane := "0"
	if bulk {
		lane = "1"
	}
	member := l.member + ":" + strconv.FormatUint(l.seq.Add(1), 36)
	res, err := call(ctx, func(ctx context.Context) ([]int64, error) {
		return admitScript.Run(ctx, l.rdb, l.keys, l.limit, l.bulkLimit, l.window.Microseconds(),
			lane, member, l.lastAll.Load(), l.lastBulk.Load()).Int64Slice()
	})
	if err != nil {
		return false, 0, time.Time{}, err
	}
	if len(res) != 5 {
		return false, 0, time.Time{}, &Error{Err: fmt.Errorf("unexpected script reply %v", res)}
	}
	storeMax(&l.lastAll, res[3])
	storeMax(&l.lastBulk, res[4])
	return res[0] == 1, time.Duration(res[1]) * time.Microsecond, time.UnixMicro(res[2]), nil
}

// storeMax raises a to v if v is larger.
func storeMax(a *atomic.Int64, v int64) {
	for {
		cur := a.Load()
		if v <= cur || a.CompareAndSwap(cur, v) {
			return
		}
	}
}

// checkPolicy reads Redis's eviction policy, at most once a minute, and
// returns an *Error while it is an allkeys-* policy: that may evict the
// marker, which has no TTL, and with it the only sign that the window was
// lost. A policy that cannot be read (CONFIG disabled or denied, as on some
// hosted Redis) is not an error.
func (l *Limiter) checkPolicy(ctx context.Context) error {
	l.mu.Lock()
	if !l.policyAt.IsZero() && time.Since(l.policyAt) < policyRecheck {
		defer l.mu.Unlock()
		return l.policyErr
	}
	l.mu.Unlock()
	cfg, err := call(ctx, func(ctx context.Context) (map[string]string, error) {
		return l.rdb.ConfigGet(ctx, "maxmemory-policy").Result()
	})
	switch {
	case err != nil && !refused(err):
		return err // no answer at all
	case err == nil && strings.HasPrefix(cfg["maxmemory-policy"], "allkeys-"):
		err = &Error{Err: fmt.Errorf("maxmemory-policy is %s, which may evict the budget's marker: "+
			"use noeviction or a volatile-* policy", cfg["maxmemory-policy"])}
	default:
		err = nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.policyAt, l.policyErr = time.Now(), err
	return err
}

// refused reports an *Error that holds Redis's own answer (an error reply,
// such as NOPERM or an unknown command), not a failure to reach it.
func refused(err error) bool {
	var e *Error
	var reply redis.Error
	return errors.As(err, &e) && errors.As(e.Err, &reply)
}

// call runs f, which asks Redis something, and returns when f does or when
// ctx ends, whichever is first: the Redis client's own timeouts and retries
// may outlast ctx's deadline by many seconds. An answer that comes after
// ctx ended is dropped; an admission it made is counted in Redis and never
// used, so the budget is under-used, never overrun.
func call[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		done <- result{v, err}
	}()
	var zero T
	select {
	case r := <-done:
		if ctx.Err() == nil && r.err != nil {
			return zero, &Error{Err: r.err}
		}
		if ctx.Err() == nil {
			return r.v, nil
		}
	case <-ctx.Done():
	}
	return zero, fmt.Errorf("redislimit: no answer from Redis before the context ended, nothing admitted: %w", ctx.Err())
}

// Pause tells every process using this key to send nothing before until,
// as the client does after a 429. A later pause extends an earlier one and
// never shortens it. The pause is kept in Redis on Redis's clock: only the
// remaining duration, time.Until(until), is taken from this process.
//
// Pause cannot return an error and logs nothing. It always pauses this
// process; if Redis cannot be reached within 2 seconds, the other processes
// are not told, and will meet the service's 429 themselves. Redis being
// unreachable makes this process's next Wait fail anyway.
func (l *Limiter) Pause(until time.Time) {
	d := time.Until(until)
	if d <= 0 {
		return
	}
	l.mu.Lock()
	if until.After(l.notBefore) {
		l.notBefore = until
	}
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), pauseTimeout)
	defer cancel()
	// Errors are dropped on purpose; see above.
	_, _ = call(ctx, func(ctx context.Context) (any, error) {
		return nil, pauseScript.Run(ctx, l.rdb, l.keys[2:3], max(d.Microseconds(), 1)).Err()
	})
}

// sleep waits for d, or refuses at once when d would outlast ctx's deadline.
func sleep(ctx context.Context, d time.Duration) error {
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		return fmt.Errorf("redislimit: a wait of %v would outlast the context deadline: %w",
			d.Round(time.Millisecond), context.DeadlineExceeded)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
