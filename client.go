package edapp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/google/go-querystring/query"
	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp/internal/bridge"
	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/lenient"
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
	return RetryPolicy{MaxRetries: 4, MinWait: 500 * time.Millisecond, MaxWait: defaultMaxWait}
}

const defaultMaxWait = 30 * time.Second

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

	baseURL  *url.URL
	t        *transport.Client
	logger   *slog.Logger
	observer *observer // nil: no Observer callbacks
	common   service

	// served holds the spellings this client found the service to serve.
	served servedSpellings
}

// service is what every resource service holds: the client it belongs to.
type service struct {
	client *Client
}

// Option configures a [Client] in [NewClient]. An option given a bad value
// makes NewClient fail with [ErrInvalidInput] (the first bad value given);
// a nil Option is skipped. Nil or zero is a bad value unless the option
// says what it means.
type Option func(*config)

type config struct {
	baseURL    *url.URL
	httpClient *http.Client
	retry      RetryPolicy
	limiter    Limiter
	limiterSet bool // WithLimiter or WithRateLimit replaced the default
	userAgent  string
	logger     *slog.Logger
	maxBody    int64
	observer   Observer
	lookupEnv  func(string) (string, bool) // NewClientFromEnv's
	maxPause   time.Duration               // the longest pause a 429 can ask for; 0: DefaultBudgetWindow
	pauseScope string                      // what a 429 pauses, for the log; "": every request
	clock      transport.Clock             // withTransportClock's; zero: the real clock
	err        error                       // the first bad option value

	attemptTimeout time.Duration // WithAttemptTimeout's
}

// fail records the first bad option value; NewClient returns it.
func (c *config) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// WithBaseURL sets the service's base URL (default [DefaultBaseURL]). It must
// be an absolute http or https URL; it may carry a path prefix, which every
// request keeps.
func WithBaseURL(rawURL string) Option {
	return func(c *config) {
		u, err := parseBaseURL(rawURL)
		if err != nil {
			c.fail(err)
			return
		}
		c.baseURL = u
	}
}

// WithHTTPClient makes requests go through hc: its Transport, Timeout,
// Jar and CheckRedirect are kept. Its Transport is wrapped, never replaced,
// by the layer that applies the rate limit and keeps the token from other
// hosts. A nil hc is an error.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) {
		if hc == nil {
			c.fail(fmt.Errorf("%w: WithHTTPClient(nil)", ErrInvalidInput))
			return
		}
		c.httpClient = hc
	}
}

// WithRetry sets the retry policy (default DefaultRetryPolicy()).
func WithRetry(p RetryPolicy) Option {
	return func(c *config) {
		p, err := p.normalize()
		if err != nil {
			c.fail(err)
			return
		}
		c.retry = p
	}
}

// WithLimiter sets the limiter every attempt waits on (default
// NewWindowLimiter([DefaultBudget], [DefaultBudgetWindow])). Use one limiter,
// or one redislimit key, for everything that spends one account's budget.
// A nil l turns client-side limiting off.
func WithLimiter(l Limiter) Option {
	return func(c *config) { c.limiter, c.limiterSet = l, true }
}

// WithRateLimit replaces the default limiter with a smoothed one on
// x/time/rate: limit requests per second with the given burst. rate.Inf
// turns client-side limiting off. Such a limiter has no lanes. A limit of
// 0 or less, or a burst below 1, is an error.
func WithRateLimit(limit rate.Limit, burst int) Option {
	return func(c *config) {
		switch {
		case limit == rate.Inf:
			c.limiter, c.limiterSet = nil, true
		case !(limit > 0) || burst < 1:
			c.fail(fmt.Errorf("%w: WithRateLimit(%v, %d) needs a positive limit and a burst of at least 1 (rate.Inf turns it off)", ErrInvalidInput, limit, burst))
		default:
			c.limiter, c.limiterSet = rate.NewLimiter(limit, burst), true
		}
	}
}

// WithMaxResponseBytes bounds a successful answer's body (default
// [DefaultMaxResponseBytes]); a larger answer is an error. A failed answer's
// body is read up to 64 KiB, whatever this says. A size below 1 is an
// error.
func WithMaxResponseBytes(n int64) Option {
	return func(c *config) {
		if n <= 0 {
			c.fail(fmt.Errorf("%w: WithMaxResponseBytes(%d) needs a positive size", ErrInvalidInput, n))
			return
		}
		c.maxBody = n
	}
}

// WithUserAgent puts ua in front of the SDK's own "edapp-go/<version>" in
// the User-Agent header. A ua with a control character is an error.
func WithUserAgent(ua string) Option {
	return func(c *config) {
		if strings.ContainsFunc(ua, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			c.fail(fmt.Errorf("%w: WithUserAgent(%q): a header value holds no control characters", ErrInvalidInput, ua))
			return
		}
		c.userAgent = ua
	}
}

// withTransportClock makes the client read the time from now and wait on
// newTimer's timers (a pause after a 429, a backoff, a long wait's log
// line), for tests; the limiter has its own clock (withClock).
func withTransportClock(now func() time.Time, newTimer func(d time.Duration) (<-chan time.Time, func() bool)) Option {
	return func(c *config) { c.clock = transport.Clock{Now: now, NewTimer: newTimer} }
}

// WithLogger sends a debug line per attempt, and an info line per retry,
// per pause the service asked for and per wait of over a second for the
// request budget, to l. Nil (the default) is silent. Lines carry the
// method, host, path, status and duration: never headers, query strings,
// bodies or tokens.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

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
	given := &config{}
	for _, opt := range opts {
		if opt != nil {
			opt(given)
		}
	}
	lookup := os.LookupEnv
	if given.lookupEnv != nil {
		lookup = given.lookupEnv
	}
	token, _ := lookup(EnvAPIToken)
	if err := checkToken(token); err != nil {
		return nil, fmt.Errorf("%s: %w", EnvAPIToken, err)
	}
	if raw, ok := lookup(EnvBaseURL); ok && strings.TrimSpace(raw) != "" && given.baseURL == nil {
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
	return func(c *config) {
		if lookup == nil {
			c.fail(fmt.Errorf("%w: WithLookupEnv(nil)", ErrInvalidInput))
			return
		}
		c.lookupEnv = lookup
	}
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
func newConfig(opts []Option) (*config, error) {
	cfg, err := applyOptions(DefaultBaseURL, opts)
	if err != nil {
		return nil, err
	}
	if !cfg.limiterSet {
		cfg.limiter = newDefaultLimiter()
	}
	return cfg, nil
}

// applyOptions applies opts over the defaults, with base as the base URL
// unless an option sets one.
func applyOptions(base string, opts []Option) (*config, error) {
	u, err := parseBaseURL(base)
	if err != nil {
		return nil, err
	}
	cfg := &config{baseURL: u, retry: DefaultRetryPolicy(), maxBody: DefaultMaxResponseBytes, attemptTimeout: DefaultAttemptTimeout}
	for _, opt := range opts {
		if opt != nil {
			opt(cfg)
		}
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	return cfg, nil
}

// newClient builds a client from a checked token and config.
func newClient(token string, cfg *config) *Client {
	ua := "edapp-go/" + Version
	if cfg.userAgent != "" {
		ua = cfg.userAgent + " " + ua
	}
	c := &Client{baseURL: cfg.baseURL, logger: cfg.logger, observer: newObserver(cfg.observer, cfg.logger)}
	tc := transport.Config{
		BaseURL:    cfg.baseURL,
		Token:      token,
		UserAgent:  ua,
		HTTPClient: cfg.httpClient,
		Limiter:    transportLimiter(cfg.limiter),
		Retry:      transport.Policy(cfg.retry),
		MaxPause:   cmp.Or(cfg.maxPause, DefaultBudgetWindow),
		Logger:     cfg.logger,
		MaxBody:    cfg.maxBody,
		PauseScope: cfg.pauseScope,
		Clock:      cfg.clock,

		AttemptTimeout: cfg.attemptTimeout,
	}
	if c.observer != nil {
		tc.Observer = c.observer
	}
	c.t = transport.New(tc)
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
func (c *Client) Do(ctx context.Context, method, path string, query, body, out any, opts ...RequestOption) error {
	rc := newRequestConfig(opts)
	op := operation{method: method, route: rc.route, path: path, query: query, body: body}
	return c.do(ctx, op, &rc, func(a *answer) error { return a.decodeJSON(ctx, out) })
}

// operation is one request as a resource method or Do describes it.
type operation struct {
	method string
	route  string // the path's template ("/v2/users/{userId}"), for the Observer
	path   string
	query  any
	body   any
}

// request returns the operation at p: its path, and its route for the Observer.
func request(method string, p ids.Path, query, body any) operation {
	return operation{method: method, route: p.Route, path: p.Path, query: query, body: body}
}

// answer is a finished call while its body is still held. The Response is
// built only when something needs it: most successful calls never do.
type answer struct {
	c    *Client
	op   operation
	tr   *transport.Response // nil until the transport has answered
	resp *Response
}

// response returns the call's Response, building it on first use.
func (a *answer) response() *Response {
	if a.resp == nil {
		if a.tr == nil {
			a.resp = &Response{}
		} else {
			a.resp = a.c.response(a.tr)
		}
	}
	return a.resp
}

// body returns the answer's body, trimmed of white space.
func (a *answer) body() []byte { return bytes.TrimSpace(a.tr.Body) }

// do sends op with the call's options, turns a non-2xx answer into an
// *APIError, and hands a 2xx answer to decode while its body is held. It
// fills the caller's WithResponseInto on every path, and reports the call
// to the Observer.
func (c *Client) do(ctx context.Context, op operation, rc *requestConfig, decode func(*answer) error) (err error) {
	a := &answer{c: c, op: op}
	if c.observer != nil {
		var start time.Time
		ctx, start = c.observer.callStart(ctx, &op)
		defer func() { c.observer.callEnd(ctx, &op, a.tr, err, start) }()
	}
	if rc.resp != nil {
		defer func() { *rc.resp = *a.response() }()
	}
	req, err := c.transportRequest(ctx, &op, rc)
	if err != nil {
		return err
	}
	a.tr, err = c.t.Do(ctx, req) // holds a place of rc.inFlight while an attempt is sent and read
	defer a.tr.Release()
	if err != nil {
		return err
	}
	if a.tr.StatusCode < 200 || a.tr.StatusCode > 299 {
		return c.newAPIError(op.method, op.path, a.tr, a.response())
	}
	return decode(a)
}

// transportRequest checks and encodes what op and the options say to send.
func (c *Client) transportRequest(ctx context.Context, op *operation, rc *requestConfig) (transport.Request, error) {
	if ctx == nil {
		return transport.Request{}, fmt.Errorf("%w: nil context", ErrInvalidInput)
	}
	if rc.err != nil {
		return transport.Request{}, rc.err
	}
	if !strings.HasPrefix(op.path, "/") || strings.ContainsAny(op.path, "?#") {
		return transport.Request{}, fmt.Errorf("%w: path %q must start with / and carry no query (use the query argument)", ErrInvalidInput, op.path)
	}
	rawQuery, err := encodeQuery(op.query)
	if err != nil {
		return transport.Request{}, err
	}
	payload, err := encodeBody(op.body)
	if err != nil {
		return transport.Request{}, err
	}
	req := transport.Request{
		Method: op.method, Path: op.path, Route: op.route, RawQuery: rawQuery, Body: payload,
		Header: rc.header, Bulk: rc.bulk, MaxThrottle: rc.maxThrottle, Once: rc.once, InFlight: rc.inFlight,
	}
	if rc.retry != nil {
		p := transport.Policy(*rc.retry)
		req.Retry = &p
	}
	return req, nil
}

// decodeJSON decodes a 2xx answer into out; an empty answer or a nil out
// decodes nothing. Values that do not fit are dropped, listed in the
// Response and logged.
func (a *answer) decodeJSON(ctx context.Context, out any) error {
	body := a.body()
	if out == nil || len(body) == 0 {
		return nil
	}
	dropped, err := lenient.Decode(body, out)
	if err != nil {
		return a.decodeError(err)
	}
	if len(dropped) > 0 {
		a.response().Dropped = dropped
		if log := a.c.logger; log != nil {
			log.LogAttrs(ctx, slog.LevelWarn, "edapp: dropped values that did not decode",
				slog.String("method", a.op.method), slog.String("path", a.op.path), slog.Any("fields", dropped))
		}
	}
	return nil
}

// decodeRecord is decodeJSON for an answer that must hold a record: an
// empty answer is a *DecodeError.
func (a *answer) decodeRecord(ctx context.Context, out any) error {
	if len(a.body()) == 0 {
		return a.decodeError(errEmptyAnswer)
	}
	return a.decodeJSON(ctx, out)
}

// digest returns a digest of a non-empty body, and 0 for an empty one.
func (a *answer) digest() uint64 {
	if body := a.body(); len(body) > 0 {
		return maphash.Bytes(digestSeed, body)
	}
	return 0
}

var digestSeed = maphash.MakeSeed()

// errEmptyAnswer is a 2xx answer with no body where a record was expected.
var errEmptyAnswer = errors.New("the answer is empty")

func (a *answer) decodeError(err error) *DecodeError {
	return &DecodeError{
		StatusCode: a.tr.StatusCode,
		Method:     a.op.method,
		Path:       a.op.path,
		Body:       a.c.cleanExcerpt(a.tr.Body, decodeExcerpt),
		Err:        err,
		Response:   a.response(),
	}
}

// isNil reports a nil interface, or one holding a nil pointer.
func isNil(x any) bool {
	if x == nil {
		return true
	}
	v := reflect.ValueOf(x)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

func encodeQuery(q any) (string, error) {
	switch v := q.(type) {
	case nil:
		return "", nil
	case url.Values:
		return v.Encode(), nil
	case bridge.RawQuery:
		return string(v), nil
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
