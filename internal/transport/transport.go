// Package transport sends the SDK's HTTP requests: base URL, auth header,
// the account's request budget, retries with capped backoff, and body
// reading. It knows nothing of the API's resources; the root package builds
// on it.
//
// One call's state lives in one value, owned by Client.Do. Each call gets
// its own retryablehttp.Client and http.Client values, whose hooks are that
// state's methods: nothing travels in the context. Its retry method is the
// whole retry policy, and its RoundTrip the whole of one attempt.
package transport

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Policy says how often and how long to retry.
type Policy struct {
	MaxRetries int
	MinWait    time.Duration
	MaxWait    time.Duration
}

// Limiter, LaneLimiter and Pauser mirror the root package's interfaces.
type (
	Limiter interface {
		Wait(ctx context.Context) error
	}
	LaneLimiter interface {
		WaitLane(ctx context.Context, bulk bool) error
	}
	Pauser interface{ Pause(until time.Time) }
)

// Observer is told what a call does, as it happens; the root package
// turns it into its public Observer. Nil in Config: nothing is reported.
type Observer interface {
	// Attempt reports one attempt that was sent: its answer's status (0
	// when none came) or its error, and how long it took.
	Attempt(ctx context.Context, r *Request, attempt, status int, err error, took time.Duration)
	// Wait reports one time the call was held before an attempt, and how
	// long the wait was expected to take when it began (0: not known).
	Wait(ctx context.Context, r *Request, kind WaitKind, took, expected time.Duration)
}

// WaitKind says what a call waited for.
type WaitKind int

const (
	WaitInteractive WaitKind = iota // the limiter's interactive lane
	WaitBulk                        // the limiter's bulk lane
	WaitPause                       // the client-wide pause after a 429
	WaitBackoff                     // the backoff between two attempts
)

// Config is everything a Client needs.
type Config struct {
	BaseURL    *url.URL // scheme, host and an optional path prefix
	Token      string
	UserAgent  string
	HTTPClient *http.Client // nil: a pooled client of our own
	Limiter    Limiter      // nil: no client-side limit
	Retry      Policy
	MaxPause   time.Duration // the longest client-wide pause a 429 or a reset header can ask for
	Logger     *slog.Logger  // nil: silent
	MaxBody    int64         // bound on a successful answer's body
	Observer   Observer      // nil: none
	// PauseScope names what a pause holds, for its log line ("the
	// requests of GET /x"); "": every request through the client.
	PauseScope string
	Clock      Clock // zero: the real clock

	// AttemptTimeout bounds one attempt, its body read included (see
	// DefaultAttemptTimeout); 0 or less: no bound of the client's own.
	AttemptTimeout time.Duration
}

// Client sends requests with retries. It is safe for concurrent use.
type Client struct {
	base   string // base URL without a trailing slash
	origin origin
	// The base URL's parts, from which plainURL builds a request's URL;
	// plainBase: the base URL is plain (see plainPath).
	scheme, host, prefix string
	plainBase            bool
	cred                 *credentials
	ua                   []string     // the User-Agent header's value, shared (see setHeaders)
	hc                   *http.Client // the caller's, or ours; its Transport is never used directly
	next                 http.RoundTripper
	limiter              Limiter
	policy               Policy
	maxPause             time.Duration
	log                  *slog.Logger
	maxBody              int64
	obs                  Observer
	scope                string // what a pause holds, for the log
	now                  func() time.Time
	newTimer             func(d time.Duration) (<-chan time.Time, func() bool)

	// notBefore is when the next attempt may go, after the service asked
	// the client to slow down (unix nanoseconds; 0: no pause).
	notBefore atomic.Int64

	attemptTimeout time.Duration // Config.AttemptTimeout
}

// defaultTransport is shared by the clients that bring no http.Client of
// their own. The SDK talks to one host from many goroutines, so it keeps
// more idle connections per host than net/http's default of 2.
var defaultTransport = func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 32
	return t
}()

// MaxErrorBody bounds what is read of a failed response's body.
const MaxErrorBody = 64 << 10

// New builds a Client. The caller has validated cfg.
func New(cfg Config) *Client {
	c := &Client{
		base:     strings.TrimSuffix(cfg.BaseURL.String(), "/"),
		origin:   originOf(cfg.BaseURL),
		scheme:   cfg.BaseURL.Scheme,
		host:     cfg.BaseURL.Host,
		prefix:   strings.TrimSuffix(cfg.BaseURL.EscapedPath(), "/"),
		cred:     newCredentials(cfg.Token),
		ua:       []string{cfg.UserAgent},
		next:     defaultTransport,
		limiter:  cfg.Limiter,
		policy:   cfg.Retry,
		maxPause: cfg.MaxPause,
		log:      cfg.Logger,
		maxBody:  cfg.MaxBody,
		obs:      cfg.Observer,
		scope:    cmp.Or(cfg.PauseScope, "every request"),
		hc:       &http.Client{},
		now:      cfg.Clock.Now,
		newTimer: cfg.Clock.NewTimer,
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.attemptTimeout = cfg.AttemptTimeout
	if c.newTimer == nil {
		c.newTimer = realTimer
	}
	c.plainBase = c.base == c.scheme+"://"+c.host+c.prefix && plainPath(c.prefix) && !strings.HasSuffix(c.host, ":")
	if c.maxPause <= 0 {
		c.maxPause = 5 * time.Minute
	}
	if cfg.HTTPClient != nil {
		*c.hc = *cfg.HTTPClient // keep the caller's timeout, jar and redirect policy
		if cfg.HTTPClient.Transport != nil {
			c.next = cfg.HTTPClient.Transport
		}
	}
	return c
}

// Request is one call: what to send and how.
type Request struct {
	Method      string
	Path        string
	Route       string // the path's template, for the Observer
	RawQuery    string
	Body        []byte // JSON; nil: none
	Header      http.Header
	Retry       *Policy       // nil: the client's
	Bulk        bool          // draw from the limiter's bulk lane
	MaxThrottle time.Duration // < 0: wait as long as ctx allows
	// Once: never sent again once it may have reached the service, whatever
	// its method (a write that is not safe to repeat).
	Once bool
	// InFlight, when not nil, is a semaphore (a buffered channel) of which
	// each attempt holds a place from after its waits for the pause and
	// the limiter until its answer is read: a call waiting for its budget
	// leaves the place to calls that may go.
	InFlight chan struct{}
}

// Response is a finished response with its body read, and what it took.
// Release returns the body's buffer for reuse; Body must not be used after
// that. On a failed call, Do returns a Response too (StatusCode 0 when no
// answer came), so the caller can report the attempts and waits.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte
	Attempts   int
	Waited     time.Duration
	Truncated  bool // a failed answer's body was longer than MaxErrorBody
	buf        *buffer
}

// Release returns the body buffer to the pool.
func (r *Response) Release() {
	if r != nil && r.buf != nil {
		putBuffer(r.buf)
		r.buf, r.Body = nil, nil
	}
}

// Do sends one request, retrying as the policy allows, and returns the final
// response with its body read. A transport failure returns an error that
// names the method and path (never the query or the token); a cancelled or
// expired ctx returns ctx's error (also matching ErrRateLimited when the
// call was being throttled). The Response is never nil.
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	s := c.newCall(ctx, r)
	defer s.release()
	out := &Response{}
	req, err := c.newRequest(ctx, &s.req)
	if err != nil {
		return out, fmt.Errorf("edapp: %s %s: %w", r.Method, r.Path, c.clean(err))
	}
	// Read the body inside the retry loop, so a connection that breaks
	// mid-body counts as a failed attempt and can be retried.
	req.SetResponseHandler(s.answer)
	resp, err := s.retryingClient().Do(req)
	if err == nil && s.body == nil {
		// Retries ran out on a status: the handler did not run.
		err = s.readAnswer(resp)
	}
	s.leavePlace()
	out.Attempts, out.Waited = s.attempts, s.waited
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		if s.body != nil {
			putBuffer(s.body)
		}
		return out, s.failure(err)
	}
	out.StatusCode, out.Header = resp.StatusCode, resp.Header
	out.buf, out.Truncated, out.Body = s.body, s.truncated, s.body.b
	return out, nil
}

// newRequest builds the retryable request with the SDK's headers.
func (c *Client) newRequest(ctx context.Context, r *Request) (*retryablehttp.Request, error) {
	var raw any
	if r.Body != nil {
		raw = r.Body // a []byte body is rewound before every attempt
	}
	u, plain := c.plainURL(r)
	rawURL := "" // filled in below, without parsing it again
	if !plain {
		rawURL = c.base + r.Path
		if r.RawQuery != "" {
			rawURL += "?" + r.RawQuery
		}
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, r.Method, rawURL, raw)
	if err != nil {
		return nil, err
	}
	if plain {
		*req.URL, req.Host = u, u.Host
	}
	c.setHeaders(req.Header, r)
	return req, nil
}

// plainURL is the request's URL, built from the base URL parsed once in
// New, when its path and query hold only characters that url.Parse would
// keep as they are (the typed methods' paths do); otherwise plain is
// false and the URL is parsed as a whole.
func (c *Client) plainURL(r *Request) (u url.URL, plain bool) {
	if !c.plainBase || !plainPath(r.Path) || !plainQuery(r.RawQuery) {
		return url.URL{}, false
	}
	return url.URL{Scheme: c.scheme, Host: c.host, Path: c.prefix + r.Path, RawQuery: r.RawQuery}, true
}

// plainPath reports whether p is a path that url.Parse keeps as it is, and
// that a URL sends as it is: letters, digits and "-._~/:@$&+,;=".
func plainPath(p string) bool {
	for i := range len(p) {
		if b := p[i]; !isAlnum(b) && strings.IndexByte("-._~/:@$&+,;=", b) < 0 {
			return false
		}
	}
	return true
}

// plainQuery reports whether q is a query that url.Parse keeps as it is:
// no control character, space or '#'.
func plainQuery(q string) bool {
	for i := range len(q) {
		if b := q[i]; b <= ' ' || b == 0x7f || b == '#' {
			return false
		}
	}
	return true
}

func isAlnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

// Header values every request shares: net/http, retryablehttp and this
// package only read a request's header values (a redirect and a clone
// copy them), so one slice serves every request. Each has its length as
// its capacity, so an append elsewhere copies it.
var (
	acceptJSON  = []string{"application/json"}
	contentJSON = []string{"application/json"}
)

// setHeaders sets the call's headers and the SDK's own on h.
func (c *Client) setHeaders(h http.Header, r *Request) {
	for k, vs := range r.Header {
		h[k] = vs
	}
	h["Authorization"] = c.cred.authHeader
	h["User-Agent"] = c.ua
	h["Accept"] = acceptJSON
	if r.Body != nil {
		h["Content-Type"] = contentJSON
	}
}

// readBody reads an answer's body: a successful one up to the client's
// bound (more is an error), a failed one up to MaxErrorBody (the rest is
// not read, and truncated says so).
func (c *Client) readBody(buf *buffer, resp *http.Response) (truncated bool, err error) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		err := readAtMost(buf, resp, MaxErrorBody, 0)
		if errors.Is(err, errTooLarge) {
			return true, nil
		}
		return false, err
	}
	return false, readAtMost(buf, resp, c.maxBody, resp.ContentLength)
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// ErrRateLimited is the root package's ErrRateLimited.
var ErrRateLimited = errors.New("edapp: rate limited")

// LimiterError is a call the client's limiter did not let through: it was
// throttled (held longer than WithMaxThrottle allows, or past ctx's end),
// or the limiter itself failed (a shared limiter whose store is
// unreachable). It is never retried, and never sent unlimited.
type LimiterError struct {
	Throttled bool
	Err       error
}

func (e *LimiterError) Error() string {
	if e.Throttled {
		return "rate limited by the client's limiter: " + e.Err.Error()
	}
	return "the rate limiter failed: " + e.Err.Error()
}

// Unwrap lets a throttled call match ErrRateLimited and its cause
// (context.DeadlineExceeded, for one).
func (e *LimiterError) Unwrap() []error {
	if e.Throttled {
		return []error{ErrRateLimited, e.Err}
	}
	return []error{e.Err}
}

// origin is a scheme and host; the token goes only to the base URL's.
type origin struct{ scheme, host string }

// sameOrigin reports whether u has the base URL's origin; the common case,
// the base URL's own spelling, is compared without building an origin.
func (c *Client) sameOrigin(u *url.URL) bool {
	if u.Scheme == c.origin.scheme && u.Host == c.origin.host {
		return true
	}
	return originOf(u) == c.origin
}

func originOf(u *url.URL) origin {
	o := origin{scheme: strings.ToLower(u.Scheme), host: strings.ToLower(u.Host)}
	// "host:443" and "host" are the same origin for https (likewise :80).
	if (o.scheme == "https" && strings.HasSuffix(o.host, ":443")) || (o.scheme == "http" && strings.HasSuffix(o.host, ":80")) {
		o.host = o.host[:strings.LastIndexByte(o.host, ':')]
	}
	return o
}
