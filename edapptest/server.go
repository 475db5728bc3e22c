package edapptest

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/url"
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

// MaxBodyBytes bounds a request body.
const MaxBodyBytes = 1 << 20

const (
	maxRequestLog = 10000 // entries kept by the request log
	redacted      = "REDACTED"
)

// Server is an in-memory, stateful fake of the whole service (v1 and v2
// sharing one account), served over loopback.
type Server struct {
	Seeding
	URL   string // the base URL of the fake, without a trailing slash
	Token string // the bearer token the fake accepts

	core        *fakeserver.Core
	cfg         config
	httpClient  *http.Client
	panics      atomic.Int64 // recovered panics; the tests want zero
	reqSeq      atomic.Int64
	budget      *budget      // nil: no budget
	mu          sync.RWMutex // guards st
	st          *store
	counters    *counters
	meta        sync.Mutex // guards the fields below
	deliverySeq int
	requests    []*Request
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
	deliveryTimeout time.Duration
	budgetLimit     int
	budgetWindow    time.Duration
	redeliveries    int
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

// WithDeliveryTimeout bounds each webhook delivery (default 5 seconds).
func WithDeliveryTimeout(d time.Duration) Option {
	return func(c *fakeserver.Config[config]) error {
		if d <= 0 {
			return c.Bad("WithDeliveryTimeout(%s): want a positive duration", d)
		}
		c.Own.deliveryTimeout = d
		return nil
	}
}

// WithBudget makes the fake enforce a request budget as the real service does
// (1400 requests per 5 minutes): it admits at most limit /v2 requests with a
// valid token in any trailing window of the server's clock.
func WithBudget(limit int, window time.Duration) Option {
	return func(c *fakeserver.Config[config]) error {
		if limit < 1 || window <= 0 {
			return c.Bad("WithBudget(%d, %s): want a limit of at least 1 and a positive window", limit, window)
		}
		c.Own.budgetLimit, c.Own.budgetWindow = limit, window
		return nil
	}
}

// WithRedeliveries sends every webhook delivery n more times, as a
// service that delivers at least once may; [Delivery.RedeliveryOf] marks
// the repeats.
func WithRedeliveries(n int) Option {
	return func(c *fakeserver.Config[config]) error {
		if n < 0 {
			return c.Bad("WithRedeliveries(%d): want 0 or more", n)
		}
		c.Own.redeliveries = n
		return nil
	}
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
	cfg, err := fakeserver.Apply("edapptest", config{deliveryTimeout: 5 * time.Second}, opts)
	if err != nil {
		return nil, err
	}
	s := &Server{Token: cfg.Token, core: fakeserver.NewCore(cfg, routeTemplate), cfg: cfg.Own,
		httpClient: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: cfg.Own.deliveryTimeout},
		st:         newStore(), counters: newCounters()}
	s.Seeding = Seeding{s}
	if cfg.Own.budgetLimit > 0 {
		s.budget = &budget{limit: cfg.Own.budgetLimit, window: cfg.Own.budgetWindow}
	}
	return s, nil
}

// Close shuts the server down and waits for requests in flight.
func (s *Server) Close() {
	s.core.Close()
	s.httpClient.CloseIdleConnections()
}

// Handler returns the fake as an http.Handler, to mount on another server.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(frontDoor{s}.serve) }

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
type Request struct {
	Method   string
	Path     string // as sent, not unescaped
	RawQuery string
	Header   http.Header
	// Body is the body of an API request with a valid token, up to
	// MaxBodyBytes; nil for any other request.
	Body []byte
	// Status is the status the fake answered, 0 while the request is in
	// flight or when the client went away during the latency wait.
	Status int
	Time   time.Time // server clock
}

// Requests returns a copy of the request log, oldest first.
func (s *Server) Requests() []Request {
	s.meta.Lock()
	defer s.meta.Unlock()
	out := make([]Request, 0, len(s.requests))
	for _, r := range s.requests {
		c := *r
		c.Header = r.Header.Clone()
		c.Body = bytes.Clone(r.Body)
		out = append(out, c)
	}
	return out
}

// ResetRequests empties the request log.
func (s *Server) ResetRequests() {
	s.meta.Lock()
	defer s.meta.Unlock()
	s.requests = nil
}

// Now reads the server's clock ([WithClock]).
func (s *Server) Now() time.Time { return s.core.Now() }

// incoming is a request as serve reads it before routing.
type incoming struct {
	segs             []string
	pathOK           bool
	authed, tooLarge bool
	body             []byte
	entry            *Request
	route            routeMatch // for an authenticated API request
}

func (s frontDoor) serve(w http.ResponseWriter, r *http.Request) {
	s.counters.begin()
	defer s.counters.end()
	sw := &fakeserver.StatusWriter{ResponseWriter: w}
	start := time.Now()
	var in incoming
	defer func() { s.finish(sw, r, in.entry, start, recover()) }()
	sw.Header().Set("X-Request-Id", "req_"+strconv.FormatInt(s.reqSeq.Add(1), 10))
	in = s.read(r)
	if !s.core.Wait(r.Context()) {
		return
	}
	s.dispatch(sw, r, &in)
}

// read reads, logs and counts a request before the latency wait, so that
// a client that gives up during the wait still counts. The body of a
// request without a valid token is never read.
func (s frontDoor) read(r *http.Request) incoming {
	in := incoming{route: routeMatch{index: -1}}
	in.segs, in.pathOK = splitPath(r)
	if in.authed = s.core.Authorized(r); in.authed {
		in.body, in.tooLarge = readBody(r)
	}
	in.entry = s.logRequest(r, in.body)
	if in.authed && in.pathOK {
		if in.route = findRoute(r.Method, in.segs); in.route.index >= 0 {
			s.counters.byRoute[in.route.index].Add(1)
		}
	}
	return in
}

// dispatch refuses what is not a valid API request, then applies the
// budget, the injected failures and the overrides, and routes.
func (s frontDoor) dispatch(w http.ResponseWriter, r *http.Request, in *incoming) {
	v2 := len(in.segs) > 0 && strings.EqualFold(in.segs[0], "v2")
	switch {
	case !in.authed:
		w.Header().Set("WWW-Authenticate", `Bearer realm="edapptest"`)
		writeError(w, http.StatusUnauthorized, "Unauthorized")
	case in.tooLarge:
		writeError(w, http.StatusRequestEntityTooLarge, "request body too large (limit "+strconv.Itoa(MaxBodyBytes)+" bytes)")
	case !in.pathOK:
		writeError(w, http.StatusBadRequest, "malformed path")
	case v2 && !s.admit(w), s.injectFailure(w, r, in.route):
		// answered: over the budget, or an injected failure
	default:
		if h, _ := s.core.Override(r); h != nil {
			r.Body = io.NopCloser(bytes.NewReader(in.body))
			h.ServeHTTP(w, r)
			return
		}
		s.route(w, r, in.route, in.segs, in.body)
	}
}

func (s frontDoor) finish(sw *fakeserver.StatusWriter, r *http.Request, entry *Request, start time.Time, v any) {
	if v != nil {
		s.panics.Add(1)
		s.core.Recovered(r, v)
		if sw.Status() == 0 {
			writeError(sw, http.StatusInternalServerError, "internal error")
		}
	}
	s.meta.Lock()
	if entry != nil {
		entry.Status = sw.Status()
	}
	s.meta.Unlock()
	s.core.Log.Debug("edapptest request", "method", r.Method, "path", cmp.Or(r.URL, &url.URL{}).Path,
		"status", sw.Status(), "elapsed", time.Since(start))
}

func readBody(r *http.Request) (body []byte, tooLarge bool) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength > MaxBodyBytes {
		return nil, r.ContentLength > MaxBodyBytes
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if len(b) > MaxBodyBytes {
		return nil, true
	}
	return b, false
}

// logRequest records a request, its Authorization header and token
// parameters redacted.
func (s frontDoor) logRequest(r *http.Request, body []byte) *Request {
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	for k := range h {
		if strings.EqualFold(k, "Authorization") {
			h[k] = []string{redacted}
		}
	}
	entry := &Request{Method: r.Method, Header: h, Body: bytes.Clone(body), Time: s.Now()}
	if r.URL != nil {
		entry.Path, entry.RawQuery = r.URL.EscapedPath(), redactQuery(r.URL.RawQuery)
	}
	s.meta.Lock()
	defer s.meta.Unlock()
	if len(s.requests) >= maxRequestLog {
		s.requests = append(s.requests[:0], s.requests[maxRequestLog/10:]...)
	}
	s.requests = append(s.requests, entry)
	return entry
}

// redactQuery replaces the values of token parameters (launch tokens), by
// name without regard to case, after decoding. A query that has one is
// re-encoded from what decodes, so that no raw form of it survives.
func redactQuery(raw string) string {
	found := false
	for _, pair := range strings.FieldsFunc(raw, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(pair, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		found = found || strings.EqualFold(k, "token") && v != ""
	}
	if !found {
		return raw
	}
	vals, _ := url.ParseQuery(raw)
	for k, vs := range vals {
		if strings.EqualFold(k, "token") {
			for i := range vs {
				vs[i] = redacted
			}
		}
	}
	return vals.Encode()
}

func (s frontDoor) injectFailure(w http.ResponseWriter, r *http.Request, m routeMatch) bool {
	template := ""
	if m.index >= 0 {
		template = routes[m.index].template
	}
	f, ok := s.core.TakeFault(r.Method, template)
	if !ok {
		return false
	}
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", fakeserver.RetryAfter(f.RetryAfter))
	}
	writeError(w, f.Status, cmp.Or(http.StatusText(f.Status), "injected failure"))
	return true
}

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

func (s frontDoor) admit(w http.ResponseWriter) bool {
	if s.budget == nil {
		return true
	}
	ok, wait := s.budget.admit(s.Now())
	if !ok {
		w.Header().Set("Retry-After", fakeserver.RetryAfter(wait))
		writeError(w, http.StatusTooManyRequests, "Too Many Requests: over "+
			strconv.Itoa(s.budget.limit)+" requests in "+s.budget.window.String())
	}
	return ok
}

// randomUUID returns a version 4 UUID, the shape of the real launch tokens.
func randomUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
