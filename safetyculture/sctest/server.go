package sctest

import (
	"cmp"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/fakeserver"
)

// MaxBodyBytes bounds a request body; a larger one gets 413.
const MaxBodyBytes = 1 << 20

// Server is a fake SafetyCulture service holding one organisation. Its
// seeding helpers are [Seeding]'s, which it embeds.
type Server struct {
	Seeding
	// URL is the base of every path, such as http://127.0.0.1:38161.
	URL string
	// Token is the bearer token the fake accepts.
	Token string

	core    *fakeserver.Core
	cfg     config
	routes  *http.ServeMux
	limiter *limiter
	counts  *counters

	mu sync.RWMutex // guards st
	st *store
	// ahead is how far AdvanceClock moved the fake's clock on.
	ahead atomic.Int64

	deliveries deliveryLog
}

// Option configures a Server. A bad value makes [NewServer] and
// [NewUnstarted] fail, and [New] fail the test, with an error wrapping
// edapp.ErrInvalidInput: the first bad value given. A nil Option is
// skipped.
type Option = fakeserver.Option[config]

// Seeding holds the helpers that add records, or act as a learner, in a
// [Server]; a Server embeds it, so that srv.AddUser(spec) calls them.
type Seeding struct{ *server }

// server names Server where Seeding and api embed it, so that the field
// is unexported.
type server = Server

// api holds the route handlers, but the analytics reads'.
type api struct{ *server }

// analyticsAPI holds the analytics reads' handlers.
type analyticsAPI struct{ *server }

// config is the fake's own settings; the shared ones (token, clock,
// latency, logger) are the fakeserver.Config's.
type config struct {
	limits    Limits
	lag       time.Duration
	camelCase bool
	// ignoreModifiedAfter: the course-progress feed answers as if no
	// modifiedAfter were sent.
	ignoreModifiedAfter bool
}

// WithToken sets the bearer token the fake accepts; it must not be empty.
func WithToken(token string) Option { return fakeserver.WithToken[config](token) }

// WithClock sets the fake's clock: it dates the records the fake makes,
// times the rate-limit windows and decides when analytics rows are
// published. now must not be nil.
func WithClock(now func() time.Time) Option { return fakeserver.WithClock[config](now) }

// WithAnalyticsLag makes every analytics row (attempts, lesson progress
// and its events, survey answers, and the statistics worked out from
// them) visible only lag after the fake recorded it, as the service's
// warehouse publishes them 30 minutes to 2 hours late. The default is 0.
func WithAnalyticsLag(lag time.Duration) Option {
	return func(c *fakeserver.Config[config]) error {
		if lag < 0 {
			return c.Bad("WithAnalyticsLag: negative lag %s", lag)
		}
		c.Own.lag = lag
		return nil
	}
}

// WithCamelCaseFeed makes the course-progress feed answer its rows in
// camelCase (userId, progressPercent...) as a third-party client reads
// it, instead of the vendor exporter's snake_case.
func WithCamelCaseFeed() Option {
	return func(c *fakeserver.Config[config]) error { c.Own.camelCase = true; return nil }
}

// WithModifiedAfterIgnored makes the course-progress feed ignore its
// modifiedAfter parameter, as a service that does not know it would: every
// row matching the other filters is answered. By default the fake honours
// it (only the rows modified after it).
func WithModifiedAfterIgnored() Option {
	return func(c *fakeserver.Config[config]) error { c.Own.ignoreModifiedAfter = true; return nil }
}

// WithLogger logs one line per request (method, route, status). Nil, the
// default, is silent, as edapp.WithLogger(nil) is. Tokens never reach the
// log.
func WithLogger(l *slog.Logger) Option { return fakeserver.WithLogger[config](l) }

// WithLatency delays every answer by d, as a distant service would
// (`edapp fake --latency`); a request whose context ends first gets no
// answer. The default is 0.
func WithLatency(d time.Duration) Option { return fakeserver.WithLatency[config](d) }

// NewServer starts a fake on a loopback port, with an empty organisation
// and a random token. A bad option value is an error wrapping
// edapp.ErrInvalidInput.
func NewServer(opts ...Option) (*Server, error) {
	s, err := NewUnstarted(opts...)
	if err != nil {
		return nil, err
	}
	s.URL = s.core.Listen(s.Handler())
	return s, nil
}

// NewUnstarted makes a fake as NewServer does but listens nowhere: its
// URL is empty until the caller serves Handler or HandlerWith on a server
// of its own (`edapp fake --safetyculture` serves it beside the EdApp
// fake) and sets URL if it needs it. Close does nothing.
func NewUnstarted(opts ...Option) (*Server, error) {
	cfg, err := fakeserver.Apply("sctest", config{limits: DefaultLimits}, opts)
	if err != nil {
		return nil, err
	}
	s := &Server{Token: cfg.Token, core: fakeserver.NewCore(cfg, routeTemplate), cfg: cfg.Own,
		st: newStore(cfg.Clock()), limiter: newLimiter(cfg.Own.limits), counts: newCounters()}
	s.Seeding = Seeding{s}
	s.routes = s.newRouter()
	return s, nil
}

// New starts a fake for a test and closes it when the test ends. A bad
// option value fails the test at once; a handler panic fails it when it
// ends (the client saw a 500, which a retry could have hidden).
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := NewServer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	fakeserver.Watch(t, s.core, s.Close)
	return s
}

// Close stops the fake's own listener, if it has one, and waits for the
// requests in flight.
func (s *Server) Close() { s.core.Close() }

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
		api{s}.serve(w, r)
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
// is counted under pattern; the rate limits do not apply to it. Handling
// the same pattern again replaces its handler; a nil handler removes the
// override. A pattern ServeMux refuses, or one that conflicts with another
// override, is an error wrapping edapp.ErrInvalidInput and changes
// nothing.
func (s *Server) Handle(pattern string, h http.Handler) error {
	return s.core.Handle(pattern, h, edapp.ErrInvalidInput)
}

// FailNext makes the next n authenticated requests answer status with the
// service's error body, before the rate limits and the routes. When
// retryAfter > 0 the answers carry a Retry-After header in whole seconds
// (rounded up). A status outside 100-599 becomes 500. n <= 0 cancels the
// pending failures FailNext set (FailNextOn's stay).
func (s *Server) FailNext(n int, status int, retryAfter time.Duration) {
	s.core.FailNext(n, status, retryAfter)
}

// FailNextOn is FailNext for one route, as RequestCount names it ("GET
// /feed/users", "/training/v1/courses/{id}"; without a method it covers
// every method): only requests to it fail, first, whatever other failures
// are pending. It replaces the pending failures of that route; n <= 0
// cancels them.
func (s *Server) FailNextOn(route string, n int, status int, retryAfter time.Duration) {
	s.core.FailNextOn(route, n, status, retryAfter)
}

func (s *Server) now() time.Time { return s.core.Now().Add(time.Duration(s.ahead.Load())) }

func (s api) serve(w http.ResponseWriter, r *http.Request) {
	defer s.recoverPanic(w, r)
	if !s.core.Wait(r.Context()) {
		return
	}
	w.Header().Set("X-Request-Id", fakeserver.RandomHex(8))
	w.Header().Set("Date", s.now().UTC().Format(http.TimeFormat)) // the fake's clock, as the records are dated
	if !s.core.Authorized(r) {
		writeError(w, http.StatusUnauthorized, codeUnauthenticated, "Unauthenticated")
		return
	}
	if mux, pattern := s.core.Override(r); mux != nil {
		s.counts.add(pattern)
		if !s.injectFailure(w, r, pattern) {
			mux.ServeHTTP(w, r) // the mux, not the handler it found, sets the path values
		}
		return
	}
	_, pattern := s.routes.Handler(r)
	if pattern == "" {
		writeError(w, http.StatusNotFound, codeNotFound, "Not Found")
		return
	}
	s.counts.add(pattern)
	if s.injectFailure(w, r, pattern) {
		return
	}
	if !s.limiter.admit(w, pattern, s.now()) {
		s.log(r, pattern, http.StatusTooManyRequests)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	sw := &fakeserver.StatusWriter{ResponseWriter: w}
	s.routes.ServeHTTP(sw, r)
	s.log(r, pattern, cmp.Or(sw.Status(), http.StatusOK))
}

// injectFailure answers a pending failure that covers a request to the
// route pattern.
func (s *Server) injectFailure(w http.ResponseWriter, r *http.Request, pattern string) bool {
	_, path, _ := strings.Cut(pattern, " ")
	f, ok := s.core.TakeFault(r.Method, routeTemplate(path))
	if !ok {
		return false
	}
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", fakeserver.RetryAfter(f.RetryAfter))
	}
	writeError(w, f.Status, grpcCode(f.Status), "injected failure: "+http.StatusText(f.Status))
	return true
}

// grpcCode is the gateway's code for an HTTP status.
func grpcCode(status int) int {
	switch status {
	case http.StatusBadRequest:
		return codeInvalidArgument
	case http.StatusNotFound:
		return codeNotFound
	case http.StatusTooManyRequests:
		return codeResourceExhausted
	case http.StatusUnauthorized:
		return codeUnauthenticated
	}
	return codeInternal
}

// routeTemplate is the form FailNextOn matches a route by: its path, with
// each {parameter} as {id}.
func routeTemplate(path string) string {
	segs := strings.Split(strings.Trim(strings.TrimSpace(path), "/"), "/")
	for i, seg := range segs {
		if strings.HasPrefix(seg, "{") {
			segs[i] = "{id}"
		}
	}
	return "/" + strings.Join(segs, "/")
}

func (s api) recoverPanic(w http.ResponseWriter, r *http.Request) {
	if v := recover(); v != nil {
		s.core.Recovered(r, v)
		writeError(w, http.StatusInternalServerError, codeInternal, "internal error")
	}
}

func (s *Server) log(r *http.Request, route string, status int) {
	s.core.Log.Info("sctest request", "method", r.Method, "route", route, "status", status)
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
