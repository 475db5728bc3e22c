package transport

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stallingServer answers nothing, or its headers and part of a body, and
// then holds the connection until the test ends.
func stallingServer(t *testing.T, headers bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if headers {
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"items": [`))
			w.(http.Flusher).Flush()
		}
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv, &hits
}

func TestClientDoBoundsEachAttempt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		headers bool
		method  string
		tries   int32
	}{
		{"no answer, read retried", false, http.MethodGet, 3},
		{"body stalls, read retried", true, http.MethodGet, 3},
		{"no answer, write not sent again", false, http.MethodPost, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, hits := stallingServer(t, tc.headers)
			base, _ := url.Parse(srv.URL)
			c := New(Config{BaseURL: base, Token: "tok", MaxBody: 1 << 20, AttemptTimeout: 100 * time.Millisecond,
				Retry: Policy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: time.Millisecond}})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			resp, err := c.Do(ctx, Request{Method: tc.method, Path: "/x", Body: []byte(`{}`)})
			var te *AttemptTimeoutError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, 100*time.Millisecond, te.After)
			assert.ErrorContains(t, err, "/x: no complete answer within 100ms")
			assert.NoError(t, ctx.Err(), "the attempt's bound ended it, not the call's ctx")
			assert.Equal(t, tc.tries, hits.Load())
			assert.Equal(t, int(tc.tries), resp.Attempts)
		})
	}
}

func TestClientDoAttemptBoundLeavesCtxErrors(t *testing.T) {
	t.Parallel()
	srv, _ := stallingServer(t, false)
	base, _ := url.Parse(srv.URL)
	c := New(Config{BaseURL: base, Token: "tok", MaxBody: 1 << 20, AttemptTimeout: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Do(ctx, Request{Method: http.MethodGet, Path: "/x"})
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
	var te *AttemptTimeoutError
	assert.False(t, errors.As(err, &te))
}

func TestAttemptTimeoutErrorIsConnectionError(t *testing.T) {
	t.Parallel()
	assert.True(t, isConnectionError(&AttemptTimeoutError{After: time.Second}))
}
