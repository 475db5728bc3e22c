package redislimit

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestOutage stops Redis with SHUTDOWN SAVE and starts it again on the same
// directory and port: calls fail loudly while it is down, go on with the
// same Limiter once it is back, and the saved window still holds them.
func TestOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for several seconds")
	}
	s := startRedis(t)
	const limit, window = 10, 5 * time.Second
	l := New(newClient(t, s.addr()), t.Name(), limit, window)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var admitted []time.Time
	for range limit {
		at, err := l.wait(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		admitted = append(admitted, at)
	}

	s.shutdownSave()
	for i := range 3 {
		start := time.Now()
		err := l.Wait(ctx)
		if err == nil {
			t.Fatal("admitted while Redis is down")
		}
		if ctx.Err() != nil {
			t.Fatalf("held on until ctx ended: %v", err)
		}
		checkRedisError(t, err)
		t.Logf("down, call %d failed after %v: %v", i+1, time.Since(start).Round(time.Millisecond), err)
	}

	s.start()
	// The same Limiter goes on; the Redis client reconnects by itself.
	back := time.Now()
	for len(admitted) < 2*limit {
		at, err := l.wait(ctx, false)
		var rerr *Error
		if errors.As(err, &rerr) && time.Since(back) < 10*time.Second {
			t.Logf("not back yet: %v", err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		admitted = append(admitted, at)
	}
	// Had the window been lost, the second ten would have gone at once,
	// within a window of the first ten.
	checkWindow(t, "across the outage", admitted, limit, window)
}
