// Package redislimit keeps one request budget for several processes, in
// Redis. Replicas of an app, workers and tools that use the same EdApp token
// share that token's budget (1400 requests per 5 minutes for the whole
// account); each process with its own in-process limiter would believe it
// owns all of it, and together they would run into 429s. A [Limiter] keeps
// the budget in Redis, so every process that uses the same key draws from
// the same window.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
//	l, err := redislimit.New(rdb, redislimit.KeyForToken(token), 1400, 5*time.Minute+2*time.Second)
//	if err != nil {
//		return err // a bad argument; New does not contact Redis
//	}
//	client, err := edapp.NewClient(token, edapp.WithLimiter(l))
//
// It behaves like edapp.WindowLimiter, shared:
//
//   - At most limit requests are admitted in any trailing window, counted
//     over all processes. A burst of up to limit goes out at once.
//   - Bulk calls (the All* iterators and calls made edapp.WithBulk) may use
//     at most a share of each window ([WithBulkShare], default 0.9); the rest
//     stays for interactive calls, which may use the whole window.
//   - After a 429, the client calls Pause, and every process using the key
//     sends nothing until the pause ends.
//   - Wait refuses at once, with an error matching context.DeadlineExceeded,
//     when the wait would outlast ctx's deadline.
//   - BudgetUsed reports the shared window's admissions and the limit, for
//     a gauge (edapp.BudgetReporter, which the otel package's WithLimiter
//     takes). It reads Redis at most once every [BudgetReadInterval].
//
// The window is decided atomically by a Lua script inside Redis, with the
// time taken from Redis itself, so the processes' clocks do not matter. The
// keys of the window expire a window after the last admission; one small
// key per budget, the marker, stays.
//
// A Limiter never lets a request through unlimited. While Redis cannot be
// reached, Wait fails with an *[Error] that names Redis, as soon as the Redis
// client gives up rather than when ctx ends, and the client sends nothing;
// once Redis answers again, calls go on without a restart (the Redis client
// reconnects by itself). While Redis does not answer (stalled, or paused),
// Wait returns when ctx ends, with an error that matches ctx's, however
// long the Redis client would wait; the client's WithMaxThrottle reaches
// the Limiter as such a deadline. Nothing is admitted after ctx ended.
//
// # What it needs from Redis
//
//   - Redis 4.0 or later (Lua scripts, TIME), a single server or Redis
//     Cluster: the keys of one budget share one hash slot.
//   - An eviction policy that never evicts keys without a TTL: noeviction
//     or any volatile-* policy. The window's keys carry a TTL and may be
//     evicted under memory pressure; the marker ({key}:mark, no TTL)
//     records the latest admission, and a window found missing while the
//     marker says it is live was lost: nothing is admitted until a whole
//     window has passed since that admission. An allkeys-* policy could
//     evict the marker too, so Wait reports it as an *Error when it can
//     read the policy (CONFIG GET, at most once a minute); a Redis that
//     forbids CONFIG is not checked.
//   - After FLUSHALL, or a restart without persistence, the marker is gone
//     too. Each Limiter remembers the latest admission it has seen and
//     writes it back, so the processes that were running hold back for the
//     rest of that window; a process started after the loss, alone, cannot
//     know and may spend the window again.
package redislimit
