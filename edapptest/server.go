package edapptest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// LaunchTokenLifetime is how long a launch token minted by
// GET /v1/users/{id}/courses stays valid on the server's clock.
const LaunchTokenLifetime = 20 * time.Minute

// Body size limits.
const (
	maxBodyBytes   = 1 << 20 // request bodies
	maxRequestLog  = 10000   // entries kept by the request log
	redactedHeader = "REDACTED"
)

// Server is an in-memory, stateful fake of the whole service (v1 and v2
// sharing one account), served over loopback. Create it with NewServer and
// Close it when done. All methods are safe for concurrent use.
type Server struct {
	// URL is the base URL of the fake, without a trailing slash. The /v1
	// and /v2 paths and /launch-lesson hang off it.
	URL string
	// Token is the bearer token the fake accepts.
	Token string

	ts              *httptest.Server
	clock           func() time.Time
	log             *slog.Logger
	latency         atomic.Int64
	deliveryTimeout time.Duration
	transport       *http.Transport
	httpClient      *http.Client
	panics          atomic.Int64 // recovered panics; the tests want zero
	reqSeq          atomic.Int64

	mu         sync.Mutex
	st         *store
	failN      int
	failStatus int
	failRetry  time.Duration
	requests   []*Request
	deliveries []Delivery
}

// Option configures a Server.
type Option func(*config)

type config struct {
	token           string
	clock           func() time.Time
	latency         time.Duration
	logger          *slog.Logger
	deliveryTimeout time.Duration
}

// WithToken sets the bearer token the fake accepts. The default (and the
// value used for an empty string) is a random token, found in Server.Token.
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithClock sets the server's clock. It dates every record and decides when
// launch tokens expire. The default is time.Now. A nil func is ignored.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.clock = now
		}
	}
}

// WithLatency delays every request by d before it is handled (see
// Server.SetLatency).
func WithLatency(d time.Duration) Option { return func(c *config) { c.latency = d } }

// WithLogger logs one line per request (at debug level) and every webhook
// delivery. The default is silent.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithDeliveryTimeout bounds each webhook delivery. The default is 5 seconds.
func WithDeliveryTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.deliveryTimeout = d
		}
	}
}

// NewServer starts a fake on a loopback address. Its store starts empty;
// add data with the seeding helpers or SeedDemo.
func NewServer(opts ...Option) *Server {
	s := newServer(opts...)
	s.ts = httptest.NewServer(s.Handler())
	s.URL = s.ts.URL
	return s
}

// newServer builds a Server without a listener (for Handler-only use in tests).
func newServer(opts ...Option) *Server {
	cfg := config{clock: time.Now, deliveryTimeout: 5 * time.Second}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.token == "" {
		cfg.token = randomHex(16)
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	s := &Server{
		Token:           cfg.token,
		clock:           cfg.clock,
		log:             cfg.logger,
		deliveryTimeout: cfg.deliveryTimeout,
		transport:       tr,
		httpClient:      &http.Client{Transport: tr, Timeout: cfg.deliveryTimeout},
		st:              newStore(),
	}
	s.latency.Store(int64(cfg.latency))
	return s
}

// Close shuts the server down and waits for requests in flight.
func (s *Server) Close() {
	if s.ts != nil {
		s.ts.Close()
	}
	s.transport.CloseIdleConnections()
}

// Handler returns the fake as an http.Handler, to mount on another server.
// Launch links then point at the host the request came in on.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serve) }

// SetLatency delays every later request by d before it is handled. The
// wait ends early when the request's context is done. Zero turns it off.
func (s *Server) SetLatency(d time.Duration) { s.latency.Store(int64(d)) }

// FailNext makes the next n authenticated API requests (every path except
// /launch-lesson, with a valid token) answer status with a JSON error body
// {"message": ...}, before any routing. When retryAfter > 0 the answers
// carry a Retry-After header in whole seconds (rounded up). A status outside
// 100-599 becomes 500. n <= 0 cancels pending failures.
func (s *Server) FailNext(n int, status int, retryAfter time.Duration) {
	if status < 100 || status > 599 {
		status = 500
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failN, s.failStatus, s.failRetry = max(n, 0), status, retryAfter
}

// Request is one request as the fake received it.
type Request struct {
	Method   string
	Path     string // as sent, not unescaped
	RawQuery string
	// Header holds the request headers. Authorization is replaced by
	// "REDACTED" when present.
	Header http.Header
	Body   []byte
	// Status is the status the fake answered, 0 while the request is in
	// flight or when the client went away during the latency wait.
	Status int
	Time   time.Time // server clock
}

// Requests returns a copy of the request log, oldest first. The log keeps
// the latest 10,000 requests.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
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
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

func (s *Server) now() time.Time { return s.clock() }

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// serve is the top handler: log, wait, authenticate, inject faults, route.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	start := time.Now()
	var entry *Request
	defer func() {
		if v := recover(); v != nil {
			// No handler should panic; this is the last line of defence.
			s.panics.Add(1)
			s.log.Error("edapptest: recovered panic", "panic", fmt.Sprint(v))
			if sw.status == 0 {
				writeError(sw, http.StatusInternalServerError, "internal error")
			}
		}
		s.mu.Lock()
		if entry != nil {
			entry.Status = sw.status
		}
		s.mu.Unlock()
		s.log.Debug("edapptest request", "method", r.Method, "path", pathOf(r),
			"status", sw.status, "elapsed", time.Since(start))
	}()
	sw.Header().Set("X-Request-Id", "req_"+strconv.FormatInt(s.reqSeq.Add(1), 10))

	body, tooLarge := readBody(r)
	entry = s.logRequest(r, body)
	if !s.wait(r.Context()) {
		return
	}
	if tooLarge {
		writeError(sw, http.StatusRequestEntityTooLarge, "request body too large")
		return
	}
	segs, ok := splitPath(r)
	if !ok {
		writeError(sw, http.StatusBadRequest, "malformed path")
		return
	}
	if len(segs) == 1 && strings.EqualFold(segs[0], "launch-lesson") {
		s.serveLaunch(sw, r)
		return
	}
	if !s.authorized(r) {
		sw.Header().Set("WWW-Authenticate", `Bearer realm="edapptest"`)
		writeError(sw, http.StatusUnauthorized, "Unauthorized")
		return
	}
	if s.injectFailure(sw) {
		return
	}
	s.route(sw, r, segs, body)
}

func pathOf(r *http.Request) string {
	if r.URL == nil {
		return ""
	}
	return r.URL.Path
}

// readBody reads at most maxBodyBytes of the body.
func readBody(r *http.Request) (body []byte, tooLarge bool) {
	if r.Body == nil {
		return nil, false
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if len(b) > maxBodyBytes {
		return b[:maxBodyBytes], true
	}
	return b, false
}

func (s *Server) logRequest(r *http.Request, body []byte) *Request {
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	for k := range h {
		if strings.EqualFold(k, "Authorization") {
			h[k] = []string{redactedHeader}
		}
	}
	entry := &Request{Method: r.Method, Header: h, Body: bytes.Clone(body), Time: s.now()}
	if r.URL != nil {
		entry.Path = r.URL.EscapedPath()
		entry.RawQuery = r.URL.RawQuery
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) >= maxRequestLog {
		s.requests = append(s.requests[:0], s.requests[maxRequestLog/10:]...)
	}
	s.requests = append(s.requests, entry)
	return entry
}

// wait applies the latency knob. It reports false when the request's
// context ended first.
func (s *Server) wait(ctx context.Context) bool {
	d := time.Duration(s.latency.Load())
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (s *Server) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	tok = strings.TrimSpace(tok)
	return subtle.ConstantTimeCompare([]byte(tok), []byte(s.Token)) == 1
}

func (s *Server) injectFailure(w http.ResponseWriter) bool {
	s.mu.Lock()
	if s.failN <= 0 {
		s.mu.Unlock()
		return false
	}
	s.failN--
	status, retry := s.failStatus, s.failRetry
	s.mu.Unlock()
	if retry > 0 {
		secs := int64((retry + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	}
	msg := http.StatusText(status)
	if msg == "" {
		msg = "injected failure"
	}
	writeError(w, status, msg)
	return true
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
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
