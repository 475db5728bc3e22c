// Package core is the call engine both clients of the module share: a
// call's options, the Response and the typed errors, the Observer, the
// limiter and the pause after a 429, and lenient decoding. Package edapp
// re-exports its public types as aliases; package safetyculture builds its
// client on it directly.
package core

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
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/google/go-querystring/query"

	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/edapp-go/edapp/internal/opt"
	"github.com/edapp-go/edapp/internal/redact"
	"github.com/edapp-go/edapp/internal/transport"
)

// RetryPolicy says how often and how long to retry (see edapp.RetryPolicy).
type RetryPolicy struct {
	MaxRetries int
	MinWait    time.Duration
	MaxWait    time.Duration
}

// DefaultMaxWait is the cap of a retry policy whose MaxWait is 0.
const DefaultMaxWait = 30 * time.Second

// NormalizeRetry applies the default cap and checks the policy. It is a
// function, not a method, so that it stays out of the public
// RetryPolicy's method set.
func NormalizeRetry(p RetryPolicy) (RetryPolicy, error) {
	if p.MaxWait == 0 {
		p.MaxWait = max(DefaultMaxWait, p.MinWait)
	}
	if p.MaxRetries < 0 || p.MinWait < 0 || p.MaxWait < p.MinWait {
		return p, fmt.Errorf("%w: retry policy needs MaxRetries >= 0 and 0 <= MinWait <= MaxWait", ErrInvalidInput)
	}
	return p, nil
}

// Config is what a client's options set; the root's Option is a func
// that changes one.
type Config struct {
	BaseURL    *url.URL
	HTTPClient *http.Client
	Retry      RetryPolicy
	Limiter    Limiter
	LimiterSet bool // WithLimiter or WithRateLimit replaced the default
	// LimiterFor gives each route ("METHOD /path/template") a limiter of
	// its own; it wins over Limiter for the clients that limit per route.
	LimiterFor func(route string) Limiter
	UserAgent  string
	Logger     *slog.Logger
	MaxBody    int64
	Observer   Observer
	LookupEnv  func(string) (string, bool) // the environment NewClientFromEnv reads
	MaxPause   time.Duration               // the longest pause a 429 can ask for; 0: the caller's default
	PauseScope string                      // what a 429 pauses, for the log; "": every request
	Clock      transport.Clock             // zero: the real clock
	// ManagedGroups says how EdApp's Users.Create and Update send the
	// managed groups.
	ManagedGroups ManagedGroupsField
	// AttemptTimeout bounds one attempt, its body read included; 0: no
	// bound of the client's own.
	AttemptTimeout time.Duration
}

// ManagedGroupsField says under which key a user's managed groups are sent.
type ManagedGroupsField int

const (
	ManagedGroupsBoth ManagedGroupsField = iota // both keys in one body
	ManagedUserGroups                           // "managedUserGroups", the documented key
	UserGroupsManaged                           // "userGroupsManaged", the vendor's tools' key
)

// Option changes a Config; a bad value is its error.
type Option func(*Config) error

// Apply applies opts over cfg in order and returns the first error; a nil
// option is skipped.
func Apply(cfg *Config, opts []Option) error { return opt.Apply(cfg, opts) }

// Client sends calls: through one transport (one limiter, one pause after
// a 429), or, when Config.LimiterFor is set, through one transport per
// route, each with the route's limiter and a pause of its own.
type Client struct {
	t        *transport.Client // nil: one per route
	logger   *slog.Logger
	observer *observer // nil: no Observer callbacks

	// perRoute is the routes' transports' config, but for their limiters
	// and scopes; behind a pointer, since it holds the token and fmt
	// prints a nested pointer as an address.
	perRoute   *transport.Config
	limiterFor func(route string) Limiter
	mu         sync.Mutex
	routes     map[string]*transport.Client // by route, "METHOD /path/template"
}

// NewClient builds a Client for token from cfg. version is the SDK's,
// for the User-Agent header; defaultMaxPause is the longest pause a 429
// can ask for when cfg sets none.
func NewClient(token, version string, cfg *Config, defaultMaxPause time.Duration) *Client {
	ua := "edapp-go/" + version
	if cfg.UserAgent != "" {
		ua = cfg.UserAgent + " " + ua
	}
	c := &Client{logger: cfg.Logger, observer: newObserver(cfg.Observer, cfg.Logger)}
	tc := transport.Config{
		BaseURL:    cfg.BaseURL,
		Token:      token,
		UserAgent:  ua,
		HTTPClient: cfg.HTTPClient,
		Limiter:    transportLimiter(cfg.Limiter),
		Retry:      transport.Policy(cfg.Retry),
		MaxPause:   cmp.Or(cfg.MaxPause, defaultMaxPause),
		Logger:     cfg.Logger,
		MaxBody:    cfg.MaxBody,
		PauseScope: cfg.PauseScope,
		Clock:      cfg.Clock,

		AttemptTimeout: cfg.AttemptTimeout,
	}
	if c.observer != nil {
		tc.Observer = c.observer
	}
	if cfg.LimiterFor != nil {
		c.perRoute, c.limiterFor, c.routes = &tc, cfg.LimiterFor, make(map[string]*transport.Client)
		return c
	}
	c.t = transport.New(tc)
	return c
}

// Redact hides the client's token in s, in plain and encoded forms, for
// a message that quotes what the service sent.
func (c *Client) Redact(s string) string {
	if c.t != nil {
		return c.t.Redact(s)
	}
	return redact.Secret(s, c.perRoute.Token)
}

// transportFor returns the transport that sends op: the client's one, or
// its route's, made on first use.
func (c *Client) transportFor(op *Operation) *transport.Client {
	if c.t != nil {
		return c.t
	}
	key := op.Method + " " + op.Route
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.routes[key]; t != nil {
		return t
	}
	tc := *c.perRoute
	tc.Limiter = transportLimiter(c.limiterFor(key))
	tc.PauseScope = "the requests of " + key + " only"
	t := transport.New(tc)
	c.routes[key] = t
	return t
}

// HasObserver reports whether the client has an Observer callback to call.
func (c *Client) HasObserver() bool { return c.observer != nil }

// Logger is the client's logger; nil when it is silent.
func (c *Client) Logger() *slog.Logger { return c.logger }

// PausedFor is how much of the pause after a 429 is left: the client's,
// or, with a transport per route, the longest of the routes'.
func (c *Client) PausedFor() time.Duration {
	if c.t != nil {
		return c.t.PausedFor()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var d time.Duration
	for _, t := range c.routes {
		d = max(d, t.PausedFor())
	}
	return d
}

// Operation is one request as a resource method or Do describes it.
type Operation struct {
	Method string
	Route  string // the path's template ("/v2/users/{userId}"), for the Observer
	Path   string // escaped, without a query
	// Query is nil, url.Values, a go-querystring struct, or a RawQuery.
	Query any
	Body  any // nil, json.RawMessage, []byte of JSON, or a value to encode as JSON
}

// RawQuery is a query string sent exactly as it is.
type RawQuery string

// Answer is a finished call while its body is still held. The Response is
// built only when something needs it: most successful calls never do.
type Answer struct {
	c    *Client
	t    *transport.Client // the transport that sent it
	op   Operation
	tr   *transport.Response // nil until the transport has answered
	resp *Response
}

// Response returns the call's Response, building it on first use.
func (a *Answer) Response() *Response {
	if a.resp == nil {
		if a.tr == nil {
			a.resp = &Response{}
		} else {
			a.resp = response(a.t, a.tr)
		}
	}
	return a.resp
}

// Body returns the answer's body, trimmed of white space.
func (a *Answer) Body() []byte { return bytes.TrimSpace(a.tr.Body) }

// Do sends op with the call's options, turns a non-2xx answer into an
// *APIError, and hands a 2xx answer to decode while its body is held. It
// fills the caller's WithResponseInto on every path, tells rc.Answered
// every final answer, and reports the call to the Observer.
func (c *Client) Do(ctx context.Context, op Operation, rc *RequestConfig, decode func(*Answer) error) (err error) {
	a := &Answer{c: c, t: c.transportFor(&op), op: op}
	if c.observer != nil {
		var start time.Time
		ctx, start = c.observer.callStart(ctx, &op)
		defer func() { c.observer.callEnd(ctx, &op, a.tr, err, start) }()
	}
	if rc.Resp != nil {
		defer func() { *rc.Resp = *a.Response() }()
	}
	req, err := c.transportRequest(ctx, &op, rc)
	if err != nil {
		return err
	}
	a.tr, err = a.t.Do(ctx, req) // holds a place of rc.InFlight while an attempt is sent and read
	defer a.tr.Release()
	if err != nil {
		return err
	}
	if rc.Answered != nil {
		rc.Answered(a.tr.StatusCode, a.tr.Header)
	}
	if a.tr.StatusCode < 200 || a.tr.StatusCode > 299 {
		return newAPIError(a.t, op.Method, op.Path, a.tr, a.Response())
	}
	if rc.BodyHash != nil {
		*rc.BodyHash = a.digest()
	}
	return decode(a)
}

// transportRequest checks and encodes what op and the options say to send.
func (c *Client) transportRequest(ctx context.Context, op *Operation, rc *RequestConfig) (transport.Request, error) {
	if ctx == nil {
		return transport.Request{}, fmt.Errorf("%w: nil context", ErrInvalidInput)
	}
	if rc.Err != nil {
		return transport.Request{}, rc.Err
	}
	if !strings.HasPrefix(op.Path, "/") || strings.ContainsAny(op.Path, "?#") {
		return transport.Request{}, fmt.Errorf("%w: path %q must start with / and carry no query (use the query argument)", ErrInvalidInput, op.Path)
	}
	rawQuery, err := encodeQuery(op.Query)
	if err != nil {
		return transport.Request{}, err
	}
	payload, err := encodeBody(op.Body)
	if err != nil {
		return transport.Request{}, err
	}
	req := transport.Request{
		Method: op.Method, Path: op.Path, Route: op.Route, RawQuery: rawQuery, Body: payload,
		Header: rc.Header, Bulk: rc.Bulk, MaxThrottle: rc.MaxThrottle, Once: rc.Once, InFlight: rc.InFlight,
	}
	if rc.Retry != nil {
		p := transport.Policy(*rc.Retry)
		req.Retry = &p
	}
	return req, nil
}

// DecodeJSON decodes a 2xx answer into out; an empty answer or a nil out
// decodes nothing. Values that do not fit are dropped, listed in the
// Response and logged.
func (a *Answer) DecodeJSON(ctx context.Context, out any) error {
	body := a.Body()
	if out == nil || len(body) == 0 {
		return nil
	}
	dropped, err := lenient.Decode(body, out)
	if err != nil {
		return a.decodeError(err)
	}
	if len(dropped) > 0 {
		a.Response().Dropped = dropped
		if log := a.c.logger; log != nil {
			log.LogAttrs(ctx, slog.LevelWarn, "edapp: dropped values that did not decode",
				slog.String("method", a.op.Method), slog.String("path", a.op.Path), slog.Any("fields", dropped))
		}
	}
	return nil
}

// DecodeRecord is DecodeJSON for an answer that must hold a record: an
// empty answer is a *DecodeError.
func (a *Answer) DecodeRecord(ctx context.Context, out any) error {
	if len(a.Body()) == 0 {
		return a.decodeError(errEmptyAnswer)
	}
	return a.DecodeJSON(ctx, out)
}

// Digest returns a digest of a non-empty body, and 0 for an empty one.
func (a *Answer) digest() uint64 {
	if body := a.Body(); len(body) > 0 {
		return maphash.Bytes(digestSeed, body)
	}
	return 0
}

var digestSeed = maphash.MakeSeed()

// errEmptyAnswer is a 2xx answer with no body where a record was expected.
var errEmptyAnswer = errors.New("the answer is empty")

func (a *Answer) decodeError(err error) *DecodeError {
	return &DecodeError{
		StatusCode: a.tr.StatusCode,
		Method:     a.op.Method,
		Path:       a.op.Path,
		Body:       CleanExcerpt(a.t, a.tr.Body, decodeExcerpt),
		Err:        err,
		Response:   a.Response(),
	}
}

// IsNil reports a nil interface, or one holding a nil pointer.
func IsNil(x any) bool {
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
	case RawQuery:
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
