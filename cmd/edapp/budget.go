package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/redislimit"
	"github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"
)

// budgetFlags put a run's client on a budget other than the SDK's default:
// --budget N/WINDOW, --bulk-share F, and --redis URL (or EDAPP_REDIS_URL) to
// share it with every other process on the same token.
type budgetFlags struct {
	redisURL  string
	budget    string
	bulkShare float64
	// spent are the admissions an earlier run saved (an export's state):
	// the limiter counts them, unless the budget is shared through Redis,
	// which keeps it itself.
	spent []time.Time
}

// defaultBudget is the budget of a command without the budget flags.
func defaultBudget() *budgetFlags {
	return &budgetFlags{bulkShare: redislimit.DefaultBulkShare}
}

// addBudgetFlags registers the budget flags on cmd, into b, and marks cmd
// budgeted.
func addBudgetFlags(cmd *cobra.Command, b *budgetFlags) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[budgetedAnnotation] = "true"
	fl := cmd.Flags()
	fl.StringVar(&b.redisURL, "redis", "", "share the token's budget with other processes through this Redis (redis://host:port/db; default $EDAPP_REDIS_URL, the place for a password)")
	fl.StringVar(&b.budget, "budget", "", "the account's request budget, N/WINDOW (default 1400/5m, the service's)")
	fl.Float64Var(&b.bulkShare, "bulk-share", redislimit.DefaultBulkShare, "the share of each window that bulk reads may use, the rest staying for interactive callers (0 to 1; each window admits at least one bulk read)")
}

// budgetMargin is what the limiter adds to the budget's window against
// latency, as the SDK's default does (5m2s for 5m): 2 s, or a tenth of a
// window shorter than 20 s.
func budgetMargin(window time.Duration) time.Duration {
	return min(2*time.Second, window/10)
}

// parseBudget reads N/WINDOW: 1400/5m, 30/10s.
func parseBudget(s string) (int, time.Duration, error) {
	n, w, ok := strings.Cut(s, "/")
	limit, err := strconv.Atoi(n)
	if !ok || err != nil || limit < 1 {
		return 0, 0, usagef("invalid --budget %q: want N/WINDOW, such as 1400/5m or 30/10s", s)
	}
	window, err := parseDuration(w)
	if err != nil || window < time.Second {
		return 0, 0, usagef("invalid --budget %q: the window must be a duration of 1s or more, such as 5m or 10s", s)
	}
	return limit, window, nil
}

// newLimiter builds the client's limiter from the budget flags f (the
// SDK's default budget without them). token keys the shared budget.
func newLimiter(s *ioStreams, env func(string) string, f *budgetFlags, token string) (budgetLimiter, error) {
	url := redisURL(s, env, f)
	if err := checkBulkShare(f.bulkShare); err != nil {
		return nil, err
	}
	limit, window := edapp.DefaultBudget, edapp.DefaultBudgetWindow
	if f.budget != "" {
		var err error
		if limit, window, err = parseBudget(f.budget); err != nil {
			return nil, err
		}
		window += budgetMargin(window)
	}
	if url == "" {
		l, err := edapp.NewWindowLimiter(limit, window, edapp.WithBulkShare(f.bulkShare), edapp.WithAdmissions(f.spent))
		if err != nil {
			return nil, usageError{err}
		}
		return l, nil
	}
	return redisLimiter(s, url, redislimit.KeyForToken(token), limit, window, f.bulkShare)
}

// redisURL is --redis, or EDAPP_REDIS_URL; a password on the command line
// is warned of.
func redisURL(s *ioStreams, env func(string) string, f *budgetFlags) string {
	if f.redisURL == "" {
		return env("EDAPP_REDIS_URL")
	}
	warnPasswordFlag(s.ErrOut, "--redis", f.redisURL, redisPasswordHint)
	return f.redisURL
}

func checkBulkShare(f float64) error {
	if !(f > 0 && f <= 1) { // NaN too
		return usagef("invalid --bulk-share %v: want more than 0 and at most 1", f)
	}
	return nil
}

// redisLimiter shares the budget through the Redis at url, checked once
// before it is used.
func redisLimiter(s *ioStreams, url, key string, limit int, window time.Duration, bulkShare float64) (budgetLimiter, error) {
	rdb, err := redisClient(s, url)
	if err != nil {
		return nil, err
	}
	l, err := redislimit.New(rdb, key, limit, window, redislimit.WithBulkShare(bulkShare))
	if err != nil {
		return nil, usageError{err}
	}
	return l, nil
}

// redisClient is a client of the Redis at url, closed when the run ends,
// answering a PING.
func redisClient(s *ioStreams, url string) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		// Not err: it may quote the URL, and the URL may hold a password.
		return nil, usagef("invalid --redis URL: want redis://[user:password@]host:port[/db] (the URL is not shown: it may hold a password)")
	}
	boundRedis(opts)
	rdb := redis.NewClient(opts)
	s.closers = append(s.closers, rdb.Close)
	if err := checkRedis(rdb, opts.TLSConfig != nil); err != nil {
		return nil, err
	}
	return rdb, nil
}

// Bounds on the Redis client, so that a Redis that does not answer fails a
// run in seconds rather than minutes: each dial, read and write, the
// retries of a command and of a dial, and the first PING.
const (
	redisTimeout     = 3 * time.Second
	redisRetries     = 1
	redisPingTimeout = 5 * time.Second
)

// boundRedis gives the client the bounds above where the URL set none
// (redis.ParseURL reads dial_timeout, max_retries and the like), and makes
// it respect the deadline of each request's context.
func boundRedis(o *redis.Options) {
	for _, d := range []*time.Duration{&o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout} {
		if *d == 0 {
			*d = redisTimeout
		}
	}
	for _, n := range []*int{&o.MaxRetries, &o.DialerRetries} {
		if *n == 0 {
			*n = redisRetries
		}
	}
	o.ContextTimeoutEnabled = true
}

// checkRedis PINGs the shared budget's Redis once, within
// redisPingTimeout, before the first request: a wrong scheme, port or
// password fails the run at once, with its likely cause, instead of on
// the first request's deadline. The client constructor has no context to pass; the check
// is capped, and a second signal ends the process meanwhile.
func checkRedis(rdb *redis.Client, tls bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), redisPingTimeout)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("--redis: the shared budget's Redis does not answer a PING: %v; %s", err, redisCause(err, tls))
	}
	return nil
}

// redisCause names the likely cause of a failed PING.
func redisCause(err error, tls bool) string {
	var opErr *net.OpError
	switch {
	case redis.IsAuthError(err):
		return "the URL's user or password is wrong or missing (redis://user:password@host:port)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing listens there: check the host and port"
	case tls && (errors.Is(err, context.DeadlineExceeded) || errors.As(err, &opErr)):
		return "the URL is rediss:// (TLS): is the server a plain Redis, which wants redis://? Or the port is not Redis's"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.EOF):
		return "no answer: a firewall, a port that is not Redis's, or a Redis that wants TLS (rediss://)"
	}
	return "check the URL's scheme, host, port and password"
}

// seedBudget makes the limiter built on b count what the last export into
// dests spent of the budget's current window, so that a run resumed after
// Ctrl-C or a crash does not overspend it.
func seedBudget(ctx context.Context, b *budgetFlags, dests []export.Destination) error {
	spent, err := export.SavedBudget(ctx, dests...)
	if err != nil {
		return err
	}
	b.spent = spent
	return nil
}
