package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/redislimit"
	"github.com/edapp-go/edapp/safetyculture"
)

// classBudget is one SafetyCulture limit class's budget: N requests per
// window, for each endpoint of the class.
type classBudget struct {
	limit  int
	window time.Duration
}

// scBudget is --budget for --source safetyculture: the classes it
// overrides; the others keep the service's stated limits.
type scBudget map[safetyculture.LimitClass]classBudget

// scClasses are the classes --budget names, in the order the help lists.
var scClasses = []safetyculture.LimitClass{safetyculture.ClassCatalogue, safetyculture.ClassOther}

// parseSCBudget reads CLASS=N/WINDOW[,CLASS=N/WINDOW]: catalogue=100/1m,
// other=400/1m. Empty: no override.
func parseSCBudget(s string) (scBudget, error) {
	out := scBudget{}
	if s == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, spec, ok := strings.Cut(strings.TrimSpace(part), "=")
		class := safetyculture.LimitClass(strings.TrimSpace(name))
		if !ok || !slices.Contains(scClasses, class) {
			return nil, usagef("invalid --budget %q for --source safetyculture: want CLASS=N/WINDOW[,CLASS=N/WINDOW], CLASS one of catalogue or other, such as other=400/1m", s)
		}
		if _, dup := out[class]; dup {
			return nil, usagef("invalid --budget %q: class %s given twice", s, class)
		}
		limit, window, err := parseBudget(spec)
		if err != nil {
			return nil, err
		}
		out[class] = classBudget{limit, window}
	}
	return out, nil
}

// of is the budget of route's class: the override, or the service's
// stated limit per safetyculture.LimitWindow; the window has the margin
// the SDK keeps against latency.
func (b scBudget) of(route string) classBudget {
	class := safetyculture.ClassOf(route)
	c, ok := b[class]
	if !ok {
		c = classBudget{class.Limit(), safetyculture.LimitWindow}
	}
	c.window += budgetMargin(c.window)
	return c
}

// scLimiters makes every route's limiter, before a request is sent: each
// endpoint its own budget, shared through Redis (--redis or
// EDAPP_REDIS_URL) keyed by token and route when one is set. A bad value
// or a Redis that does not answer fails here.
func scLimiters(s *ioStreams, env func(string) string, f *budgetFlags, token string, b scBudget) (func(route string) edapp.Limiter, error) {
	if err := checkBulkShare(f.bulkShare); err != nil {
		return nil, err
	}
	limiters := map[string]edapp.Limiter{}
	url := redisURL(s, env, f)
	newLimiter := func(route string, c classBudget) (edapp.Limiter, error) {
		return edapp.NewWindowLimiter(c.limit, c.window, edapp.WithBulkShare(f.bulkShare))
	}
	if url != "" {
		rdb, err := redisClient(s, url)
		if err != nil {
			return nil, err
		}
		newLimiter = func(route string, c classBudget) (edapp.Limiter, error) {
			return redislimit.New(rdb, redislimit.KeyForRoute(token, route), c.limit, c.window, redislimit.WithBulkShare(f.bulkShare))
		}
	}
	for _, route := range safetyculture.Routes() {
		l, err := newLimiter(route, b.of(route))
		if err != nil {
			return nil, usageError{fmt.Errorf("budget of %s: %w", route, err)}
		}
		limiters[route] = endpointMeter(s, route, l)
	}
	return func(route string) edapp.Limiter { return limiters[route] }, nil
}

// endpointMeter watches one endpoint's limiter as the EdApp client's is
// watched: its long waits and 429 pauses are announced, naming the
// endpoint, and its requests and waits go into the run's summary.
func endpointMeter(s *ioStreams, route string, l edapp.Limiter) edapp.Limiter {
	bl, ok := l.(budgetLimiter)
	if !ok {
		return l
	}
	m := newWaitMeter(bl, s.notice)
	m.of = " of " + route
	if !isTerminal(s.ErrOut) {
		m.remind = remindEvery
	}
	s.endpointMeters = append(s.endpointMeters, m)
	return m
}
