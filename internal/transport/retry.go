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
//   - A limiter that did not let the attempt through is never retried:
//     nothing was sent, and the error is not a network error even when the
//     limiter's own store could not be reached.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	var le *LimiterError
	if errors.As(err, &le) {
		return false, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return false, ctxErr
	}
	idempotent := true
	if info, ok := ctx.Value(ctxKey{}).(*call); ok {
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

// backoff is the retrying client's wait between attempts: Backoff, except
// that after a 429 it is the pause the whole client already took (see
// noteRateLimit), so the call that got the 429 waits no longer than the
// others.
func backoff(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && resp.StatusCode == http.StatusTooManyRequests && resp.Request != nil {
		if info, ok := resp.Request.Context().Value(ctxKey{}).(*call); ok {
			return max(time.Until(time.Unix(0, info.c.rt.notBefore.Load())), 0)
		}
	}
	return Backoff(lo, hi, attempt, resp)
}

// Backoff is exponential with jitter, capped at max. A Retry-After header
// (seconds or an HTTP date) on a 429 or 503 is honoured, capped at max too,
// and so is an X-RateLimit-Reset on a 429. A 429 without either waits
// longer than a plain failure: the service asks callers over its limit to
// pause.
func Backoff(min, max time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if d, ok := RetryAfter(resp.Header, time.Now()); ok {
			return capDuration(d, max)
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			if d, ok := rateLimitReset(resp.Header, time.Now()); ok {
				return capDuration(d, max)
			}
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

// noteRateLimit makes the whole client feel the service's rate limit: a
// 429 pauses every request through the client (and a Pauser limiter) for
// as long as this call will back off; an answer that says no requests are
// left (X-RateLimit-Remaining: 0) pauses until its X-RateLimit-Reset. Both
// are capped by the retry policy's MaxWait.
func (c *Client) noteRateLimit(ctx context.Context, info *call, resp *http.Response) {
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		info.throttled = true
		p := info.policy
		c.pause(ctx, Backoff(p.MinWait, p.MaxWait, info.attempts-1, resp), "429")
	case strings.TrimSpace(resp.Header.Get("X-RateLimit-Remaining")) == "0":
		if d, ok := rateLimitReset(resp.Header, time.Now()); ok {
			c.pause(ctx, capDuration(d, info.policy.MaxWait), "X-RateLimit-Remaining: 0")
		}
	}
}

// rateLimitReset reads X-RateLimit-Reset: seconds until the budget resets,
// or, for values that can only be one, a Unix time in seconds.
func rateLimitReset(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("X-RateLimit-Reset"))
	if v == "" {
		return 0, false
	}
	secs, err := strconv.ParseInt(v, 10, 64)
	if err != nil || secs < 0 {
		return 0, false
	}
	if secs > 1_000_000_000 { // a Unix time
		return max(time.Unix(secs, 0).Sub(now), 0), true
	}
	return time.Duration(min(secs, int64(24*time.Hour/time.Second))) * time.Second, true
}
