package transport

import (
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
// (seconds or an HTTP date) on a 503 is honoured, capped at max too. (A
// 429's wait is not a backoff: the whole client pauses for it.)
func Backoff(min, max time.Duration, attempt int, resp *http.Response) time.Duration {
	return backoffAt(min, max, attempt, resp, time.Now())
}

// backoffAt is Backoff with a Retry-After date read against now.
func backoffAt(min, max time.Duration, attempt int, resp *http.Response, now time.Time) time.Duration {
	if resp != nil && resp.StatusCode == http.StatusServiceUnavailable {
		if d, ok := RetryAfter(resp.Header, now); ok {
			return capDuration(d, max)
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
