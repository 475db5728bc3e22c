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
	"github.com/edapp-go/edapp/internal/core"
)

// DefaultBaseURL is SafetyCulture's API host. The service also answers as
// api.mitti.com since its rebrand; set that with edapp.WithBaseURL once it is
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

	base   *url.URL
	core   *core.Client // a transport, limiter and pause per route
	logger *slog.Logger
	warnMu sync.Mutex
	warned map[string]bool // routes whose x-ratelimit-limit disagreement was logged

	common service
}

// service is what every service holds: the client it belongs to.
type service struct{ client *Client }

// NewClient returns a client that sends token as "Authorization: Bearer
// <token>" on every request: a user API token (My Profile, Settings, API
// tokens) or a service user's. It takes the root package's options
// (edapp.WithBaseURL, WithHTTPClient, WithRetry, WithLogger, WithObserver,
// WithUserAgent, WithMaxResponseBytes, WithLimiter, WithRouteLimiter), with
// DefaultBaseURL as the base URL unless one is given. Each endpoint has a
// limiter of its own with its class's limit (see [LimitFor]) and pauses on
// its own after a 429, unless edapp.WithRouteLimiter gives limiters per
// route, or edapp.WithLimiter one limiter for every route (nil: none). The
// logger also hears of a disagreement between the service's
// x-ratelimit-limit and the limit assumed, once per endpoint. An empty
// token or a bad option value is an error wrapping [edapp.ErrInvalidInput].
func NewClient(token string, opts ...edapp.Option) (*Client, error) {
	if strings.TrimSpace(token) == "" {
		return nil, fmt.Errorf("%w: the API token is empty", edapp.ErrInvalidInput)
	}
	if strings.ContainsAny(token, "\r\n") {
		return nil, fmt.Errorf("%w: the API token contains a line break", edapp.ErrInvalidInput)
	}
	cfg := &core.Config{Retry: edapp.DefaultRetryPolicy(), MaxBody: edapp.DefaultMaxResponseBytes, AttemptTimeout: edapp.DefaultAttemptTimeout}
	if err := core.Apply(cfg, append([]edapp.Option{edapp.WithBaseURL(DefaultBaseURL)}, opts...)); err != nil {
		return nil, err
	}
	switch {
	case cfg.LimiterFor != nil:
	case cfg.LimiterSet:
		l := cfg.Limiter
		cfg.LimiterFor = func(string) edapp.Limiter { return l }
	default:
		cfg.LimiterFor = classLimiter
	}
	c := &Client{base: cfg.BaseURL, core: core.NewClient(token, edapp.Version, cfg, limitWindow), logger: cfg.Logger, warned: make(map[string]bool)}
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
// SAFETYCULTURE_BASE_URL when it is set and no edapp.WithBaseURL is given.
// edapp.WithLookupEnv replaces os.LookupEnv, for tests. An error names the
// variable, never its value.
func NewClientFromEnv(opts ...edapp.Option) (*Client, error) {
	given := &core.Config{}
	for _, o := range opts {
		if o != nil {
			_ = o(given) // NewClient reports a bad value
		}
	}
	lookup := os.LookupEnv
	if given.LookupEnv != nil {
		lookup = given.LookupEnv
	}
	token, _ := lookup(EnvAPIToken)
	if strings.TrimSpace(token) == "" || strings.ContainsAny(token, "\r\n") {
		return nil, fmt.Errorf("%w: %s is not set, or is not a token", edapp.ErrInvalidInput, EnvAPIToken)
	}
	if raw, _ := lookup(EnvBaseURL); strings.TrimSpace(raw) != "" && given.BaseURL == nil {
		if err := edapp.WithBaseURL(raw)(&core.Config{}); err != nil {
			return nil, fmt.Errorf("%w: %s is not an absolute http or https URL without credentials, query or fragment", edapp.ErrInvalidInput, EnvBaseURL)
		}
		opts = append([]edapp.Option{edapp.WithBaseURL(raw)}, opts...)
	}
	return NewClient(token, opts...)
}

// BaseURL returns the base URL requests go to.
func (c *Client) BaseURL() string { return c.base.String() }

// String describes the client without its token.
func (c *Client) String() string { return "safetyculture.Client{" + c.base.String() + "}" }

// GoString keeps %#v from printing the token.
func (c *Client) GoString() string { return c.String() }

// send sends op, with the caller's request options reqOpts and then the
// client's own: the integration headers (under the caller's of the same
// name), the rate-limit check of every answer, and then extra. out is nil,
// or where a 2xx answer is decoded; record: an empty 2xx answer is a
// *edapp.DecodeError. It returns the call's Response, also when it failed.
func (c *Client) send(ctx context.Context, op core.Operation, out any, record bool, reqOpts []edapp.RequestOption, extra ...core.RequestOption) (*edapp.Response, error) {
	rc := core.NewRequestConfig(reqOpts)
	own := append([]core.RequestOption{
		core.WithHeaders(http.Header{
			"Sc-Integration-Id":      {IntegrationID},
			"Sc-Integration-Version": {edapp.Version},
			"X-Request-Id":           {newRequestID()},
		}),
		core.WithAnswered(func(status int, h http.Header) { c.answered(ctx, op.Method+" "+op.Route, h) }),
	}, extra...)
	for _, o := range own {
		_ = o(&rc) // the client's own options take no bad values
	}
	if rc.Resp == nil {
		rc.Resp = new(edapp.Response)
	}
	err := c.core.Do(ctx, op, &rc, func(a *core.Answer) error {
		if record {
			return a.DecodeRecord(ctx, out)
		}
		return a.DecodeJSON(ctx, out)
	})
	return rc.Resp, err
}

// newRequestID returns 16 random bytes in hex.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}
