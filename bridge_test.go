package edapp

import (
	"context"
	"net/http"
	"testing"

	"github.com/edapp-go/edapp/internal/bridge"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBridgeConfigValidatesAsNewClientDoes(t *testing.T) {
	t.Parallel()
	bc, err := bridge.NewConfig([]Option{WithUserAgent("acme/1"), WithObserver(Observer{Page: func(_ context.Context, _ PageEvent) {}})}, "https://api.example.test/")
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.test", bc.BaseURL.String())
	assert.Equal(t, "acme/1", bc.UserAgent)
	assert.NotNil(t, bc.Observer)
	assert.Equal(t, int64(DefaultMaxResponseBytes), bc.MaxBody)
	_, err = bridge.NewConfig([]Option{WithRetry(RetryPolicy{MaxRetries: -1})}, DefaultBaseURL)
	assert.ErrorIs(t, err, ErrInvalidInput)
	_, err = bridge.NewConfig(nil, "ftp://x")
	assert.ErrorIs(t, err, ErrInvalidInput)
	_, err = bridge.NewCaller(bridge.Config{BaseURL: bc.BaseURL, Token: "t", Limiter: "not a limiter"})
	assert.ErrorIs(t, err, ErrInvalidInput)
}

func TestBridgeMergeHeaderLetsTheCallerWin(t *testing.T) {
	t.Parallel()
	base := http.Header{"Sc-Integration-Id": {"edapp-go"}, "X-Request-Id": {"r1"}}
	got := mergeHeader(base, http.Header{"X-Request-Id": {"mine"}, "X-Trace": {"1"}})
	assert.Equal(t, http.Header{"Sc-Integration-Id": {"edapp-go"}, "X-Request-Id": {"mine"}, "X-Trace": {"1"}}, got)
	assert.Equal(t, "r1", base.Get("X-Request-Id"), "base is not changed")
	caller := http.Header{"X-Trace": {"1"}}
	assert.Equal(t, caller, mergeHeader(nil, caller))
}

func TestBridgeWalkSplitsTheOptions(t *testing.T) {
	t.Parallel()
	var into Response
	w := bridge.NewWalk([]RequestOption{WithResponseInto(&into), WithPageConcurrency(2), WithHeader("X-A", "1")})
	require.NoError(t, w.Err)
	assert.Equal(t, 2, w.PageConcurrency)
	rc := newRequestConfig(w.PerPage.([]RequestOption))
	assert.Nil(t, rc.resp, "each page leaves the caller's Response alone")
	assert.True(t, rc.bulk)
	assert.Equal(t, "1", rc.header.Get("X-A"))
	w.Fill(&Response{StatusCode: 201})
	assert.Equal(t, 201, into.StatusCode)
	w.Fill((*Response)(nil))
	assert.Equal(t, 201, into.StatusCode)
	assert.Equal(t, DefaultPageConcurrency, bridge.NewWalk(nil).PageConcurrency)
	assert.ErrorIs(t, bridge.NewWalk([]RequestOption{WithPageConcurrency(0)}).Err, ErrInvalidInput)
}
