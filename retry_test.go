package edapp

// Tests of the retry policy: which answers and errors are retried, how
// long the waits are, and that a write is never sent twice.

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp/internal/core"
	"github.com/edapp-go/edapp/internal/transport"
)

func TestRetryMatrix(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		method   string
		statuses []int
		wantHits int32
		wantErr  error
	}{
		{"GET retried on 503 then succeeds", http.MethodGet, []int{503, 503}, 3, nil},
		{"GET retried on 500 502 504", http.MethodGet, []int{500, 502, 504}, 4, nil},
		{"PUT retried on 429", http.MethodPut, []int{429}, 2, nil},
		{"DELETE retried on 502", http.MethodDelete, []int{502}, 2, nil},
		{"POST not retried on 500", http.MethodPost, []int{500}, 1, ErrServer},
		{"POST not retried on 503", http.MethodPost, []int{503}, 1, ErrServer},
		{"POST retried on 429", http.MethodPost, []int{429, 429}, 3, nil},
		{"GET not retried on 400", http.MethodGet, []int{400}, 1, ErrBadRequest},
		{"GET not retried on 501", http.MethodGet, []int{501}, 1, ErrServer},
		{"GET gives up after MaxRetries with a typed error", http.MethodGet, []int{503, 503, 503, 503, 503}, 4, ErrServer},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			c := coreServer(t, statusSeq(&hits, tc.statuses...))
			err := c.Do(context.Background(), tc.method, "/v2/x", nil, map[string]int{"n": 1}, nil)
			assert.Equal(t, tc.wantHits, hits.Load())
			if tc.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.NotContains(t, err.Error(), "giving up")
			assert.Equal(t, "try again", apiErr.Message)
		})
	}
}

func TestRetryBodyIsRewound(t *testing.T) {
	t.Parallel()
	var bodies []string
	var hits atomic.Int32
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		if hits.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	require.NoError(t, c.Do(context.Background(), http.MethodPut, "/v2/users/1", nil, map[string]string{"timeZone": "UTC"}, nil))
	assert.Equal(t, []string{`{"timeZone":"UTC"}`, `{"timeZone":"UTC"}`}, bodies)
}

func TestPOSTRetriesOnlyWhenNothingWasSent(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &net.AddrError{Err: "connection refused"}}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}

	t.Run("POST retried after a refused connection", func(t *testing.T) {
		c, mock := mockClient(t)
		mock.RegisterResponder(http.MethodPost, "https://rest.example.test/v2/webhooks",
			httpmock.NewErrorResponder(refused).Then(httpmock.NewStringResponder(200, `{"id":"w1"}`)))
		var out struct{ ID string }
		require.NoError(t, c.Do(context.Background(), http.MethodPost, "/v2/webhooks", nil, map[string]string{}, &out))
		assert.Equal(t, "w1", out.ID)
		assert.Equal(t, 2, mock.GetCallCountInfo()["POST https://rest.example.test/v2/webhooks"])
	})
	t.Run("POST not retried after a reset: the server may have acted", func(t *testing.T) {
		c, mock := mockClient(t)
		mock.RegisterResponder(http.MethodPost, "https://rest.example.test/v2/users", httpmock.NewErrorResponder(reset))
		err := c.Do(context.Background(), http.MethodPost, "/v2/users", nil, map[string]string{}, nil)
		require.Error(t, err)
		assert.ErrorIs(t, err, syscall.ECONNRESET)
		assert.Equal(t, 1, mock.GetCallCountInfo()["POST https://rest.example.test/v2/users"])
		assert.Contains(t, err.Error(), "POST /v2/users")
	})
	t.Run("GET retried after a reset", func(t *testing.T) {
		c, mock := mockClient(t)
		mock.RegisterResponder(http.MethodGet, "https://rest.example.test/v2/users",
			httpmock.NewErrorResponder(reset).Then(httpmock.NewErrorResponder(reset)).Then(httpmock.NewStringResponder(200, `[]`)))
		require.NoError(t, c.Do(context.Background(), http.MethodGet, "/v2/users", nil, nil, nil))
		assert.Equal(t, 3, mock.GetCallCountInfo()["GET https://rest.example.test/v2/users"])
	})
}

func TestBackoffHonoursRetryAfterOn503(t *testing.T) {
	t.Parallel()
	h := func(v string) *http.Response {
		return &http.Response{StatusCode: 503, Header: http.Header{"Retry-After": {v}}}
	}
	assert.Equal(t, 2*time.Second, transport.Backoff(time.Second, 30*time.Second, 0, h("2")))
	assert.Equal(t, 30*time.Second, transport.Backoff(time.Second, 30*time.Second, 0, h("3600")), "capped at MaxWait")
	date := time.Now().Add(10 * time.Second).UTC().Format(http.TimeFormat)
	d := transport.Backoff(time.Second, 30*time.Second, 0, h(date))
	assert.True(t, d > 8*time.Second && d <= 10*time.Second, "HTTP-date form: %v", d)
	assert.Equal(t, 5*time.Second, transport.Backoff(time.Second, 5*time.Second, 0, h(date)), "date form capped too")

	// Without Retry-After: exponential with jitter, never above the cap.
	for attempt := range 40 {
		d := transport.Backoff(100*time.Millisecond, 2*time.Second, attempt, nil)
		step := min(100*time.Millisecond<<min(attempt, 30), 2*time.Second)
		assert.GreaterOrEqual(t, d, step/2)
		assert.LessOrEqual(t, d, step)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	c := coreServer(t, statusSeq(&hits, 503, 503, 503), WithRetry(RetryPolicy{MaxRetries: 3, MinWait: time.Hour, MaxWait: time.Hour}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Do(ctx, http.MethodGet, "/v2/x", nil, nil, nil) }()
	waitFor(t, func() bool { return hits.Load() == 1 })
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, context.Canceled, err, "Do returns ctx's error itself")
	case <-time.After(5 * time.Second):
		t.Fatal("Do did not return after cancel during a backoff")
	}
}

func TestZeroMaxWaitMeansTheDefaultCap(t *testing.T) {
	t.Parallel()
	p, err := core.NormalizeRetry(RetryPolicy{MaxRetries: 1})
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, p.MaxWait)
	p, err = core.NormalizeRetry(RetryPolicy{MaxRetries: 1, MinWait: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, time.Minute, p.MaxWait, "never below MinWait")
	assert.Equal(t, 30*time.Second, DefaultRetryPolicy().MaxWait)

	// A day-long Retry-After pauses the client for one budget window; a
	// call whose deadline ends sooner fails at once with the 429.
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "86400")
		w.WriteHeader(http.StatusTooManyRequests)
	}, WithRetry(RetryPolicy{MaxRetries: 1}))
	var r Response
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = c.Users.Get(ctx, "a", WithResponseInto(&r))
	assert.ErrorIs(t, err, ErrRateLimited, "it was held by the service's rate limit")
	assert.NoError(t, ctx.Err(), "it did not wait for its deadline")
	assert.Equal(t, 1, r.Attempts)
	d := c.core.PausedFor()
	assert.True(t, d > DefaultBudgetWindow-time.Minute && d <= DefaultBudgetWindow, "paused for one window: %v", d)
}

func TestConnectionRefusedPOSTRetriesThenFails(t *testing.T) {
	t.Parallel()
	// Nothing listens here: every attempt is refused before anything is sent.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()

	var attempts atomic.Int32
	count := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		attempts.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})
	c, err := NewClient("fault-test-token", WithBaseURL("http://"+addr), WithRateLimit(rate.Inf, 0),
		WithHTTPClient(&http.Client{Transport: count}),
		WithRetry(RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
	require.NoError(t, err)
	err = c.Do(context.Background(), http.MethodPost, "/v2/users", nil, map[string]string{}, nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED, "the dial error stays reachable")
	assert.Contains(t, err.Error(), "POST /v2/users")
	assert.EqualValues(t, 3, attempts.Load(), "a refused POST was never sent, so it is retried")
}

func TestRetryLogLineCarriesStatusAndWait(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		io.WriteString(w, `{"totalCount":2,"items":[{"id":"a"},{"id":"b"}]}`)
	}))
	defer srv.Close()
	buf := new(lockedBuffer)
	log := slog.New(slog.NewTextHandler(buf, nil))
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLogger(log), WithRetry(RetryPolicy{}))
	require.NoError(t, err)
	// The iterator's pages take the call's own retry policy and headers.
	n := 0
	for _, err := range c.Users.All(context.Background(), nil,
		WithRequestRetry(RetryPolicy{MaxRetries: 1, MinWait: time.Millisecond, MaxWait: time.Millisecond})) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 2, n)
	assert.Contains(t, buf.String(), "edapp: retrying request")
	assert.Contains(t, buf.String(), "status=502")
	assert.Contains(t, buf.String(), "waited=")
}
