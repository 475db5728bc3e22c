package edapp

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRequestOptionsRejectBadValuesBeforeSending: every bad value of every
// per-call option fails that call with ErrInvalidInput, for a typed
// method, a list, an All iterator and Client.Do alike, and nothing is sent.
func TestRequestOptionsRejectBadValuesBeforeSending(t *testing.T) {
	var hits atomic.Int32
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"id":"u1"}`))
	})
	bad := map[string]RequestOption{
		"WithHeader Authorization":     WithHeader("Authorization", "Bearer x"),
		"WithHeader empty key":         WithHeader("", "v"),
		"WithHeader key with a colon":  WithHeader("A:B", "v"),
		"WithHeader value with a CRLF": WithHeader("X-A", "v\r\nX-B: 1"),
		"WithRequestRetry negative":    WithRequestRetry(RetryPolicy{MaxRetries: -1}),
		"WithRequestRetry MaxWait":     WithRequestRetry(RetryPolicy{MinWait: time.Second, MaxWait: time.Millisecond}),
		"WithMaxThrottle negative":     WithMaxThrottle(-time.Second),
		"WithPageConcurrency 0":        WithPageConcurrency(0),
		"WithPageConcurrency negative": WithPageConcurrency(-3),
		"WithRoute empty":              WithRoute(""),
		"WithRoute relative":           WithRoute("v2/users"),
		"WithRoute with a query":       WithRoute("/v2/users?x=1"),
	}
	ctx := context.Background()
	for name, opt := range bad {
		t.Run(name, func(t *testing.T) {
			var resp Response
			_, err := c.Users.Get(ctx, "u1", opt, WithResponseInto(&resp))
			assert.ErrorIs(t, err, ErrInvalidInput, "Get")
			assert.Equal(t, 0, resp.Attempts)
			_, err = c.Users.List(ctx, nil, opt)
			assert.ErrorIs(t, err, ErrInvalidInput, "List")
			for _, err := range c.Users.All(ctx, nil, opt) {
				assert.ErrorIs(t, err, ErrInvalidInput, "All")
			}
			assert.ErrorIs(t, c.Do(ctx, http.MethodGet, "/v2/users/u1", nil, nil, nil, opt), ErrInvalidInput, "Do")
			assert.ErrorIs(t, c.DoChecked(ctx, http.MethodDelete, "/v2/users/u1", nil, nil, opt), ErrInvalidInput, "DoChecked")
		})
	}
	assert.EqualValues(t, 0, hits.Load(), "nothing was sent")
	_, err := c.Users.Get(ctx, "u1", WithRoute("/v2/users/{userId}"), WithMaxThrottle(0), WithPageConcurrency(1))
	require.NoError(t, err, "good values pass")
}
