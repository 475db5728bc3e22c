package edapp

import (
	"context"
	"encoding/json"
	"fmt"
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
	// DefaultLaunchBaseURL is the host of the lesson launch page
	// ({launch_url} in the spec).
	DefaultLaunchBaseURL = "https://web.edapp.com"
	// LaunchTokenLifetime is how long a launch link's token lives (spec: 20
	// minutes).
	LaunchTokenLifetime = 20 * time.Minute
)

// The service allows 1400 requests per 5 minutes across /v2 (not shown in
// the spec; documented by the vendor). A token bucket with burst b and rate
// r admits at most b + r·T requests in any window T, so the default burst
// of 50 and rate of 1350 per 5 minutes never exceed 1400 in any 5-minute
// window, while sustained load still uses over 95% of the budget.
const (
	defaultRateBurst  = 50
	defaultRatePer5m  = 1400 - defaultRateBurst
	defaultRateWindow = 5 * time.Minute
)

// DefaultRateLimit is the client-side limit NewClient applies unless
// WithRateLimit says otherwise: 1350 requests per 5 minutes with a burst of
// 50 (DefaultRateBurst), which keeps every 5-minute window within the
// service's 1400.
var DefaultRateLimit = rate.Limit(float64(defaultRatePer5m) / defaultRateWindow.Seconds())

// DefaultRateBurst is the burst that goes with DefaultRateLimit.
const DefaultRateBurst = defaultRateBurst

// DefaultRetryPolicy is the retry policy NewClient applies unless WithRetry
// says otherwise.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 4, MinWait: 500 * time.Millisecond, MaxWait: 30 * time.Second}

// RetryPolicy says how often and how long to retry. GET, PUT and DELETE are
// retried on connection errors, 429, 500, 502, 503 and 504; POST only on 429
// and on a connection refused before anything was sent, so a retry never
// duplicates a write. Waits grow exponentially from MinWait with jitter and
// are capped at MaxWait; a Retry-After header is honoured, also capped at
// MaxWait. MaxRetries 0 turns retries off.
type RetryPolicy struct {
	MaxRetries int
	MinWait    time.Duration
	MaxWait    time.Duration
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
	limiter *rate.Limiter // nil when off
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
	limit      rate.Limit
	burst      int
	userAgent  string
	logger     *slog.Logger
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

// WithRetry sets the retry policy (default DefaultRetryPolicy).
func WithRetry(p RetryPolicy) Option { return func(c *config) { c.retry = p } }

// WithRateLimit sets the client-side rate limit: limit requests per second
// with the given burst. Every attempt draws a token, retries included.
// rate.Inf turns the limiter off. The default keeps within the service's
// 1400 requests per 5 minutes (see DefaultRateLimit).
func WithRateLimit(limit rate.Limit, burst int) Option {
	return func(c *config) { c.limit, c.burst = limit, burst }
}

// WithUserAgent puts ua in front of the SDK's own "edapp-go/<version>" in
// the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *config) { c.userAgent = ua } }

// WithLogger sends a debug line per attempt and an info line per retry to
// l. Nil (the default) is silent. Lines carry the method, host, path,
// status and duration: never headers, query strings, bodies or tokens.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// NewClient returns a client that authenticates with the account's API
// token (spec: every call carries "Authorization: Bearer <API_TOKEN>"; the
// token comes from the admin portal). An empty token, an invalid base URL
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
		retry:   DefaultRetryPolicy,
		limit:   DefaultRateLimit,
		burst:   DefaultRateBurst,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	base, err := parseBaseURL(cfg.baseURL)
	if err != nil {
		return nil, err
	}
	if p := cfg.retry; p.MaxRetries < 0 || p.MinWait < 0 || p.MaxWait < p.MinWait {
		return nil, fmt.Errorf("%w: retry policy needs MaxRetries >= 0 and 0 <= MinWait <= MaxWait", ErrInvalidInput)
	}
	if cfg.limit != rate.Inf && (cfg.limit <= 0 || cfg.burst < 1) {
		return nil, fmt.Errorf("%w: rate limit needs a positive limit and a burst of at least 1 (rate.Inf turns it off)", ErrInvalidInput)
	}
	ua := "edapp-go/" + Version
	if cfg.userAgent != "" {
		ua = cfg.userAgent + " " + ua
	}
	var limiter *rate.Limiter
	if cfg.limit != rate.Inf {
		limiter = rate.NewLimiter(cfg.limit, cfg.burst)
	}

	c := &Client{baseURL: base, logger: cfg.logger, limiter: limiter}
	c.t = transport.New(transport.Config{
		BaseURL:    base,
		Token:      token,
		UserAgent:  ua,
		HTTPClient: cfg.httpClient,
		Limiter:    limiter,
		Retry:      transport.Policy(cfg.retry),
		Logger:     cfg.logger,
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
func (c *Client) Do(ctx context.Context, method, path string, query, body, out any) error {
	if ctx == nil {
		return fmt.Errorf("%w: nil context", ErrInvalidInput)
	}
	if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, "?#") {
		return fmt.Errorf("%w: path %q must start with / and carry no query (use the query argument)", ErrInvalidInput, path)
	}
	rawQuery, err := encodeQuery(query)
	if err != nil {
		return err
	}
	payload, err := encodeBody(body)
	if err != nil {
		return err
	}
	resp, err := c.t.Do(ctx, method, path, rawQuery, payload, "application/json")
	if err != nil {
		return err
	}
	defer resp.Release()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return c.newAPIError(method, path, resp)
	}
	if out == nil || len(resp.Body) == 0 {
		return nil
	}
	dropped, err := jsonx.Decode(resp.Body, out)
	if err != nil {
		return &DecodeError{
			StatusCode: resp.StatusCode,
			Method:     method,
			Path:       path,
			Body:       c.cleanExcerpt(resp.Body, decodeExcerpt),
			Err:        err,
		}
	}
	if len(dropped) > 0 && c.logger != nil {
		c.logger.LogAttrs(ctx, slog.LevelWarn, "edapp: dropped values that did not decode",
			slog.String("method", method), slog.String("path", path), slog.Any("fields", dropped))
	}
	return nil
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
