package redislimit

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestFlushAllMidRun empties Redis while four Limiters (four processes, as
// far as Redis can tell) draw from one budget: the admissions they had
// made are gone, and no window may still hold more than limit.
func TestFlushAllMidRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs for several seconds")
	}
	s := startRedis(t)
	rdb := s.client(t)
	const limit, window = 30, time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 3500*time.Millisecond)
	defer cancel()

	var mu sync.Mutex
	var admitted []time.Time
	var wg sync.WaitGroup
	for range 4 {
		l := mustNew(t, newClient(t, s.addr()), t.Name(), limit, window)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				// Callers that wait at most 50 ms keep asking Redis,
				// as requests arriving all the time would.
				actx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
				at, err := l.wait(actx, false)
				cancel()
				if errors.Is(err, context.DeadlineExceeded) {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				admitted = append(admitted, at)
				mu.Unlock()
			}
		}()
	}
	// Mid-window, after the second burst.
	time.Sleep(1500 * time.Millisecond)
	if err := rdb.FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if len(admitted) < 2*limit {
		t.Fatalf("only %d admissions", len(admitted))
	}
	checkWindow(t, "across FLUSHALL", admitted, limit, window)
	t.Logf("%d admissions", len(admitted))
}

// TestEvictedBudget fills a Redis that evicts the keys closest to expiry
// (volatile-ttl) until it has evicted the budget's window, which carries a
// TTL: the spent window must still refuse.
func TestEvictedBudget(t *testing.T) {
	t.Parallel()
	s := startRedis(t, "--maxmemory", "4mb", "--maxmemory-policy", "volatile-ttl")
	rdb := s.client(t)
	const limit, window = 30, 30 * time.Second
	l := mustNew(t, rdb, t.Name(), limit, window)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range limit {
		if err := l.Wait(ctx); err != nil {
			t.Fatalf("admission %d: %v", i+1, err)
		}
	}
	if err := l.Wait(ctx); !isRefusal(ctx, err) {
		t.Fatalf("request %d: got %v, want a refusal", limit+1, err)
	}

	value := strings.Repeat("x", 8<<10)
	for i := 0; ; i++ {
		if n, err := rdb.Exists(ctx, l.keys[0]).Result(); err != nil {
			t.Fatal(err)
		} else if n == 0 {
			t.Logf("the window was evicted after %d filler keys", i)
			break
		}
		if i == 5000 {
			t.Fatal("Redis never evicted the window")
		}
		if err := rdb.Set(ctx, "filler:"+strconv.Itoa(i), value, time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
	}

	// Another process, which never saw the window, must refuse as well.
	other := mustNew(t, s.client(t), t.Name(), limit, window)
	for name, l := range map[string]*Limiter{"the same Limiter": l, "another Limiter": other} {
		short, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := l.Wait(short)
		if !isRefusal(short, err) {
			t.Errorf("%s, after the eviction: got %v, want a refusal until the window has passed", name, err)
		}
		cancel()
	}
}

// TestEvictionPolicy: a policy that may evict keys without a TTL could
// evict what redislimit keeps to notice lost state, so it is an error.
func TestEvictionPolicy(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	rdb := s.client(t)
	ctx := context.Background()
	for _, tc := range []struct {
		policy string
		ok     bool
	}{
		{"noeviction", true},
		{"volatile-lru", true},
		{"volatile-ttl", true},
		{"allkeys-lru", false},
		{"allkeys-lfu", false},
		{"allkeys-random", false},
	} {
		if err := rdb.ConfigSet(ctx, "maxmemory-policy", tc.policy).Err(); err != nil {
			t.Fatal(err)
		}
		l := mustNew(t, rdb, t.Name()+tc.policy, 10, time.Minute)
		err := l.Wait(ctx)
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.policy, err)
		case !tc.ok && err == nil:
			t.Errorf("%s: admitted, want an error", tc.policy)
		case !tc.ok:
			checkRedisError(t, err)
			if !strings.Contains(err.Error(), tc.policy) {
				t.Errorf("%s: got %v, want an error that names the policy", tc.policy, err)
			}
		}
	}
}

// TestLatestAdmissionFromAnotherClock: a latest admission after Redis's now
// (a failover to a server whose clock is behind, or a restored marker) is
// left out rather than taken as a live window that was lost.
func TestLatestAdmissionFromAnotherClock(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	rdb := s.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	future := time.Now().Add(time.Hour).UnixMicro()

	l := mustNew(t, rdb, t.Name()+"hint", 10, time.Minute)
	l.lastAll.Store(future)
	if err := l.Wait(ctx); err != nil {
		t.Errorf("a Limiter that saw an admission an hour ahead: %v", err)
	}

	l = mustNew(t, rdb, t.Name()+"marker", 10, time.Minute)
	if err := rdb.HSet(ctx, l.keys[3], "all", future).Err(); err != nil {
		t.Fatal(err)
	}
	if err := l.Wait(ctx); err != nil {
		t.Errorf("a marker an hour ahead: %v", err)
	}
}

// TestEvictionPolicyUnreadable: a Redis that forbids CONFIG (as hosted
// ones often do) is not checked, and the budget works.
func TestEvictionPolicyUnreadable(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	ctx := context.Background()
	if err := s.client(t).Do(ctx, "ACL", "SETUSER", "app", "on", "nopass", "~*", "+@all", "-config").Err(); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: s.addr(), Username: "app", Password: "any"}) // nopass takes any
	t.Cleanup(func() { _ = rdb.Close() })
	if err := rdb.ConfigGet(ctx, "maxmemory-policy").Err(); err == nil {
		t.Fatal("CONFIG GET works for a user without it")
	}
	l := mustNew(t, rdb, t.Name(), 10, time.Minute)
	if err := l.Wait(ctx); err != nil {
		t.Errorf("Wait: %v", err)
	}
}
