package transport

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestCallStateRetryClassifiesErrors(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	redirects := &url.Error{Op: "Get", URL: "http://x", Err: errors.New("stopped after 10 redirects")}
	cert := &url.Error{Op: "Get", URL: "https://x", Err: x509.UnknownAuthorityError{}}
	for _, tc := range []struct {
		name      string
		err       error
		get, post bool
	}{
		{"refused", dial, true, true},
		{"refused, wrapped", &url.Error{Op: "Post", Err: dial}, true, true},
		{"reset after sending", reset, true, false},
		{"unexpected EOF", fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), true, false},
		{"redirect loop", redirects, false, false},
		{"bad certificate", cert, false, false},
		{"other", errors.New("unsupported protocol scheme"), false, false},
	} {
		for method, want := range map[string]bool{http.MethodGet: tc.get, http.MethodPut: tc.get, http.MethodPost: tc.post} {
			s := (&Client{}).newCall(context.Background(), Request{Method: method})
			got, err := s.retry(context.Background(), nil, tc.err)
			assert.NoError(t, err)
			assert.Equal(t, want, got, "%s %s", method, tc.name)
		}
	}
}

func TestCallStateRetryStopsOnDoneContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := (&Client{}).newCall(ctx, Request{Method: http.MethodGet})
	retry, err := s.retry(ctx, &http.Response{StatusCode: 503}, nil)
	assert.False(t, retry)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestRetryAfterForms(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := func(v string) http.Header { return http.Header{"Retry-After": {v}} }
	for v, want := range map[string]time.Duration{
		"0":                             0,
		"7":                             7 * time.Second,
		" 7 ":                           7 * time.Second,
		"99999999999":                   24 * time.Hour,
		"Thu, 01 Jan 2026 00:00:30 GMT": 30 * time.Second,
		"Wed, 31 Dec 2025 23:00:00 GMT": 0, // in the past
	} {
		got, ok := RetryAfter(h(v), now)
		assert.True(t, ok, v)
		assert.Equal(t, want, got, v)
	}
	for _, v := range []string{"", "-1", "soon", "1.5"} {
		_, ok := RetryAfter(h(v), now)
		assert.False(t, ok, v)
	}
}

func TestOriginIgnoresDefaultPorts(t *testing.T) {
	u := func(s string) *url.URL { p, _ := url.Parse(s); return p }
	assert.Equal(t, originOf(u("https://REST.edapp.com")), originOf(u("https://rest.edapp.com:443/x")))
	assert.NotEqual(t, originOf(u("https://rest.edapp.com")), originOf(u("http://rest.edapp.com")))
	assert.NotEqual(t, originOf(u("https://rest.edapp.com")), originOf(u("https://evil.rest.edapp.com")))
}

// TestCallStateRetryOn429: a 429 pauses the whole client for its
// Retry-After, capped at MaxPause and not at MaxWait; the call retries,
// whatever its method, only if it may wait that long.
func TestCallStateRetryOn429(t *testing.T) {
	answer := &http.Response{StatusCode: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"3600"}}}
	c := &Client{maxPause: time.Minute, now: time.Now}
	for _, tc := range []struct {
		name        string
		method      string
		maxThrottle time.Duration
		deadline    time.Duration // 0: none
		want        bool
	}{
		{"GET, free to wait", http.MethodGet, -1, 0, true},
		{"POST, free to wait", http.MethodPost, -1, 0, true},
		{"WithMaxThrottle shorter than the pause", http.MethodGet, time.Second, 0, false},
		{"deadline sooner than the pause", http.MethodGet, -1, time.Second, false},
		{"deadline later than the pause", http.MethodGet, -1, time.Hour, true},
	} {
		ctx := context.Background()
		if tc.deadline > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, tc.deadline)
			defer cancel()
		}
		s := c.newCall(ctx, Request{Method: tc.method, MaxThrottle: tc.maxThrottle})
		got, err := s.retry(ctx, answer, nil)
		assert.NoError(t, err)
		assert.Equal(t, tc.want, got, tc.name)
		d := c.PausedFor()
		assert.True(t, d > 59*time.Second && d <= time.Minute, "%s: paused %v, capped at MaxPause", tc.name, d)
		assert.Equal(t, d.Round(time.Second), s.backoffFor(time.Millisecond, time.Millisecond, 0, answer).Round(time.Second),
			"%s: the backoff is the client's pause, not MaxWait", tc.name)
	}
}
