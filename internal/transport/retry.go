package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// checkRetry decides whether an attempt is retried.
//
//   - GET, PUT and DELETE (idempotent by HTTP's rules) retry on connection
//     errors, 429, 500, 502, 503 and 504.
//   - POST retries only on 429, and on a connection that failed before
//     anything was sent (a dial error such as "connection refused"): those
//     are the only cases where the server cannot have acted on it, so a
//     retry can never create a duplicate.
//   - A done ctx stops at once with ctx's error.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return false, ctxErr
	}
	idempotent := true
	if info, ok := ctx.Value(ctxKey{}).(*requestInfo); ok {
		idempotent = isIdempotent(info.method)
	}
	if err != nil {
		if idempotent {
			return isConnectionError(err), nil
		}
		return isDialError(err), nil
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return true, nil
	case http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return idempotent, nil
	}
	return false, nil
}

func isIdempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// isDialError reports a failure to connect at all: nothing was sent.
func isDialError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// isConnectionError reports a network failure worth another attempt. TLS
// certificate problems, redirect loops and malformed URLs are not: they
// would fail the same way again.
func isConnectionError(err error) bool {
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) {
		return false
	}
	if isDialError(err) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Backoff is exponential with jitter, capped at max. A Retry-After header
// (seconds or an HTTP date) on a 429 or 503 is honoured, capped at max too.
// A 429 without one waits longer than a plain failure: the service asks
// callers over its limit to pause.
func Backoff(min, max time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if d, ok := RetryAfter(resp.Header, time.Now()); ok {
			return capDuration(d, max)
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			attempt += 2
		}
	}
	if min <= 0 {
		min = time.Millisecond
	}
	if attempt > 30 {
		attempt = 30
	}
	ceiling := capDuration(min<<uint(attempt), max)
	if ceiling <= 0 {
		return 0
	}
	// "Equal jitter": at least half the step, so waits still grow.
	half := ceiling / 2
	return half + rand.N(ceiling-half+1)
}

// RetryAfter reads a Retry-After header given in seconds or as an HTTP date.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

func capDuration(d, max time.Duration) time.Duration {
	if d < 0 || (max > 0 && d > max) {
		return max
	}
	return d
}
