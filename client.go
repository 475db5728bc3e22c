package edapp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp/internal/core"
	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/transport"
)

// Version is this SDK's version, sent in the User-Agent header.
const Version = "0.2.0"

const (
	// DefaultBaseURL is the REST host of the real service, for /v1 and /v2.
	DefaultBaseURL = "https://rest.edapp.com"
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

// DefaultRetryPolicy is the retry policy [NewClient] applies unless [WithRetry]
// says otherwise: 4 retries, waits from 0.5 s growing to at most 30 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 4, MinWait: 500 * time.Millisecond, MaxWait: core.DefaultMaxWait}
}

// DefaultMaxResponseBytes bounds a successful answer's body unless
// [WithMaxResponseBytes] says otherwise. A page of 1000 analytics records is
// well under 16 MiB.
const DefaultMaxResponseBytes = 64 << 20

// RetryPolicy says how often and how long to retry. GET, PUT and DELETE are
// retried on connection errors, 429, 500, 502, 503 and 504; POST only on 429
// and on a connection refused before anything was sent, so a retry never
// duplicates a write. Waits grow exponentially from MinWait with jitter and
// are capped at MaxWait; a 503's Retry-After is honoured, also capped at
// MaxWait. A 429 instead pauses the whole client for its Retry-After, up to
// one budget window, and the call retries after the pause only if its
// [WithMaxThrottle] and deadline allow (see the package doc, Rate limits).
// MaxRetries 0 turns retries off. A zero MaxWait means the default cap of
// 30 s: no wait is ever unbounded.
//
// Fields: MaxRetries, MinWait and MaxWait (time.Duration).
type RetryPolicy = core.RetryPolicy

// Client talks to the service. Create it with [NewClient]; it is safe for
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
	core    *core.Client
	logger  *slog.Logger
	common  service

	// served holds the spellings this client found the service to serve.
	served servedSpellings
	// managed is the key or keys a user write sends managed groups under.
	managed ManagedGroupsField
}

// service is what every resource service holds: the client it belongs to.
type service struct {
	client *Client
}

// Option configures a [Client] in [NewClient]. An option given a bad value
// makes NewClient fail with [ErrInvalidInput] (the first bad value given);
// a nil Option is skipped. Nil or zero is a bad value unless the option
// says what it means. The same options configure a
// safetyculture.Client.
type Option = core.Option

// WithBaseURL sets the service's base URL (default [DefaultBaseURL]). It must
// be an absolute http or https URL; it may carry a path prefix, which every
// request keeps.
func WithBaseURL(rawURL string) Option {
	return func(c *core.Config) error {
		u, err := parseBaseURL(rawURL)
		if err != nil {
			return err
		}
		c.BaseURL = u
		return nil
	}
}

// WithHTTPClient makes requests go through hc: its Transport, Timeout,
// Jar and CheckRedirect are kept. Its Transport is wrapped, never replaced,
// by the layer that applies the rate limit and keeps the token from other
// hosts. A nil hc is an error.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *core.Config) error {
		if hc == nil {
			return fmt.Errorf("%w: WithHTTPClient(nil)", ErrInvalidInput)
		}
		c.HTTPClient = hc
		return nil
	}
}

// WithRetry sets the retry policy (default DefaultRetryPolicy()).
func WithRetry(p RetryPolicy) Option {
	return func(c *core.Config) error {
		p, err := core.NormalizeRetry(p)
		if err != nil {
			return err
		}
		c.Retry = p
		return nil
	}
}

// WithLimiter sets the limiter every attempt waits on (default
// NewWindowLimiter([DefaultBudget], [DefaultBudgetWindow])). Use one limiter,
// or one redislimit key, for everything that spends one account's budget.
// A nil l turns client-side limiting off.
func WithLimiter(l Limiter) Option {
	return func(c *core.Config) error {
		c.Limiter, c.LimiterSet = l, true
		return nil
	}
}

// WithRouteLimiter gives each route the limiter limiterFor returns for it,
// instead of one limiter for every call; route is "METHOD /path/template"
// ("GET /v2/users/{userId}"). It is asked once per route, when the route
// is first used; a nil limiter leaves that route unlimited on the client
// side, and several routes may share one limiter. Each route then also
// pauses on its own after a 429, since the service answered for that route
// only. It wins over [WithLimiter]. A safetyculture.Client limits each route
// this way by default (see safetyculture.LimitFor); to share a fleet's
// budget, return a redislimit limiter keyed by redislimit.KeyForRoute(token,
// route). A nil limiterFor is an error.
func WithRouteLimiter(limiterFor func(route string) Limiter) Option {
	return func(c *core.Config) error {
		if limiterFor == nil {
			return fmt.Errorf("%w: WithRouteLimiter(nil)", ErrInvalidInput)
		}
		c.LimiterFor = limiterFor
		return nil
	}
}

// WithRateLimit replaces the default limiter with a smoothed one on
// x/time/rate: limit requests per second with the given burst. rate.Inf
// turns client-side limiting off. Such a limiter has no lanes. A limit of
// 0 or less, or a burst below 1, is an error.
func WithRateLimit(limit rate.Limit, burst int) Option {
	return func(c *core.Config) error {
		switch {
		case limit == rate.Inf:
			c.Limiter, c.LimiterSet = nil, true
		case !(limit > 0) || burst < 1:
			return fmt.Errorf("%w: WithRateLimit(%v, %d) needs a positive limit and a burst of at least 1 (rate.Inf turns it off)", ErrInvalidInput, limit, burst)
		default:
			c.Limiter, c.LimiterSet = rate.NewLimiter(limit, burst), true
		}
		return nil
	}
}

// WithMaxResponseBytes bounds a successful answer's body (default
// [DefaultMaxResponseBytes]); a larger answer is an error. A failed answer's
// body is read up to 64 KiB, whatever this says. A size below 1 is an
// error.
func WithMaxResponseBytes(n int64) Option {
	return func(c *core.Config) error {
		if n <= 0 {
			return fmt.Errorf("%w: WithMaxResponseBytes(%d) needs a positive size", ErrInvalidInput, n)
		}
		c.MaxBody = n
		return nil
	}
}

// WithUserAgent puts ua in front of the SDK's own "edapp-go/<version>" in
// the User-Agent header. A ua with a control character is an error.
func WithUserAgent(ua string) Option {
	return func(c *core.Config) error {
		if strings.ContainsFunc(ua, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return fmt.Errorf("%w: WithUserAgent(%q): a header value holds no control characters", ErrInvalidInput, ua)
		}
		c.UserAgent = ua
		return nil
	}
}

// withTransportClock makes the client read the time from now and wait on
// newTimer's timers (a pause after a 429, a backoff, a long wait's log
// line), for tests; the limiter has its own clock (withClock).
func withTransportClock(now func() time.Time, newTimer func(d time.Duration) (<-chan time.Time, func() bool)) Option {
	return func(c *core.Config) error {
		c.Clock = transport.Clock{Now: now, NewTimer: newTimer}
		return nil
	}
}

// WithLogger sends a debug line per attempt, and an info line per retry,
// per pause the service asked for and per wait of over a second for the
// request budget, to l. Nil (the default) is silent. Lines carry the
// method, host, path, status and duration: never headers, query strings,
// bodies or tokens.
func WithLogger(l *slog.Logger) Option {
	return func(c *core.Config) error { c.Logger = l; return nil }
}

// NewClient returns a client that authenticates with the account's API
// token, which comes from the admin portal (settings, API details); every
// request carries it as "Authorization: Bearer <token>". An empty token or
// a bad option value is an error, and no request is ever sent with one.
func NewClient(token string, opts ...Option) (*Client, error) {
	if err := checkToken(token); err != nil {
		return nil, err
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return newClient(token, cfg), nil
}

// The environment variables NewClientFromEnv reads.
const (
	EnvAPIToken = "EDAPP_API_TOKEN" // required: the account's API token
	EnvBaseURL  = "EDAPP_BASE_URL"  // optional: the base URL (default DefaultBaseURL)
)

// NewClientFromEnv is [NewClient] with the token from EDAPP_API_TOKEN, which
// must be set, and the base URL from EDAPP_BASE_URL, when it is set and no
// [WithBaseURL] is given: explicit options win over the environment. A bad
// value in either variable is an error that names the variable, never its
// value. WithLookupEnv replaces os.LookupEnv, for tests.
func NewClientFromEnv(opts ...Option) (*Client, error) {
	given := given(opts)
	lookup := os.LookupEnv
	if given.LookupEnv != nil {
		lookup = given.LookupEnv
	}
	token, _ := lookup(EnvAPIToken)
	if err := checkToken(token); err != nil {
		return nil, fmt.Errorf("%s: %w", EnvAPIToken, err)
	}
	if raw, ok := lookup(EnvBaseURL); ok && strings.TrimSpace(raw) != "" && given.BaseURL == nil {
		if _, err := parseBaseURL(raw); err != nil {
			return nil, fmt.Errorf("%w: %s is not an absolute http or https URL without credentials, query or fragment", ErrInvalidInput, EnvBaseURL)
		}
		opts = append([]Option{WithBaseURL(raw)}, opts...)
	}
	return NewClient(token, opts...)
}

// WithLookupEnv makes [NewClientFromEnv] read the environment through
// lookup instead of os.LookupEnv; other constructors ignore it. A nil
// lookup is an error.
func WithLookupEnv(lookup func(key string) (string, bool)) Option {
	return func(c *core.Config) error {
		if lookup == nil {
			return fmt.Errorf("%w: WithLookupEnv(nil)", ErrInvalidInput)
		}
		c.LookupEnv = lookup
		return nil
	}
}

// given is what opts set, bad values left out: what NewClientFromEnv needs
// to know before NewClient checks them.
func given(opts []Option) *core.Config {
	cfg := &core.Config{}
	for _, o := range opts {
		if o != nil {
			_ = o(cfg)
		}
	}
	return cfg
}

func checkToken(token string) error {
	if strings.TrimSpace(token) == "" {
		return fmt.Errorf("%w: the API token is empty", ErrInvalidInput)
	}
	if strings.ContainsAny(token, "\r\n") {
		return fmt.Errorf("%w: the API token contains a line break", ErrInvalidInput)
	}
	return nil
}

// newConfig applies opts over the defaults.
func newConfig(opts []Option) (*core.Config, error) {
	cfg, err := applyOptions(DefaultBaseURL, opts)
	if err != nil {
		return nil, err
	}
	if !cfg.LimiterSet {
		cfg.Limiter = newDefaultLimiter()
	}
	return cfg, nil
}

// applyOptions applies opts over the defaults, with base as the base URL
// unless an option sets one, and returns the first bad value's error.
func applyOptions(base string, opts []Option) (*core.Config, error) {
	u, err := parseBaseURL(base)
	if err != nil {
		return nil, err
	}
	cfg := &core.Config{BaseURL: u, Retry: DefaultRetryPolicy(), MaxBody: DefaultMaxResponseBytes, AttemptTimeout: DefaultAttemptTimeout}
	if err := core.Apply(cfg, opts); err != nil {
		return nil, err
	}
	return cfg, nil
}

// newClient builds a client from a checked token and config.
func newClient(token string, cfg *core.Config) *Client {
	c := &Client{baseURL: cfg.BaseURL, logger: cfg.Logger, core: core.NewClient(token, Version, cfg, DefaultBudgetWindow), managed: cfg.ManagedGroups}
	c.common.client = c
	c.Users = (*UsersService)(&c.common)
	c.UserGroups = (*UserGroupsService)(&c.common)
	c.Catalog = (*CatalogService)(&c.common)
	c.Analytics = (*AnalyticsService)(&c.common)
	c.Webhooks = (*WebhooksService)(&c.common)
	return c
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
// or a pointer to decode the JSON answer into. An [Observer] sees the call
// under the route given by [WithRoute], or "custom".
//
// A non-2xx answer is an *[APIError]. A 2xx answer that is not valid JSON for
// out is a *[DecodeError]. A done ctx returns ctx's error.
func (c *Client) Do(ctx context.Context, method, path string, query, body, out any, reqOpts ...RequestOption) error {
	rc := core.NewRequestConfig(reqOpts)
	op := core.Operation{Method: method, Route: rc.Route, Path: path, Query: query, Body: body}
	return c.core.Do(ctx, op, &rc, func(a *core.Answer) error { return a.DecodeJSON(ctx, out) })
}

// request returns the operation at p: its path, and its route for the Observer.
func request(method string, p ids.Path, query, body any) core.Operation {
	return core.Operation{Method: method, Route: p.Route, Path: p.Path, Query: query, Body: body}
}
