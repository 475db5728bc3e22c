package edapp

import "github.com/edapp-go/edapp/internal/core"

// Sentinels for errors.Is. An *APIError matches the one for its status.
// The vendor documents no error statuses or bodies; these follow HTTP.
var (
	ErrBadRequest   = core.ErrBadRequest   // 400, 422
	ErrUnauthorized = core.ErrUnauthorized // 401: missing or wrong token
	ErrForbidden    = core.ErrForbidden    // 403
	ErrNotFound     = core.ErrNotFound     // 404
	ErrConflict     = core.ErrConflict     // 409, e.g. a duplicate external id
	ErrRateLimited  = core.ErrRateLimited  // 429, or held back by the client's own limiter
	ErrServer       = core.ErrServer       // 5xx
	ErrInvalidInput = core.ErrInvalidInput // refused before any request was sent
	ErrUnsuccessful = core.ErrUnsuccessful // a 2xx answer of {"success": false}
)

// ErrRepeatedPage is what an All iterator yields when the service, which
// reported a total count, answers the same page twice: it is ignoring the
// page number, and reading on would never end. An unpaged array that
// repeats is not an error; the iterator just ends.
var ErrRepeatedPage = core.ErrRepeatedPage

// APIError is a non-2xx answer from the service (or a 2xx that says
// {"success": false}). Inferred: the vendor does not document error
// bodies; the service probably answers {"message": "..."}, so Message holds
// that when present and Body keeps the rest, truncated. Neither ever holds
// the API token.
//
// Fields: StatusCode, Method, Path (no query string), Message (the body's
// "message", when there is one), Body (truncated to 64 KiB), RequestID,
// RetryAfter (from Retry-After) and Response (the answer's metadata:
// headers, attempts, time waited). Error reads "edapp: GET /v2/users/42:
// 404 Not Found: user not found"; Is matches the sentinel for the status:
// errors.Is(err, [ErrNotFound]).
type APIError = core.APIError

// DecodeError is a 2xx answer whose body is not the JSON that was
// expected.
//
// Fields: StatusCode, Method, Path, Body (an excerpt of the body, for
// diagnosis, with every secret removed), Err (the JSON error, which Unwrap
// returns) and Response (the answer's metadata).
type DecodeError = core.DecodeError
