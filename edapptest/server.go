package edapptest

import (
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/fakeserver"
)

// LaunchTokenLifetime is how long a launch token minted by
// GET /v1/users/{id}/courses stays valid on the server's clock.
const LaunchTokenLifetime = edapp.LaunchTokenLifetime

// deliveryTimeout bounds a webhook delivery.
const deliveryTimeout = 5 * time.Second

// MaxBodyBytes bounds a request body.
const MaxBodyBytes = fakeserver.MaxBodyBytes

// Server is an in-memory, stateful fake of the whole service (v1 and v2
// sharing one account), served over loopback.
type Server struct {
	Seeding
	URL   string // the base URL of the fake, without a trailing slash
	Token string // the bearer token the fake accepts

	core        *fakeserver.Core
	mux         *http.ServeMux // the routes
	cfg         config
	httpClient  *http.Client
	reqSeq      atomic.Int64
	mu          sync.RWMutex // guards st
	st          *store
	meta        sync.Mutex // guards the fields below
	deliverySeq int
	deliveries  []Delivery
}

// Seeding holds the helpers that add records, or act as a learner or an
// author, in a [Server], which embeds it.
type Seeding struct{ *server }

// server names Server where Seeding and frontDoor embed it, so that the
// field is unexported.
type server = Server

// frontDoor holds what serves a request before and around its route.
type frontDoor struct{ *server }

// Option configures a [Server].
type Option = fakeserver.Option[config]

// config is the fake's own settings; the shared ones are fakeserver's.
type config struct {
	budget       *budget // nil: no budget
	redeliveries int
}

// WithToken sets the bearer token the fake accepts (default: a random
// one, in [Server.Token]). A blank token is an error.
func WithToken(token string) Option { return fakeserver.WithToken[config](token) }

// WithClock sets the clock that dates every record and expires launch
// tokens (default time.Now).
func WithClock(now func() time.Time) Option { return fakeserver.WithClock[config](now) }

// WithLatency delays every request by d, as [Server.SetLatency] does.
func WithLatency(d time.Duration) Option { return fakeserver.WithLatency[config](d) }

// WithLogger logs every request (at debug level) and webhook delivery.
func WithLogger(l *slog.Logger) Option { return fakeserver.WithLogger[config](l) }

// WithBudget makes the fake enforce a request budget as the real service does
// (1400 requests per 5 minutes): it admits at most limit /v2 requests with a
// valid token in any trailing window of the server's clock.
func WithBudget(limit int, window time.Duration) Option {
	return fakeserver.Checked(limit >= 1 && window > 0, func(c *fakeserver.Config[config]) {
		c.Own.budget = &budget{limit: limit, window: window}
	}, "WithBudget(%d, %s): want a limit of at least 1 and a positive window", limit, window)
}

// WithRedeliveries sends every webhook delivery n more times, as a
// service that delivers at least once may; [Delivery.RedeliveryOf] marks
// the repeats.
func WithRedeliveries(n int) Option {
	return fakeserver.Checked(n >= 0, func(c *fakeserver.Config[config]) { c.Own.redeliveries = n }, "WithRedeliveries(%d): want 0 or more", n)
}

// NewServer starts a fake on a loopback address, with an empty store.
func NewServer(opts ...Option) (*Server, error) {
	s, err := newServer(opts...)
	if err != nil {
		return nil, err
	}
	s.URL = s.core.Listen(s.Handler())
	return s, nil
}

// New starts a fake for a test, as [NewServer] does, and closes it when the
// test ends. A bad option value fails the test at once; so does, at the
// end, a handler's panic: the client saw a 500, which a retry could hide.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := NewServer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	fakeserver.Watch(t, s.core, s.Close)
	return s
}

func newServer(opts ...Option) (*Server, error) {
	cfg, err := fakeserver.Apply("edapptest", config{}, opts)
	if err != nil {
		return nil, err
	}
	s := &Server{Token: cfg.Token, core: fakeserver.NewCore(cfg, routeTemplate), cfg: cfg.Own,
		httpClient: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: deliveryTimeout},
		st:         newStore()}
	s.Seeding = Seeding{s}
	s.mux = frontDoor{s}.newMux()
	return s, nil
}

// Close shuts the server down and waits for requests in flight.
func (s *Server) Close() {
	s.core.Close()
	s.httpClient.CloseIdleConnections()
}

// Handler returns the fake as an http.Handler, to mount on another server.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.core.Serve(frontDoor{s}, w, r) })
}

// SetLatency delays every later request by d, or until the request's
// context is done. Zero turns it off.
func (s *Server) SetLatency(d time.Duration) { s.core.SetLatency(d) }

// FailNext makes the next n API requests with a valid token answer status
// (500 when outside 100-599) with a JSON error body, before any routing, and
// a Retry-After header when retryAfter > 0. n <= 0 cancels.
func (s *Server) FailNext(n int, status int, retryAfter time.Duration) {
	s.core.FailNext(n, status, retryAfter)
}

// FailNextOn is FailNext for one route, a template as RequestCount takes it
// ("GET /v2/analytics/attempts", or without a method for every method).
func (s *Server) FailNextOn(route string, n int, status int, retryAfter time.Duration) {
	s.core.FailNextOn(route, n, status, retryAfter)
}

// Handle overrides the fake's answer for the requests pattern, an
// http.ServeMux pattern such as "GET /v2/users/{id}", matches. An override
// sees authenticated API requests after the latency, the budget and
// FailNext, and they count as the route they would have reached. A nil
// handler removes it; a bad or conflicting pattern is [ErrInvalid].
func (s *Server) Handle(pattern string, handler http.Handler) error {
	return s.core.Handle(pattern, handler, ErrInvalid)
}

// Request is one request as the fake received it, its Authorization
// header and token query parameters (launch tokens) "REDACTED".
type Request = fakeserver.Request

// Requests returns a copy of the request log, oldest first.
func (s *Server) Requests() []Request { return s.core.Requests() }

// ResetRequests empties the request log.
func (s *Server) ResetRequests() { s.core.ResetRequests() }

// Now reads the server's clock ([WithClock]).
func (s *Server) Now() time.Time { return s.core.Now() }

// RequestCount reports how many API requests with a valid token the fake
// received for a route since it started or since ResetCounters, counted on
// arrival whatever the answer (429, injected failures and 413 too).
func (s *Server) RequestCount(route string) int {
	method, path, hasMethod := strings.Cut(strings.TrimSpace(route), " ")
	if !hasMethod {
		method, path = "", method
	}
	n := 0
	for name, c := range s.core.RequestCounts() {
		m, p, _ := strings.Cut(name, " ")
		if p == routeTemplate(path) && (method == "" || strings.EqualFold(m, method)) {
			n += c
		}
	}
	return n
}

// RequestCounts returns the non-zero request counts by route, keyed
// "GET /v2/usergroups/{id}/users" (see RequestCount).
func (s *Server) RequestCounts() map[string]int { return s.core.RequestCounts() }

// MaxInFlight reports the largest number of requests the fake was
// handling at once (every request, the latency wait included) since it
// started or since ResetCounters.
func (s *Server) MaxInFlight() int { return s.core.MaxInFlight() }

// ResetCounters sets the route counts to zero and MaxInFlight to the
// requests in flight now.
func (s *Server) ResetCounters() { s.core.ResetCounters() }

// Header sets the request id every answer carries.
func (s frontDoor) Header(h http.Header) {
	h.Set("X-Request-Id", "req_"+strconv.FormatInt(s.reqSeq.Add(1), 10))
}

// Error writes the fake's error body.
func (frontDoor) Error(w http.ResponseWriter, status int, msg string) { writeError(w, status, msg) }

// budget counts admitted requests in a trailing window.
type budget struct {
	limit  int
	window time.Duration
	mu     sync.Mutex
	times  []time.Time // admission times, oldest first
}

// admit reports whether a request at now fits the budget, and otherwise
// how long until a slot frees.
func (b *budget) admit(now time.Time) (bool, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.times = slices.DeleteFunc(b.times, func(t time.Time) bool { return !t.After(now.Add(-b.window)) })
	if len(b.times) < b.limit {
		b.times = append(b.times, now)
		return true, 0
	}
	return false, b.times[0].Add(b.window).Sub(now)
}

// Admit charges a /v2 request to the budget, when there is one.
func (s frontDoor) Admit(w http.ResponseWriter, r *http.Request) bool {
	b := s.cfg.budget
	if b == nil || !strings.HasPrefix(strings.ToLower(r.URL.Path), "/v2/") {
		return true
	}
	ok, wait := b.admit(s.Now())
	if !ok {
		w.Header().Set("Retry-After", fakeserver.RetryAfter(wait))
		writeError(w, http.StatusTooManyRequests, "Too Many Requests: over "+
			strconv.Itoa(b.limit)+" requests in "+b.window.String())
	}
	return ok
}
