package sctest

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/opt"
)

// MaxBodyBytes bounds a request body; a larger one gets 413.
const MaxBodyBytes = 1 << 20

// Server is a fake SafetyCulture service holding one organisation.
type Server struct {
	// URL is the base of every path, such as http://127.0.0.1:38161.
	URL string
	// Token is the bearer token the fake accepts.
	Token string

	srv     *httptest.Server
	cfg     config
	routes  *http.ServeMux
	limiter *limiter
	counts  *counters

	mu sync.RWMutex // guards st
	st *store
	// ahead is how far SeedMigration moved the fake's clock on, to date
	// the activity after a move that only just happened (see Migration).
	ahead atomic.Int64

	overrideMu sync.RWMutex
	overrides  *http.ServeMux
	overridden bool

	deliveries deliveryLog
	panicked   func(v any)
}

// Option configures a Server. A bad value makes [NewServer] and
// [NewUnstarted] fail, and [New] fail the test, with an error wrapping
// edapp.ErrInvalidInput: the first bad value given. A nil Option is
// skipped.
type Option func(*config) error

type config struct {
	token     string
	clock     func() time.Time
	limits    Limits
	lag       time.Duration
	camelCase bool
	// ignoreModifiedAfter: the course-progress feed answers as if no
	// modifiedAfter were sent.
	ignoreModifiedAfter bool
	logger              *slog.Logger
	latency             time.Duration
}

// WithToken sets the bearer token the fake accepts; it must not be empty.
func WithToken(token string) Option {
	return func(c *config) error {
		if strings.TrimSpace(token) == "" {
			return fmt.Errorf("sctest: WithToken: empty token: %w", edapp.ErrInvalidInput)
		}
		c.token = token
		return nil
	}
}

// WithClock sets the fake's clock: it dates the records the fake makes,
// times the rate-limit windows and decides when analytics rows are
// published. now must not be nil.
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return fmt.Errorf("sctest: WithClock: nil clock: %w", edapp.ErrInvalidInput)
		}
		c.clock = now
		return nil
	}
}

// WithAnalyticsLag makes every analytics row (attempts, lesson progress
// and its events, survey answers, and the statistics worked out from
// them) visible only lag after the fake recorded it, as the service's
// warehouse publishes them 30 minutes to 2 hours late. The default is 0.
func WithAnalyticsLag(lag time.Duration) Option {
	return func(c *config) error {
		if lag < 0 {
			return fmt.Errorf("sctest: WithAnalyticsLag: negative lag %s: %w", lag, edapp.ErrInvalidInput)
		}
		c.lag = lag
		return nil
	}
}

// WithCamelCaseFeed makes the course-progress feed answer its rows in
// camelCase (userId, progressPercent...) as a third-party client reads
// it, instead of the vendor exporter's snake_case.
func WithCamelCaseFeed() Option {
	return func(c *config) error { c.camelCase = true; return nil }
}

// WithModifiedAfterIgnored makes the course-progress feed ignore its
// modifiedAfter parameter, as a service that does not know it would: every
// row matching the other filters is answered. By default the fake honours
// it (only the rows modified after it).
func WithModifiedAfterIgnored() Option {
	return func(c *config) error { c.ignoreModifiedAfter = true; return nil }
}

// WithLogger logs one line per request (method, route, status). Nil, the
// default, is silent, as edapp.WithLogger(nil) is. Tokens never reach the
// log.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l; return nil }
}

// WithLatency delays every answer by d, as a distant service would
// (`edapp fake --latency`); a request whose context ends first gets no
// answer. The default is 0.
func WithLatency(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("sctest: WithLatency: negative latency %s: %w", d, edapp.ErrInvalidInput)
		}
		c.latency = d
		return nil
	}
}

// NewServer starts a fake on a loopback port, with an empty organisation
// and a random token. A bad option value is an error wrapping
// edapp.ErrInvalidInput.
func NewServer(opts ...Option) (*Server, error) {
	s, err := NewUnstarted(opts...)
	if err != nil {
		return nil, err
	}
	s.srv = httptest.NewServer(s.Handler())
	s.URL = s.srv.URL
	return s, nil
}

// NewUnstarted makes a fake as NewServer does but listens nowhere: its
// URL is empty until the caller serves Handler or HandlerWith on a server
// of its own (`edapp fake --safetyculture` serves it beside the EdApp
// fake) and sets URL if it needs it. Close does nothing.
func NewUnstarted(opts ...Option) (*Server, error) {
	cfg := config{token: randomHex(16), clock: time.Now, limits: DefaultLimits}
	if err := opt.Apply(&cfg, opts); err != nil {
		return nil, err
	}
	s := &Server{Token: cfg.token, cfg: cfg, st: newStore(cfg.clock()), limiter: newLimiter(cfg.limits),
		counts: newCounters(), overrides: http.NewServeMux()}
	s.routes = s.newRouter()
	return s, nil
}

// New starts a fake for a test: a bad option or a handler panic fails the
// test, and the fake is closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := NewServer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	s.panicked = func(v any) { t.Errorf("sctest: handler panic: %v", v) }
	t.Cleanup(s.Close)
	return s
}

// Close stops the fake's own listener, if it has one.
func (s *Server) Close() {
	if s.srv != nil {
		s.srv.Close()
	}
}

// Handler answers the fake's routes, for mounting on another server.
// Every other path gets 404.
func (s *Server) Handler() http.Handler { return s.HandlerWith(nil) }

// HandlerWith answers the fake's routes and passes every other request to
// other (404 when other is nil), so that one port can serve SafetyCulture
// beside another service whose paths do not collide, such as edapptest's.
func (s *Server) HandlerWith(other http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if other != nil && !ownsPath(r.URL.Path) {
			other.ServeHTTP(w, r)
			return
		}
		s.serve(w, r)
	})
}

// ownsPath reports whether a path belongs to SafetyCulture's API.
func ownsPath(p string) bool {
	for _, prefix := range []string{"/training/", "/feed/", "/webhooks/v1/", "/accounts/"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// Handle replaces the fake's answer for the requests pattern matches (an
// http.ServeMux pattern, such as "GET /feed/users"), as slacktest's
// Customize.Handle does. The request must still carry the token, and it
// is counted under pattern; the rate limits do not apply to it. A bad or
// conflicting pattern panics, as http.ServeMux.Handle does.
func (s *Server) Handle(pattern string, h http.Handler) {
	s.overrideMu.Lock()
	defer s.overrideMu.Unlock()
	s.overrides.Handle(pattern, h)
	s.overridden = true
}

func (s *Server) now() time.Time { return s.cfg.clock().Add(time.Duration(s.ahead.Load())) }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	defer s.recoverPanic(w)
	if !s.delay(r) {
		return
	}
	w.Header().Set("X-Request-Id", randomHex(8))
	w.Header().Set("Date", s.now().UTC().Format(http.TimeFormat)) // the fake's clock, as the records are dated
	if !s.authorized(r) {
		writeError(w, http.StatusUnauthorized, codeUnauthenticated, "Unauthenticated")
		return
	}
	if mux, pattern := s.override(r); mux != nil {
		s.counts.add(pattern)
		mux.ServeHTTP(w, r) // the mux, not the handler it found, sets the path values
		return
	}
	_, pattern := s.routes.Handler(r)
	if pattern == "" {
		writeError(w, http.StatusNotFound, codeNotFound, "Not Found")
		return
	}
	s.counts.add(pattern)
	if !s.limiter.admit(w, pattern, s.now()) {
		s.log(r, pattern, http.StatusTooManyRequests)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	s.routes.ServeHTTP(sw, r)
	s.log(r, pattern, sw.status)
}

// override returns the overrides' mux and the pattern that matched, or
// nil when no override matches r.
func (s *Server) override(r *http.Request) (*http.ServeMux, string) {
	s.overrideMu.RLock()
	defer s.overrideMu.RUnlock()
	if !s.overridden {
		return nil, ""
	}
	if _, pattern := s.overrides.Handler(r); pattern != "" {
		return s.overrides, pattern
	}
	return nil, ""
}

func (s *Server) recoverPanic(w http.ResponseWriter) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	if s.panicked != nil {
		s.panicked(v)
	}
	writeError(w, http.StatusInternalServerError, codeInternal, "internal error")
}

func (s *Server) authorized(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.Token)) == 1
}

func (s *Server) log(r *http.Request, route string, status int) {
	if s.cfg.logger != nil {
		s.cfg.logger.Info("sctest request", "method", r.Method, "route", route, "status", status)
	}
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// The error codes are gRPC's, as the service's gateway answers them:
// {"code": 3, "message": "...", "details": []}.
const (
	codeInvalidArgument   = 3
	codeNotFound          = 5
	codeResourceExhausted = 8
	codeInternal          = 13
	codeUnauthenticated   = 16
)

func writeError(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, map[string]any{"code": code, "message": msg, "details": []any{}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// readJSON decodes a request body into v; false means it answered the
// error (400, or 413 over MaxBodyBytes).
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, codeInvalidArgument, "request body too large")
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		writeError(w, http.StatusBadRequest, codeInvalidArgument, "malformed JSON body")
		return false
	}
	return true
}

// delay holds a request for the fake's latency, and reports false when
// the request's context ended first.
func (s *Server) delay(r *http.Request) bool {
	if s.cfg.latency <= 0 {
		return true
	}
	t := time.NewTimer(s.cfg.latency)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}
