package edapp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

func TestWithAttemptTimeoutEndsAStalledRead(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(done)
	c, err := NewClient("t", WithBaseURL(srv.URL), WithRateLimit(rate.Inf, 0), WithAttemptTimeout(50*time.Millisecond),
		WithRetry(RetryPolicy{MaxRetries: 1, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = c.Users.Get(ctx, "u1")
	assert.ErrorContains(t, err, "no complete answer within 50ms")
	assert.NoError(t, ctx.Err())
	assert.Equal(t, int32(2), hits.Load(), "a stalled read is a connection error, tried again")
}

func TestWithAttemptTimeoutRejectsBadValues(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, -time.Second, time.Microsecond} {
		_, err := NewClient("t", WithAttemptTimeout(d))
		assert.ErrorIs(t, err, ErrInvalidInput, "%s", d)
	}
	cfg, err := applyOptions(DefaultBaseURL, nil)
	require.NoError(t, err)
	assert.Equal(t, DefaultAttemptTimeout, cfg.AttemptTimeout, "every client has a bound by default")
}
