// Package bridge lets a second client of the module (package
// safetyculture) send its calls through the root package's call machinery:
// request options, the transport, typed errors, the Observer and lenient
// decoding, without widening the root's public API. The root package fills
// NewCaller when it is initialised; any package that imports the root can
// rely on it being set.
package bridge

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/edapp-go/edapp/internal/transport"
)

// Config builds one Caller: one transport client with its own limiter and
// its own pause after a 429, sharing the http.Client it is given.
type Config struct {
	BaseURL    *url.URL
	Token      string
	UserAgent  string // the caller's part, before edapp-go/<version>
	HTTPClient *http.Client
	Limiter    any // an edapp.Limiter, or nil for none
	Retry      transport.Policy
	MaxPause   time.Duration
	// PauseScope says what a 429 pauses, in the log line: "" is every
	// request through the caller.
	PauseScope string
	MaxBody    int64
	Logger     *slog.Logger
	Observer   any // an *edapp.Observer, or nil for none

	AttemptTimeout time.Duration // see edapp.WithAttemptTimeout
}

// Call is one request.
type Call struct {
	Method string
	Route  string // the path's template, for the Observer
	Path   string // escaped, without a query
	// Query is nil, url.Values, a go-querystring struct, or a RawQuery
	// sent as it is.
	Query any
	Body  any // nil, or a value to encode as JSON
	// Header is sent with every attempt, beside the caller's WithHeader.
	Header http.Header
	// Options is the caller's []edapp.RequestOption.
	Options any
	// Out is nil, or a pointer the answer is decoded into (leniently).
	Out any
	// Record: an empty 2xx answer is a *edapp.DecodeError.
	Record bool
	// Once: the request is never sent again once it may have reached the
	// service (a write that is not safe to repeat, whatever its method).
	Once bool
	// Answered, if set, is told the status and headers of every final
	// answer, 2xx or not.
	Answered func(status int, h http.Header)
	// BodyHash, if set, receives a digest of a 2xx answer's body (0 for
	// an empty one), so a walk can tell a page that repeats.
	BodyHash *uint64
}

// RawQuery is a query string sent exactly as it is.
type RawQuery string

// Caller sends calls. Do returns the call's *edapp.Response (as any): the
// answer's metadata, filled on success and on failure.
type Caller interface {
	Do(ctx context.Context, c *Call) (resp any, err error)
	// Page reports one page of a list to the Observer.
	Page(ctx context.Context, route string, page, items int)
	// PausedFor is how much of the pause after a 429 is left.
	PausedFor() time.Duration
}

// NewConfig applies rootOpts (a []edapp.Option) over the root's defaults,
// with defaultBaseURL as the base URL unless an option sets one, and
// returns the Config they make, or a bad option's error (wrapping
// edapp.ErrInvalidInput); set by the root package. Token, Limiter and
// MaxPause are left for the caller.
var NewConfig func(rootOpts any, defaultBaseURL string) (Config, error)

// NewCaller builds a Caller; set by the root package.
var NewCaller func(Config) (Caller, error)

// Walk splits the request options of a list walk (a []edapp.RequestOption):
// PerPage (as any) is what each page request takes (the options, without
// the caller's WithResponseInto, and from the bulk lane); Fill copies a
// page's *edapp.Response (as any; nil does nothing) into the caller's
// WithResponseInto, on the goroutine running the loop;
// PageConcurrency is WithPageConcurrency's value, or the root's default.
// Err is a bad option's error. Set by the root package.
type Walk struct {
	PerPage         any
	Fill            func(resp any)
	PageConcurrency int
	Err             error
}

// NewWalk splits opts for a walk; set by the root package.
var NewWalk func(opts any) Walk

// SetTotal records a list's total count, as the service sent it, on a
// page's *edapp.Response (as any; nil does nothing), for its Total; set
// by the root package.
var SetTotal func(resp any, total int)

// ParseDelivery checks and decodes one webhook delivery: it returns the
// event (an edapp.Event), or the status to answer and why.
type ParseDelivery func(h http.Header, body []byte) (event any, status int, err error)

// NewWebhookHandler builds package webhook's Handler (its bounds, answer
// codes and panic safety) around parse instead of edapp.ParseEvent, and
// hands each event to receive; opts is a []webhook.Option. An event with a
// Key() string method is logged under that key. Set by package webhook.
var NewWebhookHandler func(parse ParseDelivery, receive func(ctx context.Context, event any) error, opts any) (http.Handler, error)
