package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/pager"
	"github.com/edapp-go/edapp/internal/redact"
	"github.com/edapp-go/edapp/internal/transport"
)

// Sentinels for errors.Is. An *APIError matches the one for its status.
// The vendor documents no error statuses or bodies; these follow HTTP.
var (
	ErrBadRequest   = errors.New("edapp: bad request")      // 400, 422
	ErrUnauthorized = errors.New("edapp: unauthorized")     // 401: missing or wrong token
	ErrForbidden    = errors.New("edapp: forbidden")        // 403
	ErrNotFound     = errors.New("edapp: not found")        // 404
	ErrConflict     = errors.New("edapp: conflict")         // 409, e.g. a duplicate external id
	ErrRateLimited  = transport.ErrRateLimited              // 429, or held back by the client's own limiter
	ErrServer       = errors.New("edapp: server error")     // 5xx
	ErrInvalidInput = ids.ErrInvalidInput                   // refused before any request was sent
	ErrUnsuccessful = errors.New("edapp: operation failed") // a 2xx answer of {"success": false}
)

// ErrRepeatedPage is what an All iterator yields when the service, which
// reported a total count, answers the same page twice: it is ignoring the
// page number, and reading on would never end. An unpaged array that
// repeats is not an error; the iterator just ends.
var ErrRepeatedPage = pager.ErrRepeatedPage

// APIError is a non-2xx answer from the service (or a 2xx that says
// {"success": false}). Inferred: the vendor does not document error bodies;
// the service probably answers {"message": "..."}, so Message holds that when present
// and Body keeps the rest, truncated. Neither ever holds the API token.
type APIError struct {
	StatusCode int
	Method     string
	Path       string        // no query string, never the token
	Message    string        // "message" from the body, when there is one
	Body       []byte        // truncated (64 KiB at most)
	RequestID  string        // from a request-id style header, when there is one
	RetryAfter time.Duration // from Retry-After, when there is one
	Response   *Response     // the answer's metadata: headers, attempts, time waited
}

// Error reads "edapp: GET /v2/users/42: 404 Not Found: user not found".
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("edapp: ")
	b.WriteString(e.Method)
	b.WriteByte(' ')
	b.WriteString(e.Path)
	b.WriteString(": ")
	b.WriteString(strconv.Itoa(e.StatusCode))
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteByte(' ')
		b.WriteString(t)
	}
	switch {
	case e.Message != "":
		b.WriteString(": ")
		b.WriteString(e.Message)
	case len(e.Body) > 0:
		b.WriteString(": ")
		b.WriteString(Excerpt(string(e.Body), 200))
	}
	if e.RequestID != "" {
		b.WriteString(" (request id ")
		b.WriteString(e.RequestID)
		b.WriteByte(')')
	}
	return b.String()
}

// Is matches the sentinel for the status: errors.Is(err, [ErrNotFound]).
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrBadRequest:
		return e.StatusCode == http.StatusBadRequest || e.StatusCode == http.StatusUnprocessableEntity
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrConflict:
		return e.StatusCode == http.StatusConflict
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrServer:
		return e.StatusCode >= 500 && e.StatusCode <= 599
	case ErrUnsuccessful:
		return e.StatusCode >= 200 && e.StatusCode <= 299
	}
	return false
}

// DecodeError is a 2xx answer whose body is not the JSON that was expected.
// Body is an excerpt, for diagnosis.
type DecodeError struct {
	StatusCode int
	Method     string
	Path       string
	Body       string    // the first bytes of the body
	Err        error     // the JSON error
	Response   *Response // the answer's metadata: headers, attempts, time waited
}

// Error reads "edapp: GET /v2/users/42: 200 answer is not the expected
// JSON: <json error>: <body excerpt>".
func (e *DecodeError) Error() string {
	return "edapp: " + e.Method + " " + e.Path + ": " + strconv.Itoa(e.StatusCode) +
		" answer is not the expected JSON: " + e.Err.Error() + ": " + strconv.Quote(e.Body)
}

// Unwrap returns the JSON error.
func (e *DecodeError) Unwrap() error { return e.Err }

// decodeExcerpt bounds the body excerpt of a DecodeError.
const decodeExcerpt = 512

// maxRequestID bounds APIError.RequestID: request ids are short.
const maxRequestID = 128

// redact removes the API token and any launch token from s, in any of
// their encodings.
func redactWith(t *transport.Client, s string) string {
	return redact.LaunchTokens(t.Redact(s))
}

// CleanExcerpt returns at most n bytes of body with every secret removed.
// It redacts before it cuts, so a token that crosses the cut keeps no part
// of itself.
func CleanExcerpt(t *transport.Client, body []byte, n int) string {
	if len(body) > n+redact.Margin {
		body = body[:n+redact.Margin]
	}
	return redact.Excerpt(string(body), n, func(s string) string { return redactWith(t, s) })
}

// CleanExcerpt is [CleanExcerpt] with the token of the transport that
// sent the answer.
func (a *Answer) CleanExcerpt(body []byte, n int) string { return CleanExcerpt(a.t, body, n) }

func newAPIError(t *transport.Client, method, path string, tr *transport.Response, resp *Response) *APIError {
	body := tr.Body
	if tr.Truncated {
		// The read stopped mid-body: a secret may cross its end, where no
		// pattern can see it whole. Drop the tail it could hide in.
		body = body[:max(0, len(body)-redact.Tail)]
	}
	e := &APIError{
		StatusCode: tr.StatusCode,
		Method:     method,
		Path:       path,
		Body:       []byte(CleanExcerpt(t, body, transport.MaxErrorBody)),
		RequestID:  resp.RequestID,
		Response:   resp,
	}
	if d, ok := transport.RetryAfter(tr.Header, time.Now()); ok {
		e.RetryAfter = d
	}
	if m := MessageOf(body); m != "" {
		e.Message = CleanExcerpt(t, []byte(m), transport.MaxErrorBody)
	}
	return e
}

// ResponseOf returns the Response an *APIError or *DecodeError carries.
func ResponseOf(err error) *Response {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Response
	}
	var de *DecodeError
	if errors.As(err, &de) {
		return de.Response
	}
	return nil
}

// MessageOf pulls "message" (or "Message", "error") out of a JSON error body.
func MessageOf(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return ""
	}
	var m struct {
		Message string `json:"message"`
		Error   any    `json:"error"`
	}
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	if m.Message != "" {
		return m.Message
	}
	if s, ok := m.Error.(string); ok {
		return s
	}
	return ""
}

// requestID returns the first request-id style header, cleaned: a server
// may echo anything there, the token included.
func requestID(t *transport.Client, h http.Header) string {
	for _, k := range []string{"X-Request-Id", "X-Amzn-Requestid", "X-Amz-Apigw-Id", "Request-Id", "X-Correlation-Id"} {
		if v := h.Get(k); v != "" {
			v = strings.Map(func(r rune) rune {
				if unicode.IsPrint(r) {
					return r
				}
				return -1
			}, v)
			return CleanExcerpt(t, []byte(v), maxRequestID)
		}
	}
	return ""
}

// Excerpt shortens s to at most n bytes on a rune boundary, and marks a
// cut with "…".
func Excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return redact.Cut(s, n) + "…"
}
