package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp/internal/transport"
)

// Limiter holds a request back until the account's budget allows it. Every
// attempt the client makes, retries included, waits on it first. Wait
// returns an error when ctx ends first, or when the wait would outlast ctx's
// deadline. *rate.Limiter and *WindowLimiter satisfy it; so does
// redislimit.Limiter, which shares one budget between processes.
type Limiter interface {
	Wait(ctx context.Context) error
}

// LaneLimiter is a Limiter that keeps part of the budget for interactive
// calls. Bulk calls (the All* iterators, and any call made [WithBulk]) use
// WaitLane(ctx, true) and may take at most their share of the budget; the
// rest stays for interactive calls, which may use all of it. A Limiter that
// does not implement LaneLimiter treats both lanes alike.
type LaneLimiter interface {
	Limiter
	WaitLane(ctx context.Context, bulk bool) error
}

// Pauser is a Limiter that can be told the service asked everyone to slow
// down: after a 429, the client calls Pause with the time before which
// nothing should be sent. A limiter shared between processes passes it on
// to all of them.
type Pauser interface {
	Pause(until time.Time)
}

// ThrottleError is the error of a call the limiter held, or would have held,
// past the end of its context.
type ThrottleError struct {
	Wait    time.Duration // how long the call waited, or would have
	Cause   error         // ctx.Err(), or context.DeadlineExceeded when refused
	Refused bool          // the slot came after ctx's deadline; the call did not wait
}

func (e *ThrottleError) Error() string {
	if e.Refused {
		return fmt.Sprintf("edapp: rate limit: next slot in %v, after the context deadline", e.Wait.Round(time.Millisecond))
	}
	return fmt.Sprintf("edapp: rate limit: %v after waiting %v for a slot", e.Cause, e.Wait.Round(time.Millisecond))
}

// Is reports that the call was throttled.
func (e *ThrottleError) Is(target error) bool { return target == ErrRateLimited }

func (e *ThrottleError) Unwrap() error { return e.Cause }

// transportLimiter returns what the transport waits on: nil for no limit,
// and a *rate.Limiter wrapped so that its refusal to wait past a deadline
// is recognised by its type.
func transportLimiter(l Limiter) transport.Limiter {
	if IsNil(l) {
		return nil
	}
	if rl, ok := l.(*rate.Limiter); ok {
		return rateLimiter{rl}
	}
	return l
}

// rateLimiter is a *rate.Limiter whose Wait refuses a wait that would
// outlast ctx's deadline with a *ThrottleError, which matches
// context.DeadlineExceeded; x/time/rate's own error for it matches nothing.
type rateLimiter struct{ l *rate.Limiter }

func (r rateLimiter) Wait(ctx context.Context) error {
	res := r.l.Reserve()
	if !res.OK() {
		return errors.New("the rate.Limiter's burst is below 1")
	}
	d := res.Delay()
	if d == 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		res.Cancel()
		return &ThrottleError{Wait: d, Cause: context.DeadlineExceeded, Refused: true}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		res.Cancel()
		return &ThrottleError{Wait: d, Cause: ctx.Err()}
	}
}
