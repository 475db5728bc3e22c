package edapp

import (
	"fmt"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"github.com/edapp-go/edapp/internal/transport"
)

// RequestOption changes one call: any service method, the All iterators
// (where it applies to every page) and [Client.Do] take them as a trailing
// variadic argument.
//
//	var resp edapp.Response
//	user, err := client.Users.Get(ctx, id, edapp.WithResponseInto(&resp))
//	log.Printf("request id %s, %d attempts", resp.RequestID, resp.Attempts)
type RequestOption func(*requestConfig)

type requestConfig struct {
	resp            *Response
	header          http.Header
	retry           *RetryPolicy
	bulk            bool
	maxThrottle     time.Duration // < 0: none
	pageConcurrency int           // 0: the default
	route           string        // WithRoute's template, for Client.Do's Observer events
	inFlight        chan struct{} // WithInFlight's semaphore; nil: none
	once            bool          // never sent again once it may have reached the service
	err             error         // a bad option: the call fails before sending
}

// WithResponseInto fills *r with the answer's metadata: status, headers,
// request id, attempts and time waited. It is filled on success and on
// failure, with what is known. For an All iterator it is filled before the
// first item of each page is yielded, by the goroutine running the loop.
// A nil r fills nothing: it undoes an earlier WithResponseInto of the same
// call.
func WithResponseInto(r *Response) RequestOption {
	return func(c *requestConfig) { c.resp = r }
}

// WithHeader adds a header to the request. Authorization cannot be set
// this way: the call fails before sending.
func WithHeader(key, value string) RequestOption {
	return func(c *requestConfig) {
		key = textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(key))
		switch {
		case key == "Authorization":
			c.fail("WithHeader cannot set Authorization: the client sends the API token")
		case key == "" || strings.ContainsAny(key, " \t\r\n:") || strings.ContainsAny(value, "\r\n\x00"):
			c.fail(fmt.Sprintf("WithHeader(%q, ...): not a valid header", key))
		default:
			if c.header == nil {
				c.header = make(http.Header)
			}
			c.header.Add(key, value)
		}
	}
}

// WithRequestRetry replaces the client's retry policy for this call.
func WithRequestRetry(p RetryPolicy) RequestOption {
	return func(c *requestConfig) {
		p, err := p.normalize()
		if err != nil {
			c.fail(err.Error())
			return
		}
		c.retry = &p
	}
}

// WithBulk makes the call draw from the limiter's bulk lane, as the All
// iterators do, leaving the rest of the budget to interactive calls. A
// limiter without lanes ignores it.
func WithBulk() RequestOption {
	return func(c *requestConfig) { c.bulk = true }
}

// WithMaxThrottle fails the call at once, with an error matching
// [ErrRateLimited] and nothing sent, when the limiter (or a pause the service
// asked for) would hold it longer than d; a call answered 429 whose pause
// is longer than d returns that *[APIError] at once instead of retrying. WithMaxThrottle(0) lets a call
// through only when the limiter has a slot free now (a bound under 50 ms
// counts as 50 ms, so scheduling noise never refuses a free slot).
func WithMaxThrottle(d time.Duration) RequestOption {
	return func(c *requestConfig) {
		if d < 0 {
			c.fail("WithMaxThrottle needs a duration of at least 0")
			return
		}
		c.maxThrottle = d
	}
}

// WithPageConcurrency sets how many pages an All iterator fetches at once
// when the service reports a total count (default 4); 1 fetches one page
// after another. Other calls ignore it.
func WithPageConcurrency(n int) RequestOption {
	return func(c *requestConfig) {
		if n < 1 {
			c.fail("WithPageConcurrency needs at least 1")
			return
		}
		c.pageConcurrency = n
	}
}

// WithInFlight makes each attempt of the call hold one place of sem, a
// buffered channel used as a counting semaphore, from when the limiter
// lets it go until its answer is read, so that the calls sharing sem never
// have more than cap(sem) requests in flight. A call waiting for the
// limiter or for a pause after a 429 holds no place: the calls that may go
// take them.
// Each page of an All iterator holds a place of its own, and only while it
// is fetched: a walk's pages queue for the places like any other call's,
// so several walks sharing sem keep it full however long each one is. A
// call that waits for a place ends when ctx is done. An unbuffered or nil
// sem fails the call before sending.
//
//	sem := make(chan struct{}, 4) // four requests in flight, across both walks
//	users := client.Users.All(ctx, nil, edapp.WithInFlight(sem))
//	groups := client.UserGroups.All(ctx, nil, edapp.WithInFlight(sem))
func WithInFlight(sem chan struct{}) RequestOption {
	return func(c *requestConfig) {
		if cap(sem) == 0 {
			c.fail("WithInFlight needs a buffered channel")
			return
		}
		c.inFlight = sem
	}
}

// WithRoute names the route template of a [Client.Do] or [Client.DoChecked]
// call for the client's [Observer] ("/v1/users/{userId}"), so events never
// carry a path with ids in it. Without it such calls are "custom". The
// typed methods name their own routes and ignore it. A template must start
// with / and carry no query.
func WithRoute(template string) RequestOption {
	return func(c *requestConfig) {
		if !strings.HasPrefix(template, "/") || strings.ContainsAny(template, "?#") {
			c.fail(fmt.Sprintf("WithRoute(%q): a route template starts with / and carries no query", template))
			return
		}
		c.route = template
	}
}

func (c *requestConfig) fail(msg string) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: %s", ErrInvalidInput, msg)
	}
}

// newRequestConfig applies opts. Without options it allocates nothing: the
// config an option writes to lives on the heap, so only
// applyRequestOptions has one.
func newRequestConfig(opts []RequestOption) requestConfig {
	if len(opts) == 0 {
		return requestConfig{maxThrottle: -1}
	}
	return applyRequestOptions(opts)
}

func applyRequestOptions(opts []RequestOption) requestConfig {
	c := requestConfig{maxThrottle: -1}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
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
	count listCount
	// Dropped lists the values of the answer that did not fit their Go
	// fields and were left out (JSON paths such as "items[3].completedDateTime");
	// the rest of the answer was kept.
	Dropped []string
}

// response builds the Response of a finished transport call.
func (c *Client) response(tr *transport.Response) *Response {
	r := &Response{
		StatusCode: tr.StatusCode,
		Attempts:   tr.Attempts,
		Waited:     tr.Waited,
	}
	if tr.Header != nil {
		r.Header = c.cleanHeader(tr.Header)
		r.RequestID = c.requestID(tr.Header)
	}
	return r
}

// cleanHeader returns h, or a copy without the API token if a value holds it.
func (c *Client) cleanHeader(h http.Header) http.Header {
	for k, vs := range h {
		for i, v := range vs {
			if red := c.redact(v); red != v {
				h2 := h.Clone()
				h2[k][i] = red
				return c.cleanHeader(h2)
			}
		}
	}
	return h
}
