// Package transport sends the SDK's HTTP requests: base URL, auth header,
// the account's request budget, retries with capped backoff, and body
// reading. It knows nothing of the API's resources; the root package builds
// on it.
package transport

import (
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

// Config is everything a Client needs.
type Config struct {
	BaseURL    *url.URL // scheme, host and an optional path prefix
	Token      string
	UserAgent  string
	HTTPClient *http.Client // nil: a pooled client of our own
	Limiter    Limiter      // nil: no client-side limit
	Retry      Policy
	Logger     *slog.Logger // nil: silent
	MaxBody    int64        // bound on a successful answer's body
}

// Client sends requests with retries. It is safe for concurrent use.
type Client struct {
	base    string // base URL without a trailing slash
	origin  origin
	cred    *credentials
	ua      string
	rc      *retryablehttp.Client
	hc      *http.Client
	policy  Policy
	log     *slog.Logger
	maxBody int64
	rt      *roundTripper
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

type ctxKey struct{}

// call travels in the request context: CheckRetry, the backoff, the log
// hook and the round tripper all see it. The retry loop is sequential, so
// its fields need no lock.
type call struct {
	c           *Client
	method      string
	bulk        bool
	maxThrottle time.Duration // < 0: none
	policy      Policy
	body        *buffer
	truncated   bool

	attempts   int
	waited     time.Duration
	lastEnd    time.Time
	lastStatus int
	throttled  bool // held by the limiter or a pause, or answered 429
}

// New builds a Client. The caller has validated cfg.
func New(cfg Config) *Client {
	c := &Client{
		base:    strings.TrimSuffix(cfg.BaseURL.String(), "/"),
		origin:  originOf(cfg.BaseURL),
		cred:    &credentials{token: cfg.Token, auth: "Bearer " + cfg.Token},
		ua:      cfg.UserAgent,
		policy:  cfg.Retry,
		log:     cfg.Logger,
		maxBody: cfg.MaxBody,
	}

	var inner http.RoundTripper = defaultTransport
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		*hc = *cfg.HTTPClient // keep the caller's timeout, jar and redirect policy
		if cfg.HTTPClient.Transport != nil {
			inner = cfg.HTTPClient.Transport
		}
	}
	// Wrapped, never replaced: the limiter is drawn on for every attempt
	// (retries and redirect hops included), and the Authorization header is
	// stripped from any request that leaves the base URL's origin, so a
	// redirect elsewhere never carries the token (net/http alone would keep
	// it for a subdomain).
	c.rt = &roundTripper{next: inner, limiter: cfg.Limiter, origin: c.origin, log: cfg.Logger}
	hc.Transport = c.rt
	c.hc = hc
	c.rc = c.retryClient(cfg.Retry)
	return c
}

// retryClient builds the retrying client for one policy.
func (c *Client) retryClient(p Policy) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient:     c.hc,
		Logger:         nil, // logging goes to slog
		RetryWaitMin:   p.MinWait,
		RetryWaitMax:   p.MaxWait,
		RetryMax:       p.MaxRetries,
		CheckRetry:     checkRetry,
		Backoff:        backoff,
		ErrorHandler:   retryablehttp.PassthroughErrorHandler,
		RequestLogHook: beforeAttempt,
	}
}

// Request is one call: what to send and how.
type Request struct {
	Method      string
	Path        string
	RawQuery    string
	Body        []byte // JSON; nil: none
	Header      http.Header
	Retry       *Policy       // nil: the client's
	Bulk        bool          // draw from the limiter's bulk lane
	MaxThrottle time.Duration // < 0: wait as long as ctx allows
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
	u := c.base + r.Path
	if r.RawQuery != "" {
		u += "?" + r.RawQuery
	}
	info := &call{c: c, method: r.Method, bulk: r.Bulk, maxThrottle: r.MaxThrottle, policy: c.policy}
	if r.Retry != nil {
		info.policy = *r.Retry
	}
	ctx = context.WithValue(ctx, ctxKey{}, info)

	var raw any
	if r.Body != nil {
		raw = r.Body // a []byte body is rewound before every attempt
	}
	out := &Response{}
	req, err := retryablehttp.NewRequestWithContext(ctx, r.Method, u, raw)
	if err != nil {
		return out, fmt.Errorf("edapp: %s %s: %w", r.Method, r.Path, c.clean(err))
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	req.Header.Set("Authorization", c.cred.auth)
	req.Header.Set("User-Agent", c.ua)
	req.Header.Set("Accept", "application/json")
	if r.Body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	// Read the body inside the retry loop, so a connection that breaks
	// mid-body counts as a failed attempt and can be retried.
	req.SetResponseHandler(func(resp *http.Response) error {
		buf := getBuffer()
		truncated, err := c.readBody(buf, resp)
		if err != nil {
			putBuffer(buf)
			return err
		}
		info.body, info.truncated = buf, truncated
		return nil
	})

	rc := c.rc
	if r.Retry != nil {
		rc = c.retryClient(*r.Retry)
	}
	resp, err := rc.Do(req)
	out.Attempts, out.Waited = info.attempts, info.waited
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		if info.body != nil {
			putBuffer(info.body)
		}
		return out, c.failure(ctx, info, r, err)
	}

	out.StatusCode, out.Header = resp.StatusCode, resp.Header
	if info.body != nil {
		out.buf, out.Truncated = info.body, info.truncated
	} else {
		// Retries ran out on a status: the handler did not run, so read here.
		out.buf = getBuffer()
		err := readAtMost(out.buf, resp, MaxErrorBody, 0)
		if err != nil && !errors.Is(err, errTooLarge) {
			out.Release()
			return out, c.failure(ctx, info, r, err)
		}
		out.Truncated = err != nil
	}
	out.Body = out.buf.b
	return out, nil
}

// failure turns what the retry loop returned into the error Do reports.
func (c *Client) failure(ctx context.Context, info *call, r Request, err error) error {
	var le *LimiterError
	if errors.As(err, &le) {
		return fmt.Errorf("edapp: %s %s: %w", r.Method, r.Path, le)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if info.throttled {
			return fmt.Errorf("edapp: %s %s: %w", r.Method, r.Path, &LimiterError{Throttled: true, Err: ctxErr})
		}
		return ctxErr
	}
	if errors.Is(err, errTooLarge) {
		return fmt.Errorf("edapp: %s %s: the answer is larger than %d bytes (see WithMaxResponseBytes)", r.Method, r.Path, c.maxBody)
	}
	return fmt.Errorf("edapp: %s %s: %w", r.Method, r.Path, c.clean(unwrapURLError(err)))
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

// beforeAttempt runs before every attempt: it counts attempts, books the
// backoff since the previous one as waiting, and logs the retry.
func beforeAttempt(_ retryablehttp.Logger, r *http.Request, attempt int) {
	info, ok := r.Context().Value(ctxKey{}).(*call)
	if !ok {
		return
	}
	info.attempts = attempt + 1
	if attempt == 0 {
		return
	}
	wait := time.Since(info.lastEnd)
	info.waited += wait
	if log := info.c.log; log != nil {
		attrs := []slog.Attr{
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("attempt", attempt+1), slog.Duration("waited", wait),
		}
		if info.lastStatus != 0 {
			attrs = append(attrs, slog.Int("status", info.lastStatus))
		}
		log.LogAttrs(r.Context(), slog.LevelInfo, "edapp: retrying request", attrs...)
	}
}

// notBefore is when the next request may go, after the service asked the
// client to slow down (unix nanoseconds; 0: no pause).
func (c *Client) pause(ctx context.Context, d time.Duration, why string) {
	if d <= 0 {
		return
	}
	until := time.Now().Add(d)
	for {
		cur := c.rt.notBefore.Load()
		if cur >= until.UnixNano() || c.rt.notBefore.CompareAndSwap(cur, until.UnixNano()) {
			break
		}
	}
	if p, ok := c.rt.limiter.(Pauser); ok {
		p.Pause(until)
	}
	if c.log != nil {
		c.log.LogAttrs(ctx, slog.LevelInfo, "edapp: the service asked to slow down; pausing every request",
			slog.Duration("pause", d), slog.String("reason", why))
	}
}

// origin is a scheme and host; the token goes only to the base URL's.
type origin struct{ scheme, host string }

func originOf(u *url.URL) origin {
	o := origin{scheme: strings.ToLower(u.Scheme), host: strings.ToLower(u.Host)}
	// "host:443" and "host" are the same origin for https (likewise :80).
	if (o.scheme == "https" && strings.HasSuffix(o.host, ":443")) || (o.scheme == "http" && strings.HasSuffix(o.host, ":80")) {
		o.host = o.host[:strings.LastIndexByte(o.host, ':')]
	}
	return o
}

// roundTripper waits for the budget, keeps the token to our own origin,
// notes rate-limit answers, and logs each attempt.
type roundTripper struct {
	next      http.RoundTripper
	limiter   Limiter
	origin    origin
	log       *slog.Logger
	notBefore atomic.Int64
}

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	info, _ := ctx.Value(ctxKey{}).(*call)
	if err := t.waitTurn(ctx, info); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	r := req
	if req.Header.Get("Authorization") != "" && originOf(req.URL) != t.origin {
		// A redirect hop to another origin. RoundTrippers must not modify
		// the request they are given, so strip the header from a clone.
		r = req.Clone(ctx)
		r.Header.Del("Authorization")
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(r)
	if info != nil {
		info.lastEnd = time.Now()
		info.lastStatus = 0
		if resp != nil {
			info.lastStatus = resp.StatusCode
			info.c.noteRateLimit(ctx, info, resp)
		}
	}
	if t.log != nil {
		attrs := []slog.Attr{
			slog.String("method", r.Method),
			slog.String("host", r.URL.Host),
			slog.String("path", r.URL.Path),
			slog.Duration("duration", time.Since(start)),
		}
		if err != nil {
			msg := err.Error()
			if info != nil {
				msg = info.c.Redact(msg)
			}
			t.log.LogAttrs(ctx, slog.LevelDebug, "edapp: request failed", append(attrs, slog.String("error", msg))...)
		} else {
			t.log.LogAttrs(ctx, slog.LevelDebug, "edapp: response", append(attrs, slog.Int("status", resp.StatusCode))...)
		}
	}
	return resp, err
}

// waitTurn holds an attempt until the client's pause is over and the
// limiter lets it through, booking the time as waiting.
func (t *roundTripper) waitTurn(ctx context.Context, info *call) error {
	if info == nil {
		info = &call{maxThrottle: -1}
	}
	start := time.Now()
	paused := false
	defer func() {
		held := time.Since(start)
		info.waited += held
		if held >= time.Millisecond {
			info.throttled = true
		}
		if held > time.Second && t.log != nil {
			t.log.LogAttrs(ctx, slog.LevelInfo, "edapp: waited for the request budget",
				slog.Duration("waited", held), slog.Bool("after429", paused))
		}
	}()

	if d := time.Until(time.Unix(0, t.notBefore.Load())); d > 0 {
		paused = true
		if err := holdable(ctx, d, info.maxThrottle); err != nil {
			return err
		}
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return &LimiterError{Throttled: true, Err: ctx.Err()}
		case <-timer.C:
		}
	}
	if t.limiter == nil {
		return nil
	}
	lctx := ctx
	if info.maxThrottle >= 0 {
		// What the pause took counts against WithMaxThrottle too. A bound
		// that ends before the limiter has even looked would refuse a free
		// slot, so it is never under minThrottle.
		var cancel context.CancelFunc
		lctx, cancel = context.WithTimeout(ctx, max(info.maxThrottle-time.Since(start), minThrottle))
		defer cancel()
	}
	var err error
	if ll, ok := t.limiter.(LaneLimiter); ok {
		err = ll.WaitLane(lctx, info.bulk)
	} else {
		err = t.limiter.Wait(lctx)
	}
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return &LimiterError{Throttled: true, Err: ctxErr}
	}
	if lctx.Err() != nil || refusedForDeadline(err) {
		// Refused because the wait would outlast a deadline: WithMaxThrottle's,
		// or ctx's own.
		if _, ok := lctx.Deadline(); ok && info.maxThrottle >= 0 {
			if dl, ok := ctx.Deadline(); !ok || time.Now().Add(info.maxThrottle).Before(dl) {
				return &LimiterError{Throttled: true, Err: fmt.Errorf("the wait would be longer than %v", info.maxThrottle)}
			}
		}
		return &LimiterError{Throttled: true, Err: fmt.Errorf("the wait would outlast the context's deadline: %w", context.DeadlineExceeded)}
	}
	return &LimiterError{Err: err}
}

// minThrottle is the shortest bound WithMaxThrottle puts on a limiter's
// wait: scheduling alone can take longer than a shorter one.
const minThrottle = 50 * time.Millisecond

// holdable refuses at once a pause that WithMaxThrottle or ctx's deadline
// would not let the call sit out.
func holdable(ctx context.Context, d, maxThrottle time.Duration) error {
	if maxThrottle >= 0 && d > maxThrottle {
		return &LimiterError{Throttled: true, Err: fmt.Errorf("the wait would be longer than %v", maxThrottle)}
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return &LimiterError{Throttled: true, Err: fmt.Errorf("the wait would outlast the context's deadline: %w", context.DeadlineExceeded)}
	}
	return nil
}

// refusedForDeadline reports a limiter's refusal to wait past a deadline:
// context.DeadlineExceeded, or x/time/rate's "would exceed context
// deadline", which wraps nothing.
func refusedForDeadline(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "exceed context deadline")
}
