package sctest

import (
	"math"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

// Class is a rate-limit class: the service limits each listed Training
// catalogue endpoint to 200 requests a minute and every other endpoint to
// 800, each endpoint (method and path template) counted on its own.
type Class string

const (
	Catalogue Class = "catalogue"
	Other     Class = "other"
)

// catalogueRoutes are the endpoints the service's rate-limit table lists.
var catalogueRoutes = map[string]bool{
	"GET /training/collections/v1":                              true,
	"GET /training/collections/v1/{courseCollectionId}/courses": true,
	"GET /training/courses/v1":                                  true,
	"GET /training/courses/v1/{courseId}/lessons":               true,
	"PUT /training/courses/v1/{courseId}/assignments":           true,
	"GET /training/paths/v1":                                    true,
	"GET /training/paths/v1/{pathId}":                           true,
	"GET /training/individualleaderboards/v1":                   true,
	"GET /training/individualleaderboards/v1/rankings":          true,
	"GET /training/rapid-refresh/v1":                            true,
	"GET /training/rapid-refresh/v1/{id}":                       true,
}

// ClassOf returns the class of a route ("GET /training/courses/v1").
func ClassOf(route string) Class {
	if catalogueRoutes[route] {
		return Catalogue
	}
	return Other
}

// Limits are the requests each endpoint may receive in one Window, by
// class. A zero limit turns that class's limit off.
type Limits struct {
	Catalogue, Other int
	Window           time.Duration
}

// DefaultLimits are the service's: 200 and 800 a minute.
var DefaultLimits = Limits{Catalogue: 200, Other: 800, Window: time.Minute}

// WithLimits sets the limits, for example scaled down so that a test
// reaches them in a few requests: Limits{Catalogue: 2, Other: 8, Window:
// time.Minute}, with WithClock to move past the window. Each limit must be
// at least 1 and the window positive; [WithoutLimits] turns limiting off.
func WithLimits(l Limits) Option {
	return func(c *fakeserver.Config[config]) error {
		if l.Catalogue < 1 || l.Other < 1 || l.Window <= 0 {
			return c.Bad("WithLimits(%+v): each limit must be at least 1 and the window positive (WithoutLimits turns limiting off)", l)
		}
		c.Own.limits = l
		return nil
	}
}

// WithoutLimits makes the fake answer every request, however many come:
// no 429, for a benchmark or a test of something else.
func WithoutLimits() Option {
	return func(c *fakeserver.Config[config]) error { c.Own.limits = Limits{}; return nil }
}

func (l Limits) of(route string) int {
	if ClassOf(route) == Catalogue {
		return l.Catalogue
	}
	return l.Other
}

// limiter keeps one fixed window per route.
type limiter struct {
	limits  Limits
	mu      sync.Mutex
	windows map[string]*window
}

type window struct {
	start time.Time
	used  int
}

func newLimiter(l Limits) *limiter { return &limiter{limits: l, windows: map[string]*window{}} }

// admit takes one request of route's budget and writes the x-ratelimit
// headers; over the budget it answers 429 and returns false.
func (l *limiter) admit(w http.ResponseWriter, route string, now time.Time) bool {
	limit := l.limits.of(route)
	if limit == 0 { // WithoutLimits
		return true
	}
	l.mu.Lock()
	win := l.windows[route]
	if win == nil || !now.Before(win.start.Add(l.limits.Window)) {
		win = &window{start: now}
		l.windows[route] = win
	}
	ok := win.used < limit
	if ok {
		win.used++
	}
	remaining, reset := limit-win.used, win.start.Add(l.limits.Window).Sub(now)
	l.mu.Unlock()
	h := w.Header()
	h.Set("x-ratelimit-limit", strconv.Itoa(limit))
	h.Set("x-ratelimit-remaining", strconv.Itoa(remaining))
	h.Set("x-ratelimit-reset", strconv.Itoa(int(math.Ceil(reset.Seconds()))))
	if !ok {
		writeError(w, http.StatusTooManyRequests, codeResourceExhausted, "Too Many Requests")
	}
	return ok
}

// counters counts requests by route pattern.
type counters struct {
	mu sync.Mutex
	n  map[string]int
}

func newCounters() *counters { return &counters{n: map[string]int{}} }

func (c *counters) add(route string) {
	c.mu.Lock()
	c.n[route]++
	c.mu.Unlock()
}

// RequestCount reports how many requests with a valid token a route
// received ("GET /feed/users", as the fake's route table or a Handle
// pattern names it), whatever they were answered (429 included).
func (s *Server) RequestCount(route string) int {
	s.counts.mu.Lock()
	defer s.counts.mu.Unlock()
	return s.counts.n[route]
}

// RequestCounts returns the non-zero counts by route.
func (s *Server) RequestCounts() map[string]int {
	s.counts.mu.Lock()
	defer s.counts.mu.Unlock()
	out := make(map[string]int, len(s.counts.n))
	for k, v := range s.counts.n {
		out[k] = v
	}
	return out
}

// Routes lists the fake's route patterns, sorted.
func Routes() []string {
	var out []string
	for _, r := range routeTable(api{}) {
		out = append(out, r.pattern)
	}
	sort.Strings(out)
	return out
}
