package redislimit

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/edapp-go/edapp"
)

func TestMaxInWindow(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	times := []time.Time{t0.Add(200 * time.Millisecond), t0, t0.Add(100 * time.Millisecond)}
	if n, _ := maxInWindow(times, 250*time.Millisecond); n != 3 {
		t.Errorf("window 250ms: got %d, want 3", n)
	}
	// [t0, t0+200ms) holds t0 and t0+100ms only.
	if n, _ := maxInWindow(times, 200*time.Millisecond); n != 2 {
		t.Errorf("window 200ms: got %d, want 2", n)
	}
}

// isRefusal reports an error that refused a wait outlasting ctx's deadline
// while ctx itself was still alive: the refusal came at once.
func isRefusal(ctx context.Context, err error) bool {
	return errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
}

func TestWindowNeverOverLimit(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	const limit, window = 10, 400 * time.Millisecond
	l := mustNew(t, newClient(t, s.addr()), t.Name(), limit, window)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var mu sync.Mutex
	var all, bulk []time.Time
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			isBulk := g%2 == 0
			for {
				at, err := l.wait(ctx, isBulk)
				if errors.Is(err, context.DeadlineExceeded) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				all = append(all, at)
				if isBulk {
					bulk = append(bulk, at)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(all) < limit {
		t.Fatalf("only %d admissions", len(all))
	}
	checkWindow(t, "all", all, limit, window)
	checkWindow(t, "bulk", bulk, 9, window)
	t.Logf("%d admissions, %d bulk", len(all), len(bulk))
}

func TestBurstGoesAtOnce(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	const limit = 50
	l := mustNew(t, newClient(t, s.addr()), t.Name(), limit, time.Minute)

	// A full window would make any of them wait about a minute, far past
	// the deadline: each success was admitted without waiting.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for range limit {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Wait(ctx); err != nil {
				t.Errorf("burst: %v", err)
			}
		}()
	}
	wg.Wait()
	if err := l.Wait(ctx); !isRefusal(ctx, err) {
		t.Errorf("request %d: got %v, want an immediate refusal matching context.DeadlineExceeded", limit+1, err)
	}
}

func TestBulkShare(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	rdb := newClient(t, s.addr())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	for _, tc := range []struct {
		name  string
		opts  []Option
		bulk  int
		limit int
	}{
		{"default", nil, 9, 10},
		{"half", []Option{WithBulkShare(0.5)}, 5, 10},
		{"tiny share still gets one", []Option{WithBulkShare(0.01)}, 1, 10},
		{"one is the whole window", []Option{WithBulkShare(1)}, 10, 10},
		{"0.29 of 100 is 29", []Option{WithBulkShare(0.29)}, 29, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, rdb, t.Name(), tc.limit, time.Minute, tc.opts...)
			for i := range tc.bulk {
				if err := l.WaitLane(ctx, true); err != nil {
					t.Fatalf("bulk %d: %v", i+1, err)
				}
			}
			if err := l.WaitLane(ctx, true); !isRefusal(ctx, err) {
				t.Fatalf("bulk %d: got %v, want a refusal", tc.bulk+1, err)
			}
			// The rest of the window stays for interactive calls.
			for i := tc.bulk; i < tc.limit; i++ {
				if err := l.WaitLane(ctx, false); err != nil {
					t.Fatalf("interactive %d: %v", i+1, err)
				}
			}
			if err := l.Wait(ctx); !isRefusal(ctx, err) {
				t.Fatalf("request %d: got %v, want a refusal", tc.limit+1, err)
			}
		})
	}
}

func TestInteractiveMayUseWholeWindow(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	l := mustNew(t, newClient(t, s.addr()), t.Name(), 10, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range 10 {
		if err := l.Wait(ctx); err != nil {
			t.Fatalf("interactive %d: %v", i+1, err)
		}
	}
	// Interactive calls took the whole window: nothing is left for bulk.
	if err := l.WaitLane(ctx, true); !isRefusal(ctx, err) {
		t.Fatalf("bulk after a full window: got %v, want a refusal", err)
	}
}

func TestPauseSharedAcrossProcesses(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	// Two clients and two Limiters, as two processes would have.
	rdbA, rdbB := newClient(t, s.addr()), newClient(t, s.addr())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	t.Run("long pause refuses at once", func(t *testing.T) {
		a, b := mustNew(t, rdbA, t.Name(), 10, time.Minute), mustNew(t, rdbB, t.Name(), 10, time.Minute)
		a.Pause(time.Now().Add(time.Minute))
		if err := b.Wait(ctx); !isRefusal(ctx, err) {
			t.Fatalf("paused: got %v, want a refusal", err)
		}
		pauseKey := b.keys[2]
		before, err := rdbB.Get(ctx, pauseKey).Int64()
		if err != nil {
			t.Fatal(err)
		}
		// A shorter pause never shortens the one in force.
		b.Pause(time.Now().Add(time.Second))
		after, err := rdbB.Get(ctx, pauseKey).Int64()
		if err != nil {
			t.Fatal(err)
		}
		if after != before {
			t.Errorf("a shorter pause moved the end from %d to %d", before, after)
		}
		// A longer one extends it.
		b.Pause(time.Now().Add(2 * time.Minute))
		if longer, _ := rdbA.Get(ctx, pauseKey).Int64(); longer <= before {
			t.Errorf("a longer pause left the end at %d (was %d)", longer, before)
		}
	})

	t.Run("nothing is admitted before the pause ends", func(t *testing.T) {
		a, b := mustNew(t, rdbA, t.Name(), 10, time.Minute), mustNew(t, rdbB, t.Name(), 10, time.Minute)
		a.Pause(time.Now().Add(300 * time.Millisecond))
		end, err := rdbB.Get(ctx, b.keys[2]).Int64()
		if err != nil {
			t.Fatal(err)
		}
		at, err := b.wait(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		if at.Before(time.UnixMicro(end)) {
			t.Errorf("admitted at %d µs, before the pause ended at %d µs", at.UnixMicro(), end)
		}
	})
}

func TestKeysExpireButTheMarker(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	rdb := newClient(t, s.addr())
	const window = 2 * time.Second
	l := mustNew(t, rdb, t.Name(), 10, window)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := l.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.WaitLane(ctx, true); err != nil {
		t.Fatal(err)
	}
	l.Pause(time.Now().Add(time.Second))
	// The marker has no TTL, so no eviction policy that spares keys
	// without one can take it; every other key expires (PTTL -2: a slow
	// machine may find it gone already).
	mark := l.keys[3]
	for _, k := range l.keys {
		ttl, err := rdb.PTTL(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case k == mark && ttl != -1:
			t.Errorf("%s: PTTL %v, want none", k, ttl)
		case k != mark && (ttl == -1 || ttl > window):
			t.Errorf("%s: PTTL %v, want gone or (0, %v]", k, ttl, window)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		keys, err := rdb.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) == 1 && keys[0] == mark {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("keys left behind: %v, want only %s", keys, mark)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestUnreachableRedisFailsAtOnce(t *testing.T) {
	t.Parallel()
	// Nothing listens on a port that was free a moment ago.
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// How long the Redis client tries before it gives up is its own
	// option; it is logged here, not asserted.
	fast := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { _ = fast.Close() })
	for name, rdb := range map[string]redis.UniversalClient{"default client": newClient(t, addr), "fail-fast client": fast} {
		l := mustNew(t, rdb, t.Name(), 10, time.Minute)
		start := time.Now()
		err := l.Wait(ctx)
		if err == nil {
			t.Fatal("Wait admitted a request without Redis")
		}
		if ctx.Err() != nil {
			t.Fatalf("Wait held on until ctx ended: %v", err)
		}
		checkRedisError(t, err)
		t.Logf("%s: failed after %v: %v", name, time.Since(start).Round(time.Millisecond), err)
	}

	l := mustNew(t, fast, t.Name(), 10, time.Minute)

	// Pause cannot fail; it still holds this process back.
	l.Pause(time.Now().Add(time.Minute))
	if err := l.Wait(ctx); !isRefusal(ctx, err) {
		t.Errorf("after Pause: got %v, want a refusal", err)
	}
}

// checkRedisError checks that err names Redis and cannot pass for a
// network error or a deadline, which an HTTP client would treat otherwise.
func checkRedisError(t *testing.T, err error) {
	t.Helper()
	var rerr *Error
	if !errors.As(err, &rerr) || rerr.Err == nil {
		t.Errorf("got %T %v, want a *redislimit.Error with its cause", err, err)
	}
	if !strings.Contains(err.Error(), "Redis") {
		t.Errorf("error does not name Redis: %v", err)
	}
	var op *net.OpError
	var ne net.Error
	switch {
	case errors.As(err, &op), errors.As(err, &ne):
		t.Errorf("error passes for a network error: %v", err)
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		t.Errorf("error passes for a connection failure: %v", err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		t.Errorf("error passes for a context error: %v", err)
	}
}

func TestNewRejectsBadInput(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, "127.0.0.1:1")
	for _, tc := range []struct {
		name   string
		rdb    redis.UniversalClient
		key    string
		limit  int
		window time.Duration
		opts   []Option
	}{
		{"nil client", nil, "k", 10, time.Minute, nil},
		{"empty key", rdb, "", 10, time.Minute, nil},
		{"zero limit", rdb, "k", 0, time.Minute, nil},
		{"negative limit", rdb, "k", -1, time.Minute, nil},
		{"short window", rdb, "k", 10, time.Microsecond, nil},
		{"negative window", rdb, "k", 10, -time.Minute, nil},
		{"bulk share above 1", rdb, "k", 10, time.Minute, []Option{WithBulkShare(1.5)}},
		{"negative bulk share", rdb, "k", 10, time.Minute, []Option{WithBulkShare(-0.1)}},
		{"NaN bulk share", rdb, "k", 10, time.Minute, []Option{WithBulkShare(math.NaN())}},
		{"zero bulk share, as edapp.WithBulkShare(0)", rdb, "k", 10, time.Minute, []Option{WithBulkShare(0)}},
		{"the first bad value", rdb, "k", 10, time.Minute, []Option{WithBulkShare(2), WithBulkShare(0.5)}},
	} {
		l, err := New(tc.rdb, tc.key, tc.limit, tc.window, tc.opts...)
		if err == nil || !strings.HasPrefix(err.Error(), "redislimit: ") || !errors.Is(err, edapp.ErrInvalidInput) {
			t.Errorf("%s: got %v, want a redislimit error wrapping edapp.ErrInvalidInput", tc.name, err)
		}
		if l != nil {
			t.Errorf("%s: got a Limiter with the error", tc.name)
		}
	}
}

func TestRedisErrorIsLoud(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	rdb := newClient(t, s.addr())
	l := mustNew(t, rdb, t.Name(), 10, time.Minute)
	ctx := context.Background()
	// Something else wrote a string where the window's sorted set lives.
	if err := rdb.Set(ctx, l.keys[0], "not a sorted set", 0).Err(); err != nil {
		t.Fatal(err)
	}
	err := l.Wait(ctx)
	checkRedisError(t, err)
	if !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Errorf("error hides Redis's reason: %v", err)
	}
}

// TestStalledRedis pauses every client of a real Redis (CLIENT PAUSE): Wait
// returns by the caller's deadline, or the client's WithMaxThrottle, with
// an error, and never admits once it has passed.
func TestStalledRedis(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	const stall = 5 * time.Second
	// go-redis's default options: a 3 s read timeout and 3 retries.
	l := mustNew(t, s.client(t), t.Name(), 10, time.Minute)
	pause := func() {
		if err := s.client(t).ClientPause(context.Background(), stall).Err(); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("caller's deadline", func(t *testing.T) {
		pause()
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		err := l.Wait(ctx)
		took := time.Since(start)
		if err == nil {
			t.Fatal("admitted while Redis stalled")
		}
		// A bound far from the deadline: only a Wait that held on for
		// Redis would reach it.
		if took > stall/2 {
			t.Errorf("Wait returned after %v, past the deadline of 200ms", took.Round(time.Millisecond))
		}
		t.Logf("returned after %v: %v", took.Round(time.Millisecond), err)
	})

	t.Run("WithMaxThrottle", func(t *testing.T) {
		var requests atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id":"usr_1"}`))
		}))
		defer srv.Close()
		client, err := edapp.NewClient("a-token", edapp.WithBaseURL(srv.URL), edapp.WithLimiter(l))
		if err != nil {
			t.Fatal(err)
		}
		// Let the first pause end, then stall again.
		time.Sleep(stall)
		pause()
		start := time.Now()
		_, err = client.Users.Get(context.Background(), "usr_1", edapp.WithMaxThrottle(200*time.Millisecond))
		took := time.Since(start)
		if err == nil {
			t.Fatal("the call went out while Redis stalled")
		}
		if took > stall/2 {
			t.Errorf("the call returned after %v, past WithMaxThrottle(200ms)", took.Round(time.Millisecond))
		}
		if n := requests.Load(); n != 0 {
			t.Errorf("%d requests reached the service", n)
		}
		t.Logf("returned after %v: %v", took.Round(time.Millisecond), err)
	})
}

// TestKeysShareOneSlot asks a real Redis in cluster mode (CLUSTER KEYSLOT)
// where each Redis key of a budget lands: a key New accepts keeps them in
// one slot, and one that would split them is refused.
func TestKeysShareOneSlot(t *testing.T) {
	t.Parallel()
	s := startRedis(t, "--cluster-enabled", "yes")
	rdb := s.client(t)
	ctx := context.Background()
	for _, key := range []string{
		"edapp:budget:acme", KeyForToken("a-token"), "a b", "x:y:z", "é",
		"}x", "{x}", "a{b", "a}b", "{", "}", "{}", "a{}b", "}{x}", "}tok_9f2c1e7a",
	} {
		l, err := New(rdb, key, 10, time.Minute)
		if err != nil {
			if !strings.ContainsAny(key, "{}") {
				t.Errorf("New(%q): %v", key, err)
			}
			if strings.Contains(err.Error(), "tok_") {
				t.Errorf("New(%q): the error shows the key: %v", key, err)
			}
			continue
		}
		slots := map[int64][]string{}
		for _, k := range l.keys {
			slot, err := rdb.ClusterKeySlot(ctx, k).Result()
			if err != nil {
				t.Fatal(err)
			}
			slots[slot] = append(slots[slot], k)
		}
		if len(slots) != 1 {
			t.Errorf("key %q: its Redis keys land in %d slots: %v", key, len(slots), slots)
		}
	}
}
