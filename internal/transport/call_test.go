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

// TestPlainURLIsWhatURLParseGives: a URL built without parsing is the one
// url.Parse gives for the same text, on the wire and as a value; anything
// else is parsed.
func TestPlainURLIsWhatURLParseGives(t *testing.T) {
	t.Parallel()
	plains := 0
	for _, base := range []string{"https://rest.edapp.com", "http://127.0.0.1:8080/api-prefix", "https://h.example/a%20b", "HTTPS://Host.Example:443/p/"} {
		b, err := url.Parse(base)
		require.NoError(t, err)
		c := New(Config{BaseURL: b, Token: "t"})
		for _, r := range []Request{
			{Path: "/v2/users/u-1001"}, {Path: "/v2/users", RawQuery: "page=2&pageSize=100"},
			{Path: "/v2/users/a%2Fb"}, {Path: "/v2/users/a b"}, {Path: "/v2/users/a(b)"}, {Path: "/x/é"},
			{Path: "/x", RawQuery: "q=a b"}, {Path: "/x", RawQuery: "q=a#b"}, {Path: "/x:y@z$&+,;=~"},
		} {
			want, err := url.Parse(c.base + r.Path + map[bool]string{true: "?" + r.RawQuery}[r.RawQuery != ""])
			require.NoError(t, err)
			got, plain := c.plainURL(&r)
			if !plain {
				continue
			}
			plains++
			assert.Equal(t, *want, got, "%s + %+v", base, r)
			assert.Equal(t, want.RequestURI(), got.RequestURI(), "%s + %+v", base, r)
		}
	}
	assert.Equal(t, 9, plains, "the typed methods' paths and queries are built without parsing")
}
