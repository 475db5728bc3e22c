package edapp

import (
	"context"
	"time"
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
// calls. Bulk calls (the All* iterators, and any call made WithBulk) use
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
