package transport

import (
	"context"
	"time"
)

// Clock is what a Client reads the time from and waits on; a nil func is
// the real clock's. Every wait in this package goes through it, so a test
// can drive a whole client, limiter and fake service on one fake clock.
type Clock struct {
	Now func() time.Time
	// NewTimer returns a channel that receives once d has passed, and a
	// func that stops the timer, reporting whether it had not fired.
	NewTimer func(d time.Duration) (<-chan time.Time, func() bool)
}

func realTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// since is the time passed on the client's clock since t.
func (c *Client) since(t time.Time) time.Duration { return c.now().Sub(t) }

// until is the time left on the client's clock until t.
func (c *Client) until(t time.Time) time.Duration { return t.Sub(c.now()) }

// sleep waits d on the client's clock, or until ctx is done: then it
// returns ctx's error. d is capped by every caller (a pause by MaxPause, a
// backoff by the policy's MaxWait).
func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	ch, stop := c.newTimer(d)
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		stop()
		return ctx.Err()
	}
}
