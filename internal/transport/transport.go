// Package transport sends the SDK's HTTP requests: base URL, auth header,
// client-side rate limit, retries with capped backoff, and body reading. It
// knows nothing of the API's resources; the root package builds on it.
package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp/internal/redact"
)

// Policy says how often and how long to retry.
type Policy struct {
	MaxRetries int
	MinWait    time.Duration
	MaxWait    time.Duration
}

// Config is everything a Client needs.
type Config struct {
	BaseURL    *url.URL // scheme, host and an optional path prefix
	Token      string
	UserAgent  string
	HTTPClient *http.Client // nil: a pooled client of our own
	Limiter    *rate.Limiter
	Retry      Policy
	Logger     *slog.Logger // nil: silent
}

// Client sends requests with retries. It is safe for concurrent use.
type Client struct {
	base   string // base URL without a trailing slash
	origin origin
	token  string
	auth   string
	ua     string
	rc     *retryablehttp.Client
	log    *slog.Logger
}

// defaultTransport is shared by the clients that bring no http.Client of
// their own. The SDK talks to one host from many goroutines, so it keeps
// more idle connections per host than net/http's default of 2.
var defaultTransport = func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 32
	return t
}()

// MaxErrorBody bounds what an error keeps of a failed response's body.
const MaxErrorBody = 64 << 10

// maxBody bounds a successful response's body, so a runaway server cannot
// exhaust memory. A page of 1000 analytics records is well under 16 MiB.
const maxBody = 256 << 20

type ctxKey struct{}

// requestInfo travels in the request context so CheckRetry, which sees no
// request when a connection fails, knows the method, and so the response
// handler has somewhere to put the body it read inside the retry loop.
type requestInfo struct {
	method string
	body   *bytes.Buffer
}

// New builds a Client. The caller has validated cfg.
func New(cfg Config) *Client {
	c := &Client{
		base:   strings.TrimSuffix(cfg.BaseURL.String(), "/"),
		origin: originOf(cfg.BaseURL),
		token:  cfg.Token,
		auth:   "Bearer " + cfg.Token,
		ua:     cfg.UserAgent,
		log:    cfg.Logger,
	}

	var inner http.RoundTripper = defaultTransport
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		*hc = *cfg.HTTPClient // keep the caller's timeout, jar and redirect policy
		if cfg.HTTPClient.Transport != nil {
			inner = cfg.HTTPClient.Transport
		}
	}
	// Wrapped, never replaced: the limiter draws a token for every attempt
	// (retries and redirect hops included), and the Authorization header is
	// stripped from any request that leaves the base URL's origin, so a
	// redirect elsewhere never carries the token (net/http alone would keep
	// it for a subdomain).
	hc.Transport = &roundTripper{
		next:    inner,
		limiter: cfg.Limiter,
		origin:  c.origin,
		log:     cfg.Logger,
	}

	c.rc = &retryablehttp.Client{
		HTTPClient:   hc,
		Logger:       nil, // logging goes to slog, in the round tripper
		RetryWaitMin: cfg.Retry.MinWait,
		RetryWaitMax: cfg.Retry.MaxWait,
		RetryMax:     cfg.Retry.MaxRetries,
		CheckRetry:   checkRetry,
		Backoff:      Backoff,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
	if cfg.Logger != nil {
		log := cfg.Logger
		c.rc.RequestLogHook = func(_ retryablehttp.Logger, r *http.Request, attempt int) {
			if attempt > 0 {
				log.LogAttrs(r.Context(), slog.LevelInfo, "edapp: retrying request",
					slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("attempt", attempt+1))
			}
		}
	}
	return c
}

// Response is a finished response with its body read. Release returns the
// body's buffer for reuse; Body must not be used after that.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte
	buf        *bytes.Buffer
}

// Release returns the body buffer to the pool.
func (r *Response) Release() {
	if r.buf != nil {
		putBuffer(r.buf)
		r.buf, r.Body = nil, nil
	}
}

// Do sends one request, retrying as the policy allows, and returns the final
// response with its body read. A transport failure returns an error that
// names the method and path (never the query or the token); a cancelled or
// expired ctx returns ctx's error.
func (c *Client) Do(ctx context.Context, method, path, rawQuery string, body []byte, contentType string) (*Response, error) {
	u := c.base + path
	if rawQuery != "" {
		u += "?" + rawQuery
	}
	info := &requestInfo{method: method}
	ctx = context.WithValue(ctx, ctxKey{}, info)

	var raw any
	if body != nil {
		raw = body // a []byte body is rewound before every attempt
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, u, raw)
	if err != nil {
		return nil, fmt.Errorf("edapp: %s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", c.auth)
	req.Header.Set("User-Agent", c.ua)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	// Read the body inside the retry loop, so a connection that breaks
	// mid-body counts as a failed attempt and can be retried.
	req.SetResponseHandler(func(resp *http.Response) error {
		buf := getBuffer()
		err := readBody(buf, resp, maxBody)
		if err != nil {
			putBuffer(buf)
			return err
		}
		info.body = buf
		return nil
	})

	resp, err := c.rc.Do(req)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		if info.body != nil {
			putBuffer(info.body)
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, fmt.Errorf("edapp: %s %s: %w", method, path, unwrapURLError(err))
	}

	out := &Response{StatusCode: resp.StatusCode, Header: resp.Header}
	if info.body != nil {
		out.buf = info.body
	} else {
		// Retries ran out on a status: the handler did not run, so read here.
		out.buf = getBuffer()
		// Read past MaxErrorBody, so that redaction sees whole a secret
		// that crosses the cut.
		if err := readBody(out.buf, resp, MaxErrorBody+redact.Margin); err != nil && !errors.Is(err, errTooLarge) {
			out.Release()
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, ctxErr
			}
			return nil, fmt.Errorf("edapp: %s %s: reading body: %w", method, path, unwrapURLError(err))
		}
	}
	out.Body = out.buf.Bytes()
	return out, nil
}

var errTooLarge = errors.New("response body too large")

// readBody reads at most limit bytes of resp's body into buf and closes it.
func readBody(buf *bytes.Buffer, resp *http.Response, limit int64) error {
	defer resp.Body.Close()
	if resp.ContentLength > 0 && resp.ContentLength <= limit {
		buf.Grow(int(resp.ContentLength))
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return err
	}
	if n > limit {
		buf.Truncate(int(limit))
		return errTooLarge
	}
	return nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Redact replaces the API token in s, plain or encoded, for error texts
// built from bodies and headers.
func (c *Client) Redact(s string) string { return redact.Secret(s, c.token) }

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer { return bufPool.Get().(*bytes.Buffer) }

func putBuffer(b *bytes.Buffer) {
	if b.Cap() > 4<<20 { // let huge buffers go
		return
	}
	b.Reset()
	bufPool.Put(b)
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

// roundTripper waits for the rate limiter, keeps the token to our own
// origin, and logs each attempt.
type roundTripper struct {
	next    http.RoundTripper
	limiter *rate.Limiter
	origin  origin
	log     *slog.Logger
}

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if t.limiter != nil {
		if err := t.limiter.Wait(ctx); err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, ctxErr
			}
			// Wait refuses up front when the wait would outlast the deadline.
			return nil, fmt.Errorf("rate limit wait exceeds the context deadline: %w", context.DeadlineExceeded)
		}
	}
	r := req
	if req.Header.Get("Authorization") != "" && originOf(req.URL) != t.origin {
		// A redirect hop to another origin. RoundTrippers must not modify
		// the request they are given, so strip the header from a clone.
		r = req.Clone(ctx)
		r.Header.Del("Authorization")
	}
	if t.log == nil {
		return t.next.RoundTrip(r)
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(r)
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("host", r.URL.Host),
		slog.String("path", r.URL.Path),
		slog.Duration("duration", time.Since(start)),
	}
	if err != nil {
		t.log.LogAttrs(ctx, slog.LevelDebug, "edapp: request failed", append(attrs, slog.String("error", err.Error()))...)
	} else {
		t.log.LogAttrs(ctx, slog.LevelDebug, "edapp: response", append(attrs, slog.Int("status", resp.StatusCode))...)
	}
	return resp, err
}
