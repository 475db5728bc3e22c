package fakeserver

import (
	"bytes"
	"cmp"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MaxBodyBytes bounds a request body; a larger one gets 413.
const MaxBodyBytes = 1 << 20

const (
	maxRequestLog = 10000
	redacted      = "REDACTED"
)

// Routes is a fake's side of the pipeline [Core.Serve] runs.
type Routes interface {
	// Route returns the handler of r's route and the route's name in the
	// counters ("GET /path/{id}"), or "" and a handler answering that no
	// route takes r.
	Route(r *http.Request) (name string, h http.Handler)
	// Admit charges r to the fake's budget; false when it answered.
	Admit(w http.ResponseWriter, r *http.Request) bool
	// Error writes the fake's error body.
	Error(w http.ResponseWriter, status int, msg string)
	// Header sets the headers of every answer.
	Header(h http.Header)
}

// Request is one request as a fake received it, its Authorization header
// and token query parameters (launch tokens) "REDACTED".
type Request struct {
	Method   string
	Path     string // as sent, not unescaped
	RawQuery string
	Header   http.Header
	// Body is the body of a request with a valid token, up to
	// MaxBodyBytes; nil for any other request.
	Body []byte
	// Status is the status the fake answered, 0 while the request is in
	// flight or when the client went away during the latency wait.
	Status int
	Time   time.Time // the fake's clock
}

// stats are the request log and the counters.
type stats struct {
	mu          sync.Mutex // guards requests and counts
	requests    []*Request
	counts      map[string]int
	inFlight    atomic.Int64
	maxInFlight atomic.Int64
}

// Serve answers r. It counts r under its route on arrival, so that a
// client giving up during the latency still counts.
func (c *Core) Serve(rt Routes, w http.ResponseWriter, r *http.Request) {
	c.begin()
	defer c.stats.inFlight.Add(-1)
	sw := &statusWriter{ResponseWriter: w}
	start, entry := time.Now(), (*Request)(nil)
	defer func() { c.finish(rt, sw, r, entry, start, recover()) }()
	authed := c.authorized(r)
	body, tooLarge := readBody(r, authed)
	entry = c.logRequest(r, body)
	name, h := c.route(rt, r, authed)
	if !c.wait(r.Context()) {
		return
	}
	rt.Header(sw.Header())
	switch {
	case !authed:
		sw.Header().Set("WWW-Authenticate", `Bearer realm="`+c.name+`"`)
		rt.Error(sw, http.StatusUnauthorized, "Unauthorized")
	case tooLarge:
		rt.Error(sw, http.StatusRequestEntityTooLarge, "request body too large (limit "+strconv.Itoa(MaxBodyBytes)+" bytes)")
	case !rt.Admit(sw, r), c.injectFailure(rt, sw, r, name):
	default:
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(sw, r)
	}
}

// route finds an authorized r's handler, an override first, and counts r.
func (c *Core) route(rt Routes, r *http.Request, authed bool) (string, http.Handler) {
	if !authed {
		return "", nil
	}
	name, h := rt.Route(r)
	mux := c.overrides.Load()
	if _, pattern := mux.Handler(r); pattern != "" {
		_, path, _ := strings.Cut(pattern, " ")
		name, h = r.Method+" "+c.template(cmp.Or(path, pattern)), mux // the mux sets the path values
	}
	if name != "" {
		c.stats.mu.Lock()
		c.stats.counts[name]++
		c.stats.mu.Unlock()
	}
	return name, h
}

func (c *Core) begin() {
	n := c.stats.inFlight.Add(1)
	for {
		m := c.stats.maxInFlight.Load()
		if n <= m || c.stats.maxInFlight.CompareAndSwap(m, n) {
			return
		}
	}
}

func (c *Core) finish(rt Routes, sw *statusWriter, r *http.Request, entry *Request, start time.Time, v any) {
	if v != nil {
		c.recovered(r, v)
		if sw.status == 0 {
			rt.Error(sw, http.StatusInternalServerError, "internal error")
		}
	}
	if entry != nil {
		c.stats.mu.Lock()
		entry.Status = sw.status
		c.stats.mu.Unlock()
	}
	c.Log.Debug(c.name+" request", "method", r.Method, "path", cmp.Or(r.URL, &url.URL{}).Path,
		"status", sw.status, "elapsed", time.Since(start))
}

func (c *Core) injectFailure(rt Routes, w http.ResponseWriter, r *http.Request, name string) bool {
	_, template, _ := strings.Cut(name, " ")
	f, ok := c.takeFault(r.Method, template)
	if !ok {
		return false
	}
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", RetryAfter(f.RetryAfter))
	}
	rt.Error(w, f.Status, cmp.Or(http.StatusText(f.Status), "injected failure"))
	return true
}

func readBody(r *http.Request, authed bool) (body []byte, tooLarge bool) {
	if !authed || r.Body == nil || r.Body == http.NoBody || r.ContentLength > MaxBodyBytes {
		return nil, r.ContentLength > MaxBodyBytes
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if len(b) > MaxBodyBytes {
		return nil, true
	}
	return b, false
}

func (c *Core) logRequest(r *http.Request, body []byte) *Request {
	h := r.Header.Clone()
	for k := range h {
		if strings.EqualFold(k, "Authorization") {
			h[k] = []string{redacted}
		}
	}
	entry := &Request{Method: r.Method, Header: h, Body: bytes.Clone(body), Time: c.Now()}
	if r.URL != nil {
		entry.Path, entry.RawQuery = r.URL.EscapedPath(), redactQuery(r.URL.RawQuery)
	}
	c.stats.mu.Lock()
	defer c.stats.mu.Unlock()
	if len(c.stats.requests) >= maxRequestLog {
		c.stats.requests = append(c.stats.requests[:0], c.stats.requests[maxRequestLog/10:]...)
	}
	c.stats.requests = append(c.stats.requests, entry)
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

// Requests returns a copy of the request log, oldest first.
func (c *Core) Requests() []Request {
	c.stats.mu.Lock()
	defer c.stats.mu.Unlock()
	out := make([]Request, 0, len(c.stats.requests))
	for _, r := range c.stats.requests {
		cp := *r
		cp.Header, cp.Body = r.Header.Clone(), bytes.Clone(r.Body)
		out = append(out, cp)
	}
	return out
}

// ResetRequests empties the request log.
func (c *Core) ResetRequests() {
	c.stats.mu.Lock()
	defer c.stats.mu.Unlock()
	c.stats.requests = nil
}

// RequestCounts returns the non-zero request counts by route name.
func (c *Core) RequestCounts() map[string]int {
	c.stats.mu.Lock()
	defer c.stats.mu.Unlock()
	return maps.Clone(c.stats.counts)
}

// MaxInFlight is the most requests the fake was handling at once.
func (c *Core) MaxInFlight() int { return int(c.stats.maxInFlight.Load()) }

// ResetCounters sets the route counts to zero and MaxInFlight to the
// requests in flight now.
func (c *Core) ResetCounters() {
	c.stats.mu.Lock()
	defer c.stats.mu.Unlock()
	c.stats.counts = map[string]int{}
	c.stats.maxInFlight.Store(c.stats.inFlight.Load())
}
