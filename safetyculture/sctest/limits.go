package sctest

import (
	"maps"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

// Limits are the requests each endpoint (method and path template) may
// receive in one Window: Catalogue for the Training catalogue endpoints
// the service's rate-limit table lists, Other for every other.
type Limits struct {
	Catalogue, Other int
	Window           time.Duration
}

// DefaultLimits are the service's: 200 and 800 a minute.
var DefaultLimits = Limits{Catalogue: 200, Other: 800, Window: time.Minute}

// WithLimits sets the limits, for example scaled down so that a test
// reaches them in a few requests, with WithClock to move past the window.
// Each limit must be at least 1 and the window positive.
func WithLimits(l Limits) Option {
	return func(c *fakeserver.Config[config]) error {
		if l.Catalogue < 1 || l.Other < 1 || l.Window <= 0 {
			return c.Bad("WithLimits(%+v): each limit must be at least 1 and the window positive (WithoutLimits turns limiting off)", l)
		}
		c.Own.limits = l
		return nil
	}
}

// WithoutLimits makes the fake answer every request, however many come.
func WithoutLimits() Option {
	return func(c *fakeserver.Config[config]) error { c.Own.limits = Limits{}; return nil }
}

type window struct {
	start time.Time
	used  int
}

// admit takes one request of route's fixed window and writes the
// x-ratelimit headers; over the limit it answers 429 and returns false.
func (s *Server) admit(w http.ResponseWriter, rt route) bool {
	route, limit, now := rt.pattern, s.cfg.limits.Other, s.now()
	if rt.catalogue {
		limit = s.cfg.limits.Catalogue
	}
	if limit == 0 {
		return true
	}
	s.statsMu.Lock()
	win := s.windows[route]
	if win == nil || !now.Before(win.start.Add(s.cfg.limits.Window)) {
		win = &window{start: now}
		s.windows[route] = win
	}
	ok := win.used < limit
	if ok {
		win.used++
	}
	remaining, reset := limit-win.used, win.start.Add(s.cfg.limits.Window).Sub(now)
	s.statsMu.Unlock()
	h := w.Header()
	h.Set("x-ratelimit-limit", strconv.Itoa(limit))
	h.Set("x-ratelimit-remaining", strconv.Itoa(remaining))
	h.Set("x-ratelimit-reset", strconv.Itoa(int(math.Ceil(reset.Seconds()))))
	if !ok {
		writeError(w, &apiError{http.StatusTooManyRequests, "Too Many Requests"})
	}
	return ok
}

func (s *Server) count(route string) {
	s.statsMu.Lock()
	s.counts[route]++
	s.statsMu.Unlock()
}

// RequestCount reports how many requests with a valid token a route
// received ("GET /feed/users", as the route table or a Handle pattern
// names it), whatever they were answered (429 included).
func (s *Server) RequestCount(route string) int {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	return s.counts[route]
}

// RequestCounts returns the non-zero counts by route.
func (s *Server) RequestCounts() map[string]int {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	return maps.Clone(s.counts)
}
