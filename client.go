package edapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/google/go-querystring/query"
	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp/internal/jsonx"
	"github.com/edapp-go/edapp/internal/transport"
)

// Version is this SDK's version, sent in the User-Agent header.
const Version = "0.1.0"

const (
	// DefaultBaseURL is the REST host of the real service, for /v1 and /v2.
	DefaultBaseURL = "https://rest.edapp.com"
	// DefaultLaunchBaseURL is the host of the lesson launch page, which
	// launch links point at.
	DefaultLaunchBaseURL = "https://web.edapp.com"
	// LaunchTokenLifetime is how long a launch link's token lives: it
	// expires 20 minutes after it is issued.
	LaunchTokenLifetime = 20 * time.Minute
)

// The account's request budget: the service allows 1400 requests in any 5
// minutes, across /v2, and answers 429 past that. The default
// limiter keeps 2 seconds of margin on the window against clock skew and
// latency, so two full bursts one window apart never meet in one window at
// the service.
const (
	DefaultBudget       = 1400
	DefaultBudgetWindow = 5*time.Minute + 2*time.Second
)

// DefaultRetryPolicy is the retry policy NewClient applies unless WithRetry
// says otherwise: 4 retries, waits from 0.5 s growing to at most 30 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 4, MinWait: 500 * time.Millisecond, MaxWait: defaultMaxWait}
}

const defaultMaxWait = 30 * time.Second

// DefaultMaxResponseBytes bounds a successful answer's body unless
// WithMaxResponseBytes says otherwise. A page of 1000 analytics records is
// well under 16 MiB.
const DefaultMaxResponseBytes = 64 << 20

// RetryPolicy says how often and how long to retry. GET, PUT and DELETE are
// retried on connection errors, 429, 500, 502, 503 and 504; POST only on 429
// and on a connection refused before anything was sent, so a retry never
// duplicates a write. Waits grow exponentially from MinWait with jitter and
// are capped at MaxWait; a Retry-After header is honoured, also capped at
// MaxWait. MaxRetries 0 turns retries off. A zero MaxWait means the default
// cap of 30 s: no wait is ever unbounded.
type RetryPolicy struct {
	MaxRetries int
	MinWait    time.Duration
	MaxWait    time.Duration
}

// normalize applies the default cap and checks the policy.
func (p RetryPolicy) normalize() (RetryPolicy, error) {
	if p.MaxWait == 0 {
		p.MaxWait = max(defaultMaxWait, p.MinWait)
	}
	if p.MaxRetries < 0 || p.MinWait < 0 || p.MaxWait < p.MinWait {
		return p, fmt.Errorf("%w: retry policy needs MaxRetries >= 0 and 0 <= MinWait <= MaxWait", ErrInvalidInput)
	}
	return p, nil
}

// Client talks to the service. Create it with NewClient; it is safe for
// concurrent use by many goroutines. Its fields are the resource families.
type Client struct {
	// Users: the v2 user operations.
	Users *UsersService
	// UserGroups: the v2 user group operations.
	UserGroups *UserGroupsService
	// Catalog: course collections, courses and lessons (v2).
	Catalog *CatalogService
	// Analytics: attempts, progress, statistics and survey data (v2).
	Analytics *AnalyticsService
	// Webhooks: links between an event name and a receiving URL (v2).
	Webhooks *WebhooksService

	baseURL *url.URL
	t       *transport.Client
	logger  *slog.Logger
	common  service

	// learnt holds the spellings this client found the service to take.
	learnt spellings
}

// service is what every resource service holds: the client it belongs to.
type service struct {
	client *Client
}

// Option configures a Client in NewClient.
type Option func(*config)

type config struct {
	baseURL    string
	httpClient *http.Client
	retry      RetryPolicy
	limiter    Limiter
	limiterSet bool // WithLimiter or WithRateLimit replaced the default
	limiterErr error
	userAgent  string
	logger     *slog.Logger
	maxBody    int64
}

// WithBaseURL sets the service's base URL (default DefaultBaseURL). It must
// be an absolute http or https URL; it may carry a path prefix, which every
// request keeps.
func WithBaseURL(rawURL string) Option { return func(c *config) { c.baseURL = rawURL } }

// WithHTTPClient makes requests go through hc: its Transport, Timeout,
// Jar and CheckRedirect are kept. Its Transport is wrapped, never replaced,
// by the layer that applies the rate limit and keeps the token from other
// hosts.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithRetry sets the retry policy (default DefaultRetryPolicy()).
func WithRetry(p RetryPolicy) Option { return func(c *config) { c.retry = p } }

// WithLimiter sets the limiter every attempt waits on (default
// NewWindowLimiter(DefaultBudget, DefaultBudgetWindow)). Use one limiter,
// or one redislimit key, for everything that spends one account's budget.
// A nil l turns client-side limiting off.
func WithLimiter(l Limiter) Option {
	return func(c *config) { c.limiter, c.limiterSet, c.limiterErr = l, true, nil }
}

// WithRateLimit replaces the default limiter with a smoothed one on
// x/time/rate: limit requests per second with the given burst. rate.Inf
// turns client-side limiting off. Such a limiter has no lanes.
func WithRateLimit(limit rate.Limit, burst int) Option {
	return func(c *config) {
		c.limiterSet = true
		switch {
		case limit == rate.Inf:
			c.limiter, c.limiterErr = nil, nil
		case limit <= 0 || burst < 1:
			c.limiterErr = fmt.Errorf("%w: rate limit needs a positive limit and a burst of at least 1 (rate.Inf turns it off)", ErrInvalidInput)
		default:
			c.limiter, c.limiterErr = rate.NewLimiter(limit, burst), nil
		}
	}
}

// WithMaxResponseBytes bounds a successful answer's body (default
// DefaultMaxResponseBytes); a larger answer is an error. A failed answer's
// body is read up to 64 KiB, whatever this says.
func WithMaxResponseBytes(n int64) Option { return func(c *config) { c.maxBody = n } }

// WithUserAgent puts ua in front of the SDK's own "edapp-go/<version>" in
// the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *config) { c.userAgent = ua } }

// WithLogger sends a debug line per attempt, and an info line per retry,
// per pause the service asked for and per wait of over a second for the
// request budget, to l. Nil (the default) is silent. Lines carry the method, host, path,
// status and duration: never headers, query strings, bodies or tokens.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// NewClient returns a client that authenticates with the account's API
// token, which comes from the admin portal (settings, API details); every
// request carries it as "Authorization: Bearer <token>". An empty token, an invalid base URL
// or an invalid option is an error, and no request is ever sent with one.
func NewClient(token string, opts ...Option) (*Client, error) {
	if strings.TrimSpace(token) == "" {
		return nil, fmt.Errorf("%w: the API token is empty", ErrInvalidInput)
	}
	if strings.ContainsAny(token, "\r\n") {
		return nil, fmt.Errorf("%w: the API token contains a line break", ErrInvalidInput)
	}
	cfg := config{
		baseURL: DefaultBaseURL,
		retry:   DefaultRetryPolicy(),
		maxBody: DefaultMaxResponseBytes,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.limiterErr != nil {
		return nil, cfg.limiterErr
	}
	base, err := parseBaseURL(cfg.baseURL)
	if err != nil {
		return nil, err
	}
	retry, err := cfg.retry.normalize()
	if err != nil {
		return nil, err
	}
	if cfg.maxBody <= 0 {
		return nil, fmt.Errorf("%w: WithMaxResponseBytes needs a positive size", ErrInvalidInput)
	}
	ua := "edapp-go/" + Version
	if cfg.userAgent != "" {
		ua = cfg.userAgent + " " + ua
	}
	if !cfg.limiterSet {
		cfg.limiter = NewWindowLimiter(DefaultBudget, DefaultBudgetWindow)
	}
	var limiter transport.Limiter
	if !isNil(cfg.limiter) {
		limiter = cfg.limiter
	}

	c := &Client{baseURL: base, logger: cfg.logger}
	c.t = transport.New(transport.Config{
		BaseURL:    base,
		Token:      token,
		UserAgent:  ua,
		HTTPClient: cfg.httpClient,
		Limiter:    limiter,
		Retry:      transport.Policy(retry),
		Logger:     cfg.logger,
		MaxBody:    cfg.maxBody,
	})
	c.common.client = c
	c.Users = (*UsersService)(&c.common)
	c.UserGroups = (*UserGroupsService)(&c.common)
	c.Catalog = (*CatalogService)(&c.common)
	c.Analytics = (*AnalyticsService)(&c.common)
	c.Webhooks = (*WebhooksService)(&c.common)
	return c, nil
}

func parseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: base URL %q: %v", ErrInvalidInput, raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: base URL %q must be an absolute http or https URL", ErrInvalidInput, raw)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: base URL %q must not carry credentials, a query or a fragment", ErrInvalidInput, u.Redacted())
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// BaseURL returns the base URL requests go to.
func (c *Client) BaseURL() string { return c.baseURL.String() }

// String describes the client without its token.
func (c *Client) String() string { return "edapp.Client{" + c.baseURL.String() + "}" }

// Do sends one request and decodes the answer: the escape hatch for
// anything the typed methods do not cover, and what the v1 package is
// built on. path is relative to the base URL ("/v2/users"); query is nil,
// url.Values, or a struct with go-querystring `url` tags; body is nil,
// json.RawMessage, []byte of JSON, or a value to encode as JSON; out is nil
// or a pointer to decode the JSON answer into.
//
// A non-2xx answer is an *APIError. A 2xx answer that is not valid JSON for
// out is a *DecodeError. A done ctx returns ctx's error.
func (c *Client) Do(ctx context.Context, method, path string, query, body, out any, opts ...RequestOption) error {
	rc := newRequestConfig(opts)
	_, err := c.do(ctx, method, path, query, body, out, &rc, false)
	return err
}

// do is Do with the options applied. It returns the answer's Response
// when keep is set, when the caller asked for it, or on failure.
func (c *Client) do(ctx context.Context, method, path string, query, body, out any, rc *requestConfig, keep bool) (resp *Response, err error) {
	if rc.resp != nil {
		defer func() {
			if resp != nil {
				*rc.resp = *resp
			} else {
				*rc.resp = Response{}
			}
		}()
	}
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context", ErrInvalidInput)
	}
	if rc.err != nil {
		return nil, rc.err
	}
	if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("%w: path %q must start with / and carry no query (use the query argument)", ErrInvalidInput, path)
	}
	rawQuery, err := encodeQuery(query)
	if err != nil {
		return nil, err
	}
	payload, err := encodeBody(body)
	if err != nil {
		return nil, err
	}
	req := transport.Request{
		Method: method, Path: path, RawQuery: rawQuery, Body: payload,
		Header: rc.header, Bulk: rc.bulk, MaxThrottle: rc.maxThrottle,
	}
	if rc.retry != nil {
		p := transport.Policy(*rc.retry)
		req.Retry = &p
	}
	tr, err := c.t.Do(ctx, req)
	defer tr.Release()
	if keep || rc.resp != nil || err != nil || tr.StatusCode < 200 || tr.StatusCode > 299 {
		resp = c.response(tr)
	}
	if err != nil {
		return resp, err
	}
	if tr.StatusCode < 200 || tr.StatusCode > 299 {
		return resp, c.newAPIError(method, path, tr, resp)
	}
	if len(bytes.TrimSpace(tr.Body)) == 0 {
		if rc.needBody {
			return resp, c.newDecodeError(method, path, tr, resp, errEmptyAnswer)
		}
		return resp, nil
	}
	if rc.digest != nil {
		*rc.digest = maphash.Bytes(digestSeed, tr.Body)
	}
	if out == nil {
		return resp, nil
	}
	dropped, err := jsonx.Decode(tr.Body, out)
	if err != nil {
		return resp, c.newDecodeError(method, path, tr, resp, err)
	}
	if len(dropped) > 0 {
		if resp == nil {
			resp = c.response(tr)
		}
		resp.Dropped = dropped
		if c.logger != nil {
			c.logger.LogAttrs(ctx, slog.LevelWarn, "edapp: dropped values that did not decode",
				slog.String("method", method), slog.String("path", path), slog.Any("fields", dropped))
		}
	}
	return resp, nil
}

var digestSeed = maphash.MakeSeed()

// errEmptyAnswer is a 2xx answer with no body where a record was expected.
var errEmptyAnswer = errors.New("the answer is empty")

func (c *Client) newDecodeError(method, path string, tr *transport.Response, resp *Response, err error) *DecodeError {
	if resp == nil {
		resp = c.response(tr)
	}
	return &DecodeError{
		StatusCode: tr.StatusCode,
		Method:     method,
		Path:       path,
		Body:       c.cleanExcerpt(tr.Body, decodeExcerpt),
		Err:        err,
		Response:   resp,
	}
}

// isNil reports a nil interface, or one holding a nil pointer.
func isNil(l Limiter) bool {
	if l == nil {
		return true
	}
	v := reflect.ValueOf(l)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

func encodeQuery(q any) (string, error) {
	switch v := q.(type) {
	case nil:
		return "", nil
	case url.Values:
		return v.Encode(), nil
	case string:
		return "", fmt.Errorf("%w: query must be url.Values or a struct, not a string", ErrInvalidInput)
	}
	rv := reflect.ValueOf(q)
	if rv.Kind() == reflect.Pointer && rv.IsNil() {
		return "", nil
	}
	vals, err := query.Values(q)
	if err != nil {
		return "", fmt.Errorf("%w: query: %v", ErrInvalidInput, err)
	}
	return vals.Encode(), nil
}

func encodeBody(body any) ([]byte, error) {
	switch v := body.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	case []byte:
		return v, nil
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%w: encoding the request body: %v", ErrInvalidInput, err)
	}
	return b, nil
}
