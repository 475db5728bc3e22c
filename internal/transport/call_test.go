package transport

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// When the retries run out on a status, the final answer is read as any
// other failed answer is: within MaxErrorBody, marked truncated.
func TestDoReadsTheAnswerTheRetriesRanOutOn(t *testing.T) {
	t.Parallel()
	body := bytes.Repeat([]byte("x"), MaxErrorBody+10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write(body)
	}))
	defer srv.Close()
	base, err := url.Parse(srv.URL)
	require.NoError(t, err)
	c := New(Config{BaseURL: base, Token: "t", MaxBody: 1 << 20,
		Retry: Policy{MaxRetries: 1, MinWait: time.Millisecond, MaxWait: time.Millisecond}})

	resp, err := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/x"})
	require.NoError(t, err)
	defer resp.Release()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, 2, resp.Attempts)
	assert.True(t, resp.Truncated)
	assert.Len(t, resp.Body, MaxErrorBody)
}
