package redislimit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/redis/go-redis/v9"
)

var _ edapp.BudgetReporter = (*Limiter)(nil)

// BudgetReadInterval is how long BudgetUsed keeps what it read from Redis:
// a gauge read at every collection costs Redis at most one small script
// per interval.
const BudgetReadInterval = 5 * time.Second

// budgetReadTimeout bounds the Redis call made by BudgetUsed, which has no
// ctx.
const budgetReadTimeout = 2 * time.Second

// usedScript counts the admissions in the shared window, as admitScript
// does: an admission at t counts while t > now-window on Redis's clock.
// A window whose state was lost (its set is empty while the marker's
// latest admission is still in it) admits nothing until that admission
// has left, so it is reported full. KEYS: the sorted set of all
// admissions, the marker. ARGV: limit, window (µs). It replies the count.
var usedScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local stale = now - tonumber(ARGV[2])
local n = redis.call('ZCOUNT', KEYS[1], '(' .. stale, '+inf')
local last = tonumber(redis.call('HGET', KEYS[2], 'all') or '0')
if n == 0 and last > stale and last <= now then
  return tonumber(ARGV[1])
end
return n
`)

// budgetCache is the last count BudgetUsed read from Redis.
type budgetCache struct {
	mu     sync.Mutex // held during a read, so that one read serves all
	now    func() time.Time
	readAt time.Time // when Redis was last asked, answered or not
	used   int
}

// BudgetUsed reports how many requests the shared budget admitted in the
// trailing window that ends now, over every process on the key, and the
// limit. It implements [edapp.BudgetReporter], for a gauge.
//
// It asks Redis at most once every [BudgetReadInterval], waiting at most 2
// seconds for the answer, and reports the last count read in between. A
// failed read keeps the last count (0 before the first), and is not
// reported: the budget's admissions report Redis's failures themselves.
func (l *Limiter) BudgetUsed() (used, limit int) {
	c := &l.budget
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if !c.readAt.IsZero() && now.Sub(c.readAt) < BudgetReadInterval {
		return c.used, l.limit
	}
	c.readAt = now
	if n, err := l.readUsed(); err == nil {
		c.used = n
	}
	return c.used, l.limit
}

// readUsed asks Redis how many requests the shared window holds.
func (l *Limiter) readUsed() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), budgetReadTimeout)
	defer cancel()
	n, err := call(ctx, func(ctx context.Context) (int64, error) {
		return usedScript.Run(ctx, l.rdb, []string{l.keys[0], l.keys[3]}, l.limit, l.window.Microseconds()).Int64()
	})
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, &Error{Err: fmt.Errorf("unexpected script reply %d", n)}
	}
	return int(n), nil
}
