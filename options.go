package edapp

import (
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"github.com/edapp-go/edapp/internal/core"
)

// RequestOption changes one call: any service method, the All iterators
// (where it applies to every page) and [Client.Do] take them as a trailing
// variadic argument. An option given a bad value makes the call fail with
// an error wrapping [ErrInvalidInput] before anything is sent.
//
//	var resp edapp.Response
//	user, err := client.Users.Get(ctx, id, edapp.WithResponseInto(&resp))
//	log.Printf("request id %s, %d attempts", resp.RequestID, resp.Attempts)
type RequestOption = core.RequestOption

// WithResponseInto fills *r with the answer's metadata: status, headers,
// request id, attempts and time waited. It is filled on success and on
// failure, with what is known. For an All iterator it is filled before the
// first item of each page is yielded, by the goroutine running the loop.
// A nil r fills nothing: it undoes an earlier WithResponseInto of the same
// call.
func WithResponseInto(r *Response) RequestOption {
	return func(c *core.RequestConfig) error { c.Resp = r; return nil }
}

// WithHeader adds a header to the request. Authorization cannot be set
// this way: the call fails before sending.
func WithHeader(key, value string) RequestOption {
	return func(c *core.RequestConfig) error {
		key = textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(key))
		switch {
		case key == "Authorization":
			return core.Invalid("WithHeader cannot set Authorization: the client sends the API token")
		case key == "" || strings.ContainsAny(key, " \t\r\n:") || strings.ContainsAny(value, "\r\n\x00"):
			return core.Invalid("WithHeader(%q, ...): not a valid header", key)
		}
		if c.Header == nil {
			c.Header = make(http.Header)
		}
		c.Header.Add(key, value)
		return nil
	}
}

// WithRequestRetry replaces the client's retry policy for this call.
func WithRequestRetry(p RetryPolicy) RequestOption {
	return func(c *core.RequestConfig) error {
		p, err := core.NormalizeRetry(p)
		if err != nil {
			return err
		}
		c.Retry = &p
		return nil
	}
}

// WithBulk makes the call draw from the limiter's bulk lane, as the All
// iterators do, leaving the rest of the budget to interactive calls. A
// limiter without lanes ignores it.
func WithBulk() RequestOption {
	return func(c *core.RequestConfig) error { c.Bulk = true; return nil }
}

// WithMaxThrottle fails the call at once, with an error matching
// [ErrRateLimited] and nothing sent, when the limiter (or a pause the service
// asked for) would hold it longer than d; a call answered 429 whose pause
// is longer than d returns that *[APIError] at once instead of retrying. WithMaxThrottle(0) lets a call
// through only when the limiter has a slot free now (a bound under 50 ms
// counts as 50 ms, so scheduling noise never refuses a free slot).
func WithMaxThrottle(d time.Duration) RequestOption {
	return func(c *core.RequestConfig) error {
		if d < 0 {
			return core.Invalid("WithMaxThrottle needs a duration of at least 0")
		}
		c.MaxThrottle = d
		return nil
	}
}

// WithPageConcurrency sets how many pages an All iterator fetches at once
// when the service reports a total count (default 4); 1 fetches one page
// after another. Other calls ignore it.
func WithPageConcurrency(n int) RequestOption {
	return func(c *core.RequestConfig) error {
		if n < 1 {
			return core.Invalid("WithPageConcurrency needs at least 1")
		}
		c.PageConcurrency = n
		return nil
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
	return func(c *core.RequestConfig) error {
		if cap(sem) == 0 {
			return core.Invalid("WithInFlight needs a buffered channel")
		}
		c.InFlight = sem
		return nil
	}
}

// WithRoute names the route template of a [Client.Do] or [Client.DoChecked]
// call for the client's [Observer] ("/v1/users/{userId}"), so events never
// carry a path with ids in it. Without it such calls are "custom". The
// typed methods name their own routes and ignore it. A template must start
// with / and carry no query.
func WithRoute(template string) RequestOption {
	return func(c *core.RequestConfig) error {
		if !strings.HasPrefix(template, "/") || strings.ContainsAny(template, "?#") {
			return core.Invalid("WithRoute(%q): a route template starts with / and carries no query", template)
		}
		c.Route = template
		return nil
	}
}

// Response is what a call learned from the service beyond the record: get
// it with [WithResponseInto], from [Page.Response], or from an *[APIError] or
// *[DecodeError]. It never holds the API token.
//
// Fields: StatusCode (the final answer's, 0 when none came); Header (the
// final answer's headers; the service documents no rate-limit headers, but
// X-RateLimit-Remaining and X-RateLimit-Reset are honoured when sent);
// RequestID (X-Request-Id, X-Amzn-Requestid, X-Amz-Apigw-Id, Request-Id or
// X-Correlation-Id, for support cases); Attempts (how many times the
// request was sent: 1 when nothing was retried, 0 when nothing was sent);
// Waited (for the limiter, for a pause the service asked for, and between
// retries); Dropped (the JSON paths of values that did not fit their Go
// fields and were left out, such as "items[3].completedDateTime").
//
// Methods: Total() (int, bool), a list's totalCount and whether the
// service sent one; TotalContradicted(), whether a page's items contradict
// it.
type Response = core.Response
