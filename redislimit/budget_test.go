package redislimit

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// scriptCounter is a go-redis hook that counts the scripts run.
type scriptCounter struct{ n atomic.Int64 }

func (h *scriptCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *scriptCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "evalsha" {
			h.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (h *scriptCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// budgetLimiter is a Limiter on s whose BudgetUsed reads the fake clock.
func budgetLimiter(t *testing.T, rdb redis.UniversalClient, limit int) (*Limiter, *fakeClock) {
	t.Helper()
	l := mustNew(t, rdb, "budget-"+t.Name(), limit, time.Minute)
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l.budget.now = clock.now
	return l, clock
}

func wantBudget(t *testing.T, l *Limiter, wantUsed, wantLimit int) {
	t.Helper()
	if used, limit := l.BudgetUsed(); used != wantUsed || limit != wantLimit {
		t.Errorf("BudgetUsed() = %d, %d; want %d, %d", used, limit, wantUsed, wantLimit)
	}
}

// Two observations within BudgetReadInterval make one Redis read: the
// second reports the first's count, even after more admissions; one after
// the interval reads Redis again, and sees every process's admissions.
func TestBudgetUsedReadsRedisOncePerInterval(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	counted := s.client(t)
	reads := &scriptCounter{}
	counted.AddHook(reads)
	l, clock := budgetLimiter(t, counted, 10)
	other := mustNew(t, s.client(t), "budget-"+t.Name(), 10, time.Minute)
	ctx := context.Background()
	for _, w := range []*Limiter{l, other} {
		if err := w.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	before := reads.n.Load()
	wantBudget(t, l, 2, 10)
	if err := other.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	clock.advance(BudgetReadInterval - time.Nanosecond)
	wantBudget(t, l, 2, 10)
	if got := reads.n.Load() - before; got != 1 {
		t.Errorf("two observations within the interval made %d Redis reads, want 1", got)
	}
	clock.advance(time.Nanosecond)
	wantBudget(t, l, 3, 10)
	if got := reads.n.Load() - before; got != 2 {
		t.Errorf("an observation after the interval made %d Redis reads in all, want 2", got)
	}
}

// A failed read keeps the last count, and the next read waits for the
// interval again.
func TestBudgetUsedKeepsTheLastCountWhenRedisFails(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { _ = rdb.Close() })
	l, clock := budgetLimiter(t, rdb, 5)
	if err := l.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantBudget(t, l, 1, 5)
	s.kill()
	clock.advance(BudgetReadInterval)
	wantBudget(t, l, 1, 5)
	wantBudget(t, l, 1, 5)
}

// A window whose set was lost while its marker says it admitted a request
// admits nothing until that request has left: it is reported full.
func TestBudgetUsedReportsALostWindowFull(t *testing.T) {
	t.Parallel()
	s := startRedis(t)
	rdb := s.client(t)
	l, _ := budgetLimiter(t, rdb, 4)
	if err := l.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Del(context.Background(), l.keys[0]).Err(); err != nil {
		t.Fatal(err)
	}
	wantBudget(t, l, 4, 4)
}
