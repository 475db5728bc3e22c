package webhook

import (
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
)

// Option configures a Handler. A bad value makes [NewHandler] (or
// [NewHandlerFunc]) fail with an error wrapping [edapp.ErrInvalidInput]; a
// nil Option is skipped.
type Option func(*Handler) error

// problem is a bad option value's error.
func problem(format string, args ...any) error {
	return fmt.Errorf("%w: webhook handler: "+format, append([]any{edapp.ErrInvalidInput}, args...)...)
}

// WithSecretHeader makes the handler accept only deliveries whose header
// name carries value; a missing or different value gets 401 Unauthorized.
// The handler keeps only a SHA-256 digest of value and compares the digest of
// the value received with it in constant time (crypto/subtle), so neither the
// secret nor its length shows in timings, logs or responses.
//
// EdApp does not sign deliveries. A webhook link carries headers given when
// it is created, which is how a delivery can carry a shared secret, so
// register the link with the same name and value:
//
//	client.Webhooks.Create(ctx, edapp.WebhookCreateParams{
//		EventName:  edapp.EventLessonCompleted,
//		WebHookURL: "https://example.com/edapp/events",
//		Headers:    map[string]string{"X-Webhook-Secret": secret},
//	})
//
// An empty name or value, which would accept deliveries without any secret,
// and a name that is not a valid header name, are errors.
func WithSecretHeader(name, value string) Option {
	return func(h *Handler) error {
		switch {
		case name == "" || value == "":
			return problem("WithSecretHeader needs a header name and a value")
		case !validHeaderName(name):
			return problem("WithSecretHeader: %q is not a valid header name", name)
		}
		h.secretName = http.CanonicalHeaderKey(name)
		h.secretSum = sha256.Sum256([]byte(value))
		h.secretSet = true
		return nil
	}
}

// validHeaderName reports whether name is an HTTP token (RFC 9110).
func validHeaderName(name string) bool {
	for _, c := range []byte(name) {
		ok := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return name != ""
}

// WithMaxBodyBytes sets the largest delivery body the handler reads; a larger
// one gets 413 Request Entity Too Large. The default is 1 MiB; n must be
// positive.
func WithMaxBodyBytes(n int64) Option {
	return func(h *Handler) error {
		if n <= 0 {
			return problem("WithMaxBodyBytes needs a positive size, got %d", n)
		}
		h.maxBody = n
		return nil
	}
}

// WithReadTimeout sets how long the handler waits for a delivery's body,
// from the moment it gets the request; a body not read by then gets 408
// Request Timeout. The default is 10 s; d must be positive. The handler sets
// this bound itself, whatever the server's ReadTimeout is.
func WithReadTimeout(d time.Duration) Option {
	return func(h *Handler) error {
		if d <= 0 {
			return problem("WithReadTimeout needs a positive duration, got %v", d)
		}
		h.readTimeout = d
		return nil
	}
}

// WithMaxInFlight bounds the deliveries passed to the event function at
// once; one more gets 503 Service Unavailable with a Retry-After header.
// A delivery takes its place once its body is read (within
// [WithMaxBodyBytes] and [WithReadTimeout]), so that slow bodies hold
// connections, never the places: real deliveries keep going through
// meanwhile. By default there is no bound; n must be positive.
func WithMaxInFlight(n int) Option {
	return func(h *Handler) error {
		if n <= 0 {
			return problem("WithMaxInFlight needs a positive count, got %d", n)
		}
		h.inFlight = make(chan struct{}, n)
		return nil
	}
}

// WithLogger makes the handler log one line per delivery: a rejected one
// at Warn, one answered 503 at Warn, one answered 500 because of an error or
// panic of the event function at Error, and an accepted one at Info, with the
// status, the reason or the event name and [edapp.EventKey], never header
// values or the payload. Without it the handler logs only panics, to
// slog.Default(). WithLogger(nil) makes it silent, panics included, as
// [edapp.WithLogger](nil) makes a client silent.
func WithLogger(l *slog.Logger) Option {
	return func(h *Handler) error {
		if l == nil {
			l = slog.New(slog.DiscardHandler)
		}
		h.log, h.panicLog = l, l
		return nil
	}
}
