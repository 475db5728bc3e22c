package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// waitTurn holds an attempt until the client's pause is over and the
// limiter lets it through, booking the time as waiting.
func (s *callState) waitTurn(ctx context.Context) error {
	if s.c.limiter == nil && s.c.notBefore.Load() == 0 {
		return nil // nothing to wait for: no clock read on the common path
	}
	start := s.c.now()
	paused, err := s.sitOutPause(ctx)
	if err == nil {
		err = s.waitLimiter(ctx, paused)
	}
	if held := s.c.since(start); held > time.Second && s.c.log != nil {
		s.c.log.LogAttrs(ctx, slog.LevelInfo, "edapp: waited for the request budget",
			slog.Duration("waited", held), slog.Bool("after429", paused > 0))
	}
	return err
}

// sitOutPause waits out the client-wide pause a 429 started, unless the
// call may not wait that long: then it fails at once.
func (s *callState) sitOutPause(ctx context.Context) (time.Duration, error) {
	d := s.c.pausedFor()
	if d <= 0 {
		return 0, nil
	}
	if err := s.mayWait(ctx, d); err != nil {
		return 0, err
	}
	start := s.c.now()
	err := s.c.sleep(ctx, d)
	held := s.c.since(start)
	s.book(WaitPause, held, d)
	if err != nil {
		return 0, &LimiterError{Throttled: true, Err: err}
	}
	return held, nil
}

// Delayer is a limiter that can tell how long a call in a lane made now
// would wait, without reserving anything (edapp.WindowLimiter).
type Delayer interface {
	Delay(bulk bool) time.Duration
}

// waitLimiter waits on the limiter, in the request's lane, for at most
// what WithMaxThrottle leaves after the pause already sat out.
func (s *callState) waitLimiter(ctx context.Context, spent time.Duration) error {
	l := s.c.limiter
	if l == nil {
		return nil
	}
	lctx := ctx
	if s.req.MaxThrottle >= 0 {
		// A bound that ends before the limiter has even looked would refuse
		// a free slot, so it is never under minThrottle.
		var cancel context.CancelFunc
		lctx, cancel = context.WithTimeout(ctx, max(s.req.MaxThrottle-spent, minThrottle))
		defer cancel()
	}
	var expected time.Duration
	if dl, ok := l.(Delayer); ok {
		expected = dl.Delay(s.req.Bulk)
	}
	start := s.c.now()
	var err error
	kind := WaitInteractive
	if ll, ok := l.(LaneLimiter); ok {
		if s.req.Bulk {
			kind = WaitBulk
		}
		err = ll.WaitLane(lctx, s.req.Bulk)
	} else {
		err = l.Wait(lctx)
	}
	s.book(kind, s.c.since(start), expected)
	if err == nil {
		return nil
	}
	return s.limiterRefusal(ctx, lctx, err)
}

// limiterRefusal turns a limiter's error into the call's: throttled when ctx
// ended, or when the wait would outlast WithMaxThrottle's bound or ctx's
// deadline (the limiter says so with an error matching
// context.DeadlineExceeded); otherwise the limiter itself failed.
func (s *callState) limiterRefusal(ctx, lctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return &LimiterError{Throttled: true, Err: ctxErr}
	}
	if lctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
		return &LimiterError{Err: err}
	}
	if mt := s.req.MaxThrottle; mt >= 0 {
		if dl, ok := ctx.Deadline(); !ok || s.c.now().Add(mt).Before(dl) {
			return &LimiterError{Throttled: true, Err: fmt.Errorf("the wait would be longer than %v", mt)}
		}
	}
	return &LimiterError{Throttled: true, Err: fmt.Errorf("the wait would outlast the context's deadline: %w", context.DeadlineExceeded)}
}

// minThrottle is the shortest bound WithMaxThrottle puts on a limiter's
// wait: scheduling alone can take longer than a shorter one.
const minThrottle = 50 * time.Millisecond

// mayWait refuses at once a wait of d that the call's WithMaxThrottle or
// ctx's deadline would not let it sit out.
func (s *callState) mayWait(ctx context.Context, d time.Duration) error {
	if mt := s.req.MaxThrottle; mt >= 0 && d > mt {
		return &LimiterError{Throttled: true, Err: fmt.Errorf("the wait would be longer than %v", mt)}
	}
	if dl, ok := ctx.Deadline(); ok && s.c.until(dl) < d {
		return &LimiterError{Throttled: true, Err: fmt.Errorf("the wait would outlast the context's deadline: %w", context.DeadlineExceeded)}
	}
	return nil
}

// pause holds every attempt through the client for d from now (a later
// pause extends it, an earlier one never shortens it), and tells a Pauser
// limiter.
func (c *Client) pause(ctx context.Context, d time.Duration, why string) {
	if d <= 0 {
		return
	}
	until := c.now().Add(d)
	for {
		cur := c.notBefore.Load()
		if cur >= until.UnixNano() || c.notBefore.CompareAndSwap(cur, until.UnixNano()) {
			break
		}
	}
	if p, ok := c.limiter.(Pauser); ok {
		p.Pause(until)
	}
	if c.log != nil {
		c.log.LogAttrs(ctx, slog.LevelInfo, "edapp: the service asked to slow down; pausing "+c.scope,
			slog.Duration("pause", d), slog.String("reason", why))
	}
}

// pausedFor is how much of the client-wide pause is left.
func (c *Client) pausedFor() time.Duration {
	n := c.notBefore.Load()
	if n == 0 {
		return 0
	}
	return max(c.until(time.Unix(0, n)), 0)
}

// PausedFor is how much of the client-wide pause after a 429 is left.
func (c *Client) PausedFor() time.Duration { return c.pausedFor() }
