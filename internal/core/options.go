package core

import (
	"fmt"
	"net/http"
	"time"

	"github.com/edapp-go/edapp/internal/transport"
)

// RequestOption changes one call. A bad value makes the call fail with an
// error wrapping ErrInvalidInput before anything is sent.
type RequestOption func(*RequestConfig) error

// RequestConfig is one call's options, as its RequestOptions set them.
type RequestConfig struct {
	Resp            *Response
	Header          http.Header
	Retry           *RetryPolicy
	Bulk            bool
	MaxThrottle     time.Duration // < 0: none
	PageConcurrency int           // 0: the default
	Route           string        // WithRoute's template, for Client.Do's Observer events
	InFlight        chan struct{} // WithInFlight's semaphore; nil: none
	// Once: the request is never sent again once it may have reached the
	// service (a write that is not safe to repeat, whatever its method).
	Once bool
	// Answered, if set, is told the status and headers of every final
	// answer, 2xx or not.
	Answered func(status int, h http.Header)
	// BodyHash, if set, receives a digest of a 2xx answer's body (0 for an
	// empty one), so a walk can tell a page that repeats.
	BodyHash *uint64
	// Err is the first bad option's error: the call fails before sending.
	Err error
}

// Invalid returns an error wrapping ErrInvalidInput, for a RequestOption's
// bad value.
func Invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidInput}, args...)...)
}

// NewRequestConfig applies opts. Without options it allocates nothing: the
// config an option writes to lives on the heap, so only
// applyRequestOptions has one.
func NewRequestConfig(opts []RequestOption) RequestConfig {
	if len(opts) == 0 {
		return RequestConfig{MaxThrottle: -1}
	}
	return applyRequestOptions(opts)
}

func applyRequestOptions(opts []RequestOption) RequestConfig {
	c := RequestConfig{MaxThrottle: -1}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&c); err != nil && c.Err == nil {
			c.Err = err
		}
	}
	return c
}

// WithHeaders sends h with every attempt, under the caller's WithHeader
// values of the same keys.
func WithHeaders(h http.Header) RequestOption {
	return func(c *RequestConfig) error {
		c.Header = mergeHeader(h, c.Header)
		return nil
	}
}

// mergeHeader returns base with the caller's headers over it.
func mergeHeader(base, caller http.Header) http.Header {
	if len(base) == 0 {
		return caller
	}
	h := base.Clone()
	for k, vs := range caller {
		h[k] = vs
	}
	return h
}

// WithOnce: the request is never sent again once it may have reached the
// service.
func WithOnce() RequestOption {
	return func(c *RequestConfig) error { c.Once = true; return nil }
}

// WithAnswered tells f the status and headers of every final answer.
func WithAnswered(f func(status int, h http.Header)) RequestOption {
	return func(c *RequestConfig) error { c.Answered = f; return nil }
}

// WithBodyHash puts the digest of a 2xx answer's body into *h.
func WithBodyHash(h *uint64) RequestOption {
	return func(c *RequestConfig) error { c.BodyHash = h; return nil }
}

// Response is what a call learned from the service beyond the record: get
// it with [WithResponseInto], from [Page.Response], or from an *[APIError] or
// *[DecodeError]. It never holds the API token.
type Response struct {
	// StatusCode is the final answer's status; 0 when none came.
	StatusCode int
	// Header is the final answer's headers. The service documents no
	// rate-limit headers; if it sends X-RateLimit-Limit,
	// X-RateLimit-Remaining and X-RateLimit-Reset, they are here, and the
	// client honours the last two.
	Header http.Header
	// RequestID is the answer's request id (X-Request-Id, X-Amzn-Requestid,
	// X-Amz-Apigw-Id, Request-Id or X-Correlation-Id), for support cases.
	RequestID string
	// Attempts is how many times the request was sent: 1 when nothing was
	// retried, 0 when nothing was sent.
	Attempts int
	// Waited is the time spent waiting: for the limiter, for a pause the
	// service asked for, and between retries.
	Waited time.Duration
	// count is a list's totalCount (see Total and TotalContradicted).
	count ListCount
	// Dropped lists the values of the answer that did not fit their Go
	// fields and were left out (JSON paths such as "items[3].completedDateTime");
	// the rest of the answer was kept.
	Dropped []string
}

// response builds the Response of a finished transport call.
func response(t *transport.Client, tr *transport.Response) *Response {
	r := &Response{
		StatusCode: tr.StatusCode,
		Attempts:   tr.Attempts,
		Waited:     tr.Waited,
	}
	if tr.Header != nil {
		r.Header = cleanHeader(t, tr.Header)
		r.RequestID = requestID(t, tr.Header)
	}
	return r
}

// cleanHeader returns h, or a copy without the API token if a value holds it.
func cleanHeader(t *transport.Client, h http.Header) http.Header {
	for k, vs := range h {
		for i, v := range vs {
			if red := redactWith(t, v); red != v {
				h2 := h.Clone()
				h2[k][i] = red
				return cleanHeader(t, h2)
			}
		}
	}
	return h
}
