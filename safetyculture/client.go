package safetyculture

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/bridge"
)

// DefaultBaseURL is SafetyCulture's API host. The service also answers as
// api.mitti.com since its rebrand; set that with [WithBaseURL] once it is
// known to serve Training for your account.
const DefaultBaseURL = "https://api.safetyculture.io"

// The environment variables NewClientFromEnv reads.
const (
	EnvAPIToken = "SAFETYCULTURE_API_TOKEN" // required: a user or service user API token
	EnvBaseURL  = "SAFETYCULTURE_BASE_URL"  // optional: the base URL (default DefaultBaseURL)
)

// IntegrationID is sent in the sc-integration-id header, and the SDK's
// version (edapp.Version) in sc-integration-version: they tell
// SafetyCulture which integration is calling, as its own clients do.
const IntegrationID = "edapp-go"

// Client talks to SafetyCulture's Training API. Create it with
// [NewClient]; it is safe for concurrent use. Its fields are the
// services, one per family of operations.
type Client struct {
	Courses      *CoursesService      // courses, their lessons, assignments and progress reset
	Collections  *CollectionsService  // course collections and their courses
	Paths        *PathsService        // learning paths
	RapidRefresh *RapidRefreshService // rapid refresh quizzes
	Leaderboards *LeaderboardsService // individual leaderboards and their rankings
	Analytics    *AnalyticsService    // the eleven analytics reads
	Feeds        *FeedsService        // the data feeds: course progress, users, groups, sites
	Webhooks     *WebhooksService     // webhook registrations and their signature secret

	base       *url.URL
	bc         *bridge.Config // the root's config for every route; behind a pointer, since it holds the token
	limiterFor func(route string) edapp.Limiter
	logger     *slog.Logger

	mu     sync.Mutex
	routes map[string]*route // by route ("GET /training/courses/v1")

	common service
}

// service is what every service holds: the client it belongs to.
type service struct{ client *Client }

// Option configures a [Client] in [NewClient]. A bad value makes NewClient
// fail with an error wrapping [edapp.ErrInvalidInput]; a nil Option is
// skipped.
type Option func(*config)

type config struct {
	root       []edapp.Option // validated by the root package, as its own
	limiterFor func(string) edapp.Limiter
	limiterSet bool
	err        error
}

// WithBaseURL sets the base URL (default [DefaultBaseURL]): an absolute
// http or https URL, which may carry a path prefix.
func WithBaseURL(rawURL string) Option {
	return func(c *config) { c.root = append(c.root, edapp.WithBaseURL(rawURL)) }
}

// WithHTTPClient makes requests go through hc, as [edapp.WithHTTPClient]
// does: its Transport is wrapped, never replaced.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.root = append(c.root, edapp.WithHTTPClient(hc)) }
}

// WithRetry sets the retry policy (default edapp.DefaultRetryPolicy()),
// with the rules of [edapp.RetryPolicy].
func WithRetry(p edapp.RetryPolicy) Option {
	return func(c *config) { c.root = append(c.root, edapp.WithRetry(p)) }
}

// WithLogger logs as [edapp.WithLogger] does, and also a disagreement
// between the service's x-ratelimit-limit and the limit the client
// assumed (once per endpoint), and each 429 with the endpoint it pauses.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.root = append(c.root, edapp.WithLogger(l)) }
}

// WithObserver reports calls, attempts, waits and pages as
// [edapp.WithObserver] does; routes are the path templates
// ("/training/courses/v1/{courseId}/lessons").
func WithObserver(o edapp.Observer) Option {
	return func(c *config) { c.root = append(c.root, edapp.WithObserver(o)) }
}

// WithUserAgent puts ua in front of the SDK's own User-Agent.
func WithUserAgent(ua string) Option {
	return func(c *config) { c.root = append(c.root, edapp.WithUserAgent(ua)) }
}

// WithMaxResponseBytes bounds a successful answer's body, as
// [edapp.WithMaxResponseBytes] does (default edapp.DefaultMaxResponseBytes).
func WithMaxResponseBytes(n int64) Option {
	return func(c *config) { c.root = append(c.root, edapp.WithMaxResponseBytes(n)) }
}

// WithLimiter gives each endpoint the limiter limiterFor returns for its
// route, "METHOD /path/template" (see [Routes] and [LimitFor]), instead of
// a window limiter of its own with its class's limit. It is asked once
// per route, when the route is first used; a nil limiter leaves that
// route unlimited on the client side. Several routes may share one
// limiter. To share a fleet's budget, return a redislimit limiter keyed by
// redislimit.KeyForRoute(token, route). A nil limiterFor is an error.
func WithLimiter(limiterFor func(route string) edapp.Limiter) Option {
	return func(c *config) {
		if limiterFor == nil {
			c.fail(fmt.Errorf("%w: safetyculture.WithLimiter(nil)", edapp.ErrInvalidInput))
			return
		}
		c.limiterFor, c.limiterSet = limiterFor, true
	}
}

func (c *config) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// NewClient returns a client that sends token as "Authorization: Bearer
// <token>" on every request: a user API token (My Profile, Settings, API
// tokens) or a service user's. An empty token or a bad option is an error.
func NewClient(token string, opts ...Option) (*Client, error) {
	if strings.TrimSpace(token) == "" {
		return nil, fmt.Errorf("%w: the API token is empty", edapp.ErrInvalidInput)
	}
	if strings.ContainsAny(token, "\r\n") {
		return nil, fmt.Errorf("%w: the API token contains a line break", edapp.ErrInvalidInput)
	}
	var cfg config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	bc, err := bridge.NewConfig(cfg.root, DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	bc.Token, bc.MaxPause = token, limitWindow
	c := &Client{base: bc.BaseURL, bc: &bc, limiterFor: cfg.limiterFor, logger: bc.Logger, routes: make(map[string]*route)}
	c.common.client = c
	c.Courses = (*CoursesService)(&c.common)
	c.Collections = (*CollectionsService)(&c.common)
	c.Paths = (*PathsService)(&c.common)
	c.RapidRefresh = (*RapidRefreshService)(&c.common)
	c.Leaderboards = (*LeaderboardsService)(&c.common)
	c.Analytics = (*AnalyticsService)(&c.common)
	c.Feeds = (*FeedsService)(&c.common)
	c.Webhooks = (*WebhooksService)(&c.common)
	return c, nil
}

// NewClientFromEnv is [NewClient] with the token from
// SAFETYCULTURE_API_TOKEN, which must be set, and the base URL from
// SAFETYCULTURE_BASE_URL when it is set and no [WithBaseURL] is given. An
// error names the variable, never its value.
func NewClientFromEnv(opts ...Option) (*Client, error) {
	token := os.Getenv(EnvAPIToken)
	if strings.TrimSpace(token) == "" || strings.ContainsAny(token, "\r\n") {
		return nil, fmt.Errorf("%w: %s is not set, or is not a token", edapp.ErrInvalidInput, EnvAPIToken)
	}
	if raw := strings.TrimSpace(os.Getenv(EnvBaseURL)); raw != "" {
		if _, err := bridge.NewConfig([]edapp.Option{edapp.WithBaseURL(raw)}, DefaultBaseURL); err != nil {
			return nil, fmt.Errorf("%w: %s is not an absolute http or https URL without credentials, query or fragment", edapp.ErrInvalidInput, EnvBaseURL)
		}
		opts = append([]Option{WithBaseURL(raw)}, opts...) // a later WithBaseURL wins
	}
	return NewClient(token, opts...)
}

// BaseURL returns the base URL requests go to.
func (c *Client) BaseURL() string { return c.base.String() }

// String describes the client without its token.
func (c *Client) String() string { return "safetyculture.Client{" + c.base.String() + "}" }

// GoString keeps %#v from printing the token.
func (c *Client) GoString() string { return c.String() }

// send sends one call on its route's own transport.
func (c *Client) send(ctx context.Context, call *bridge.Call) (*edapp.Response, error) {
	r, err := c.route(call.Method, call.Route)
	if err != nil {
		return nil, err
	}
	call.Header = http.Header{
		"Sc-Integration-Id":      {IntegrationID},
		"Sc-Integration-Version": {edapp.Version},
		"X-Request-Id":           {newRequestID()},
	}
	call.Answered = func(status int, h http.Header) { r.answered(ctx, c.logger, status, h) }
	resp, err := r.caller.Do(ctx, call)
	er, _ := resp.(*edapp.Response)
	return er, err
}

// newRequestID returns 16 random bytes in hex.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}
