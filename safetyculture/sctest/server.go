package sctest

import (
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/fakeserver"
)

// MaxBodyBytes bounds a request body; a larger one gets 413.
const MaxBodyBytes = fakeserver.MaxBodyBytes

// Server is a fake SafetyCulture service holding one organisation.
type Server struct {
	Seeding
	URL   string // the base of every path, such as http://127.0.0.1:38161
	Token string // the bearer token the fake accepts

	core   *fakeserver.Core
	cfg    config
	routes *http.ServeMux

	mu    sync.RWMutex // guards st
	st    *store
	ahead atomic.Int64 // how far AdvanceClock moved the clock on

	statsMu    sync.Mutex // guards the fields below
	windows    map[string]window
	deliveries []Delivery
}

// Option configures a Server.
type Option = fakeserver.Option[config]

// Seeding holds the helpers that add records or act as a learner.
type Seeding struct{ *server }

// server keeps the field Seeding embeds unexported.
type server = Server

type config struct {
	limits Limits
	lag    time.Duration
}

// WithToken sets the bearer token the fake accepts; it must not be empty.
func WithToken(token string) Option { return fakeserver.WithToken[config](token) }

// WithClock sets the fake's clock, which dates records, times the
// rate-limit windows and publishes analytics rows. now must not be nil.
func WithClock(now func() time.Time) Option { return fakeserver.WithClock[config](now) }

// WithAnalyticsLag makes every analytics row visible only lag after the
// fake recorded it, as the service's warehouse publishes them late.
func WithAnalyticsLag(lag time.Duration) Option {
	return fakeserver.Checked(lag >= 0, func(c *fakeserver.Config[config]) { c.Own.lag = lag }, "WithAnalyticsLag: negative lag %s", lag)
}

// WithLogger logs one line per request; nil is silent.
func WithLogger(l *slog.Logger) Option { return fakeserver.WithLogger[config](l) }

// WithLatency delays every answer by d, as a distant service would.
func WithLatency(d time.Duration) Option { return fakeserver.WithLatency[config](d) }

// NewServer starts a fake with an empty organisation on a loopback port.
func NewServer(opts ...Option) (*Server, error) {
	s, err := NewUnstarted(opts...)
	if err != nil {
		return nil, err
	}
	s.URL = s.core.Listen(s.Handler())
	return s, nil
}

// NewUnstarted makes a fake as NewServer does but listens nowhere, for
// the caller to serve Handler and set URL.
func NewUnstarted(opts ...Option) (*Server, error) {
	cfg, err := fakeserver.Apply("sctest", config{limits: DefaultLimits}, opts)
	if err != nil {
		return nil, err
	}
	s := &Server{Token: cfg.Token, core: fakeserver.NewCore(cfg, strings.TrimSpace), cfg: cfg.Own,
		st: newStore(), windows: map[string]window{}}
	s.Seeding = Seeding{s}
	s.routes = http.NewServeMux()
	for _, rt := range routeTable {
		s.routes.HandleFunc(rt.pattern, s.answer(rt))
	}
	return s, nil
}

// New starts a fake for a test and closes it when the test ends; a
// handler panic fails the test then (a retry could have hidden the 500).
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := NewServer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	fakeserver.Watch(t, s.core, s.Close)
	return s
}

// Close stops the fake's own listener, if it has one.
func (s *Server) Close() { s.core.Close() }

// Handler answers the fake's routes, for mounting on another server.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.core.Serve(pipe{s}, w, r) })
}

// Handle replaces the fake's answer for the requests an http.ServeMux
// pattern ("GET /feed/users") matches, counted under pattern and not
// rate-limited; a nil handler removes the override.
func (s *Server) Handle(pattern string, h http.Handler) error {
	return s.core.Handle(pattern, h, edapp.ErrInvalidInput)
}

// FailNext makes the next n authenticated requests answer status, with a
// Retry-After header when retryAfter > 0. n <= 0 cancels.
func (s *Server) FailNext(n int, status int, retryAfter time.Duration) {
	s.core.FailNext(n, status, retryAfter)
}

// FailNextOn is FailNext for one route, first, as RequestCount names it
// ("GET /feed/users", or without the method for every method).
func (s *Server) FailNextOn(route string, n int, status int, retryAfter time.Duration) {
	s.core.FailNextOn(route, n, status, retryAfter)
}

// pipe is the fake's side of fakeserver's request pipeline.
type pipe struct{ *server }

func (s pipe) Route(r *http.Request) (string, http.Handler) {
	if _, pattern := s.routes.Handler(r); pattern != "" {
		return pattern, s.routes // the mux, not the handler it found, sets the path values
	}
	return "", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, &apiError{http.StatusNotFound, "Not Found"})
	})
}

// Admit admits every request: the route's handler applies the limits.
func (pipe) Admit(http.ResponseWriter, *http.Request) bool { return true }

func (pipe) Error(w http.ResponseWriter, status int, msg string) {
	if status == http.StatusUnauthorized {
		msg = "Unauthenticated"
	}
	writeError(w, &apiError{status, msg})
}

func (s pipe) Header(h http.Header) {
	h.Set("X-Request-Id", fakeserver.RandomHex(8))
	h.Set("Date", s.Now().UTC().Format(http.TimeFormat)) // the fake's clock, as the records are dated
}

// Now reads the fake's clock: WithClock's, moved on by AdvanceClock.
func (s *Server) Now() time.Time { return s.core.Now().Add(time.Duration(s.ahead.Load())) }

// AdvanceClock moves the fake's clock on by d > 0, as when a seeded
// history ends after the clock's time.
func (s Seeding) AdvanceClock(d time.Duration) { s.ahead.Add(int64(max(d, 0))) }

// Limits are the requests each endpoint may receive in one Window:
// Catalogue for those the service's rate-limit table lists, Other for all.
type Limits struct {
	Catalogue, Other int
	Window           time.Duration
}

// DefaultLimits are the service's: 200 and 800 a minute.
var DefaultLimits = Limits{Catalogue: 200, Other: 800, Window: time.Minute}

// WithLimits sets the limits, each at least 1, the window positive: scaled
// down, a test reaches them in a few requests.
func WithLimits(l Limits) Option {
	return fakeserver.Checked(l.Catalogue >= 1 && l.Other >= 1 && l.Window > 0, func(c *fakeserver.Config[config]) { c.Own.limits = l },
		"WithLimits(%+v): each limit must be at least 1 and the window positive (WithoutLimits turns limiting off)", l)
}

// WithoutLimits makes the fake answer every request, however many come.
func WithoutLimits() Option {
	return func(c *fakeserver.Config[config]) error { c.Own.limits = Limits{}; return nil }
}

type window struct {
	start time.Time
	used  int
}

// admit charges route's fixed window; over the limit it answers 429.
func (s *Server) admit(w http.ResponseWriter, rt route) bool {
	route, limit, now := rt.pattern, s.cfg.limits.Other, s.Now()
	if rt.catalogue {
		limit = s.cfg.limits.Catalogue
	}
	if limit == 0 {
		return true
	}
	s.statsMu.Lock()
	win := s.windows[route]
	if !now.Before(win.start.Add(s.cfg.limits.Window)) {
		win = window{start: now}
	}
	ok := win.used < limit
	win.used += fakeserver.Btoi(ok)
	s.windows[route] = win
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

// RequestCount counts the requests with a valid token a route ("GET
// /feed/users", or a Handle pattern) received, 429s included.
func (s *Server) RequestCount(route string) int { return s.core.RequestCounts()[route] }

// RequestCounts returns the non-zero counts by route.
func (s *Server) RequestCounts() map[string]int { return s.core.RequestCounts() }
