package redislimit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestOutage stops Redis with SHUTDOWN SAVE and starts it again on the same
// directory and port: calls fail loudly while it is down, go on with the
// same Limiter once it is back, and the saved window still holds them.
func TestOutage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs for several seconds")
	}
	s := startRedis(t)
	const limit, window = 10, 5 * time.Second
	// A client that gives up at once keeps the outage short next to the
	// window; with go-redis's defaults each failure takes about 2 s.
	rdb := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { _ = rdb.Close() })
	l := mustNew(t, rdb, t.Name(), limit, window)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	began := time.Now()
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
	back := time.Now()
	n, err := s.client(t).ZCard(ctx, l.keys[0]).Result()
	if err != nil {
		t.Fatal(err)
	}
	if back.Sub(began) < window/2 && n != limit {
		t.Fatalf("the window lost its admissions across the restart: %d left of %d", n, limit)
	}
	t.Logf("Redis back %v after the first admission, with %d admissions in the window", back.Sub(began).Round(time.Millisecond), n)

	// The same Limiter goes on; the Redis client reconnects by itself.
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
