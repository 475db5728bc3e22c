package edapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/redact"
	"golang.org/x/time/rate"

	"sync"

	"bufio"
	"runtime"

	"reflect"

	"github.com/edapp-go/edapp/internal/transport"
)

const coreToken = "secret-token-9f2c"

// fastRetry retries quickly, so retry tests take milliseconds.
var fastRetry = RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond}

// coreServer serves h under a path prefix and returns a client for it, so a
// request that drops the prefix fails loudly with a 404.
func coreServer(t *testing.T, h http.HandlerFunc, opts ...Option) *Client {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/prefix/", http.StripPrefix("/prefix", h))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the base URL's path prefix: %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	all := append([]Option{WithBaseURL(srv.URL + "/prefix/"), WithRateLimit(rate.Inf, 0), WithRetry(fastRetry)}, opts...)
	c, err := NewClient(coreToken, all...)
	require.NoError(t, err)
	return c
}

// TestNewClientRejectsBadInput: every bad token and every bad value of
// every client option fails NewClient, with ErrInvalidInput and a message
// that names it.
func TestNewClientRejectsBadInput(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		token string
		opts  []Option
		want  string
	}{
		"empty token":                 {"", nil, "API token is empty"},
		"blank token":                 {"  ", nil, "API token is empty"},
		"token with a line break":     {"t\n", nil, "line break"},
		"relative URL":                {"t", []Option{WithBaseURL("rest.edapp.com")}, "absolute http or https"},
		"ftp URL":                     {"t", []Option{WithBaseURL("ftp://rest.edapp.com")}, "absolute http or https"},
		"bad URL":                     {"t", []Option{WithBaseURL("http://[::1")}, "base URL"},
		"query in URL":                {"t", []Option{WithBaseURL("https://h/?a=b")}, "query"},
		"credentials in URL":          {"t", []Option{WithBaseURL("https://u:p@h/")}, "credentials"},
		"empty URL":                   {"t", []Option{WithBaseURL("")}, "absolute http or https"},
		"nil HTTP client":             {"t", []Option{WithHTTPClient(nil)}, "WithHTTPClient(nil)"},
		"negative retries":            {"t", []Option{WithRetry(RetryPolicy{MaxRetries: -1})}, "retry policy"},
		"negative MinWait":            {"t", []Option{WithRetry(RetryPolicy{MinWait: -1})}, "retry policy"},
		"MaxWait below MinWait":       {"t", []Option{WithRetry(RetryPolicy{MinWait: time.Second, MaxWait: time.Millisecond})}, "retry policy"},
		"zero rate limit":             {"t", []Option{WithRateLimit(0, 1)}, "WithRateLimit"},
		"negative rate limit":         {"t", []Option{WithRateLimit(-1, 1)}, "WithRateLimit"},
		"zero burst":                  {"t", []Option{WithRateLimit(10, 0)}, "WithRateLimit"},
		"zero response bound":         {"t", []Option{WithMaxResponseBytes(0)}, "WithMaxResponseBytes"},
		"negative response bound":     {"t", []Option{WithMaxResponseBytes(-1)}, "WithMaxResponseBytes"},
		"user agent with a newline":   {"t", []Option{WithUserAgent("a\r\nX-Evil: 1")}, "WithUserAgent"},
		"user agent with a NUL":       {"t", []Option{WithUserAgent("a\x00")}, "WithUserAgent"},
		"a good option does not hide": {"t", []Option{WithRateLimit(0, 1), WithLimiter(nil)}, "WithRateLimit"},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := NewClient(tc.token, tc.opts...)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.ErrorIs(t, err, ErrInvalidInput)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	c, err := NewClient("t")
	require.NoError(t, err)
	assert.Equal(t, DefaultBaseURL, c.BaseURL())
	assert.Equal(t, "edapp.Client{https://rest.edapp.com}", c.String())
	assert.NotContains(t, fmt.Sprintf("%+v %#v", c, c), "Bearer")
}

func TestHeadersAndPathPrefix(t *testing.T) {
	t.Parallel()
	var got *http.Request
	var body []byte
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		got = r
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	}, WithUserAgent("myapp/2.1"))

	var out struct{ OK bool }
	q := struct {
		Page int    `url:"page,omitempty"`
		Name string `url:"userName,omitempty"`
	}{2, "ann@example.com"}
	require.NoError(t, c.Do(context.Background(), http.MethodPost, "/v2/things/a%2Fb", q, map[string]string{"k": "v"}, &out))
	assert.True(t, out.OK)
	assert.Equal(t, "Bearer "+coreToken, got.Header.Get("Authorization"))
	assert.Equal(t, "myapp/2.1 edapp-go/"+Version, got.Header.Get("User-Agent"))
	assert.Equal(t, "application/json", got.Header.Get("Accept"))
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.Equal(t, "/v2/things/a%2Fb", got.URL.EscapedPath())
	assert.Equal(t, "page=2&userName=ann%40example.com", got.URL.RawQuery)
	assert.JSONEq(t, `{"k":"v"}`, string(body))

	// url.Values works too, and a GET sends no Content-Type.
	require.NoError(t, c.Do(context.Background(), http.MethodGet, "/v2/x", url.Values{"a": {"1"}}, nil, nil))
	assert.Equal(t, "a=1", got.URL.RawQuery)
	assert.Empty(t, got.Header.Get("Content-Type"))
}

func TestDoRefusesBadPathBeforeSending(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	for _, p := range []string{"v2/users", "https://evil.example/v2/users", "/v2/users?x=1"} {
		err := c.Do(context.Background(), http.MethodGet, p, nil, nil, nil)
		assert.ErrorIs(t, err, ErrInvalidInput, p)
	}
	assert.Zero(t, hits.Load())
}

// statusSeq answers the given statuses in turn, then 200 {"ok":true}.
func statusSeq(hits *atomic.Int32, statuses ...int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n := int(hits.Add(1)) - 1
		io.Copy(io.Discard, r.Body)
		if n < len(statuses) {
			w.WriteHeader(statuses[n])
			io.WriteString(w, `{"message":"try again"}`)
			return
		}
		io.WriteString(w, `{"ok":true}`)
	}
}

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

// mockClient routes the client's own transport through httpmock: the
// retrying client builds its own http.Client, so the default transport
// would not see these requests.
func mockClient(t *testing.T, opts ...Option) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mock := httpmock.NewMockTransport()
	mock.RegisterNoResponder(httpmock.NewNotFoundResponder(t.Error)) // a request nobody expected fails the test
	all := append([]Option{
		WithBaseURL("https://rest.example.test"),
		WithHTTPClient(&http.Client{Transport: mock}),
		WithRateLimit(rate.Inf, 0),
		WithRetry(fastRetry),
	}, opts...)
	c, err := NewClient(coreToken, all...)
	require.NoError(t, err)
	return c, mock
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

// TestRetryAfterPausesUpToOneWindow: a 429's Retry-After pauses the whole
// client for as long as it says, up to one budget window, whatever the
// retry policy's MaxWait; a call that may not wait that long fails at once
// with the 429, and so does the next call, without sending anything.
func TestRetryAfterPausesUpToOneWindow(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	}, WithRetry(RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: 10 * time.Millisecond}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.Do(ctx, http.MethodGet, "/v2/x", nil, nil, nil)
	require.ErrorIs(t, err, ErrRateLimited)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, time.Hour, apiErr.RetryAfter)
	assert.EqualValues(t, 1, hits.Load(), "no retry into another 429")
	assert.NoError(t, ctx.Err())
	d := c.t.PausedFor()
	assert.True(t, d > DefaultBudgetWindow-time.Minute && d <= DefaultBudgetWindow, "paused for one window, not MaxWait: %v", d)

	var resp Response
	err = c.Do(ctx, http.MethodGet, "/v2/x", nil, nil, nil, WithMaxThrottle(time.Minute), WithResponseInto(&resp))
	require.ErrorIs(t, err, ErrRateLimited)
	assert.EqualValues(t, 1, hits.Load(), "the next call is refused by the pause, nothing sent")
	assert.Equal(t, 0, resp.Attempts)
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

func TestCancelDuringRateLimitWait(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	c := coreServer(t, statusSeq(&hits), WithRateLimit(rate.Every(time.Hour), 1))
	require.NoError(t, c.Do(context.Background(), http.MethodGet, "/v2/x", nil, nil, nil))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Do(ctx, http.MethodGet, "/v2/x", nil, nil, nil) }()
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("Do did not return after cancel during a rate-limit wait")
	}
	assert.EqualValues(t, 1, hits.Load())

	// A deadline the wait cannot meet fails at once, as a deadline error.
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	assert.ErrorIs(t, c.Do(ctx, http.MethodGet, "/v2/x", nil, nil, nil), context.DeadlineExceeded)
}

func TestRateLimiterDrawsForEveryAttempt(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	// Burst 3, then nothing for an hour: the fourth attempt must wait.
	c := coreServer(t, statusSeq(&hits, 503, 503, 503, 503, 503),
		WithRateLimit(rate.Every(time.Hour), 3),
		WithRetry(RetryPolicy{MaxRetries: 5, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := c.Do(ctx, http.MethodGet, "/v2/x", nil, nil, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualValues(t, 3, hits.Load(), "three tokens, three attempts")
}

func TestTypedErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status int
		is     error
	}{
		{400, ErrBadRequest}, {401, ErrUnauthorized}, {403, ErrForbidden}, {404, ErrNotFound},
		{409, ErrConflict}, {422, ErrBadRequest}, {429, ErrRateLimited}, {500, ErrServer},
	}
	all := []error{ErrBadRequest, ErrUnauthorized, ErrForbidden, ErrNotFound, ErrConflict, ErrRateLimited, ErrServer, ErrUnsuccessful}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Amzn-Requestid", "req-123")
				w.WriteHeader(tc.status)
				io.WriteString(w, `{"message":"it went wrong"}`)
			}, WithRetry(RetryPolicy{}))
			err := c.Do(context.Background(), http.MethodGet, "/v2/users/42", url.Values{"q": {"x"}}, nil, nil)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, "GET", apiErr.Method)
			assert.Equal(t, "/v2/users/42", apiErr.Path)
			assert.Equal(t, "it went wrong", apiErr.Message)
			assert.Equal(t, "req-123", apiErr.RequestID)
			assert.JSONEq(t, `{"message":"it went wrong"}`, string(apiErr.Body))
			assert.Equal(t, fmt.Sprintf("edapp: GET /v2/users/42: %d %s: it went wrong (request id req-123)", tc.status, http.StatusText(tc.status)), err.Error())
			for _, s := range all {
				assert.Equal(t, s == tc.is, errors.Is(err, s), "errors.Is(%d, %v)", tc.status, s)
			}
		})
	}
}

func TestErrorBodyTruncatedAndNonJSON(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 100<<10)
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, big)
	}, WithRetry(RetryPolicy{}))
	err := c.Do(context.Background(), http.MethodGet, "/v2/x", nil, nil, nil)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	// The read stops at 64 KiB; the tail where a split secret could hide is dropped.
	assert.Len(t, apiErr.Body, 64<<10-redact.Tail)
	assert.Empty(t, apiErr.Message)
	assert.Less(t, len(err.Error()), 400, "the error string shows an excerpt only")
}

func TestMalformedSuccessBody(t *testing.T) {
	t.Parallel()
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>Gateway maintenance "+strings.Repeat("-", 2000)+"</body></html>")
	})
	var out struct{ ID string }
	err := c.Do(context.Background(), http.MethodGet, "/v2/users/1", nil, nil, &out)
	var decErr *DecodeError
	require.ErrorAs(t, err, &decErr)
	assert.Equal(t, 200, decErr.StatusCode)
	assert.True(t, strings.HasPrefix(decErr.Body, "<html><body>Gateway maintenance"))
	assert.LessOrEqual(t, len(decErr.Body), 520)
	assert.Contains(t, err.Error(), "GET /v2/users/1: 200")
	var syn *json.SyntaxError
	assert.ErrorAs(t, err, &syn)
}

func TestOddFieldNeverFailsThePage(t *testing.T) {
	t.Parallel()
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"totalCount":3,"items":[
			{"id":"a","when":"2019-03-07T05:10:36.187Z","n":1},
			{"id":"b","when":"last tuesday","n":2},
			{"id":"c","when":null,"n":{"odd":true}}]}`)
	})
	type rec struct {
		ID   string `json:"id"`
		When Time   `json:"when"`
		N    int    `json:"n"`
	}
	var logs bytes.Buffer
	c.logger = slog.New(slog.NewTextHandler(&logs, nil))
	p, err := listPage[rec](context.Background(), c, ids.Fill("/v2/x"), nil)
	require.NoError(t, err)
	require.Len(t, p.Items, 3)
	assert.Equal(t, 3, totalOf(p))
	assert.Equal(t, "a", p.Items[0].ID)
	assert.Equal(t, 1, p.Items[0].N)
	assert.Equal(t, "b", p.Items[1].ID)
	assert.True(t, p.Items[1].When.IsZero())
	assert.Equal(t, 2, p.Items[1].N)
	assert.Equal(t, "c", p.Items[2].ID)
	assert.Contains(t, logs.String(), "items[1].when")
	assert.Contains(t, logs.String(), "items[2].n")
}

func TestTokenNeverInErrorsOrLogs(t *testing.T) {
	t.Parallel()
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		// A careless server echoes the header and a launch link back.
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `{"message":"bad auth %s","link":"https://web.edapp.com/launch-lesson?token=launch-abc&lesson=1"}`, r.Header.Get("Authorization"))
	}, WithRetry(RetryPolicy{}))
	var logs bytes.Buffer
	logged, err := NewClient(coreToken, WithBaseURL(c.BaseURL()), WithRateLimit(rate.Inf, 0), WithRetry(RetryPolicy{MaxRetries: 1, MaxWait: time.Millisecond}),
		WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	require.NoError(t, err)
	for _, cl := range []*Client{c, logged} {
		err := cl.Do(context.Background(), http.MethodGet, "/v2/x", nil, nil, nil)
		require.ErrorIs(t, err, ErrForbidden)
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr)
		for _, s := range []string{err.Error(), apiErr.Message, string(apiErr.Body), fmt.Sprintf("%+v", apiErr)} {
			assert.NotContains(t, s, coreToken)
			assert.NotContains(t, s, "launch-abc")
		}
		assert.Contains(t, apiErr.Message, "[REDACTED]")
	}
	require.NotEmpty(t, logs.String())
	assert.NotContains(t, logs.String(), coreToken)
	assert.NotContains(t, logs.String(), "Bearer")
}

func TestNoAuthorizationAfterRedirectToAnotherHost(t *testing.T) {
	t.Parallel()
	var otherAuth, sameAuth atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherAuth.Store(r.Header.Get("Authorization"))
		io.WriteString(w, `{}`)
	}))
	defer other.Close()
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/landing", http.StatusFound)
		case "/here":
			http.Redirect(w, r, "/prefix/there", http.StatusFound)
		case "/there":
			sameAuth.Store(r.Header.Get("Authorization"))
			io.WriteString(w, `{}`)
		}
	})
	require.NoError(t, c.Do(context.Background(), http.MethodGet, "/away", nil, nil, nil))
	assert.Equal(t, "", otherAuth.Load(), "token leaked to another host")
	require.NoError(t, c.Do(context.Background(), http.MethodGet, "/here", nil, nil, nil))
	assert.Equal(t, "Bearer "+coreToken, sameAuth.Load(), "same-origin redirect keeps auth")

	// Same host name, other port: another origin, so no token either.
	u, _ := url.Parse(other.URL)
	otherAuth.Store("unset")
	c2 := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://localhost:"+u.Port()+"/x", http.StatusTemporaryRedirect)
	})
	require.NoError(t, c2.Do(context.Background(), http.MethodGet, "/v2/x", nil, nil, nil))
	assert.Equal(t, "", otherAuth.Load())
}

func TestWithHTTPClientWrapsTransport(t *testing.T) {
	t.Parallel()
	var seen atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) }))
	defer srv.Close()
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
	c, err := NewClient("t", WithBaseURL(srv.URL), WithHTTPClient(hc), WithRateLimit(rate.Inf, 0))
	require.NoError(t, err)
	require.NoError(t, c.Do(context.Background(), http.MethodGet, "/v2/x", nil, nil, nil))
	assert.EqualValues(t, 1, seen.Load())
	assert.IsType(t, roundTripFunc(nil), hc.Transport, "the caller's client is not modified")
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestIDsStayOneSegment(t *testing.T) {
	t.Parallel()
	var paths []string
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.EscapedPath())
		io.WriteString(w, `{}`)
	})
	ctx := context.Background()
	for _, id := range []string{".a", "a/b", "a?b", "ok"} {
		_, err := c.Users.Get(ctx, id)
		require.NoError(t, err, id)
	}
	assert.Equal(t, []string{"/v2/users/.a", "/v2/users/a%2Fb", "/v2/users/a%3Fb", "/v2/users/ok"}, paths)
	_, err := c.Users.Get(ctx, " ")
	assert.ErrorIs(t, err, ErrInvalidInput)
	assert.EqualError(t, err, "edapp: invalid input: userID is empty")
}

func TestNewClientFromEnv(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) Option {
		return WithLookupEnv(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	}
	c, err := NewClientFromEnv(env(map[string]string{"EDAPP_API_TOKEN": "tok"}))
	require.NoError(t, err)
	assert.Equal(t, DefaultBaseURL, c.BaseURL())

	c, err = NewClientFromEnv(env(map[string]string{"EDAPP_API_TOKEN": "tok", "EDAPP_BASE_URL": "http://127.0.0.1:9/p/"}))
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9/p", c.BaseURL())

	c, err = NewClientFromEnv(WithBaseURL("https://explicit.example"), env(map[string]string{"EDAPP_API_TOKEN": "tok", "EDAPP_BASE_URL": "not a url"}))
	require.NoError(t, err, "an explicit WithBaseURL wins, and the variable is not read")
	assert.Equal(t, "https://explicit.example", c.BaseURL())

	for name, vars := range map[string]map[string]string{
		"no token":       {},
		"blank token":    {"EDAPP_API_TOKEN": "  "},
		"token with CR":  {"EDAPP_API_TOKEN": "secret-tok\r"},
		"bad base URL":   {"EDAPP_API_TOKEN": "secret-tok", "EDAPP_BASE_URL": "ftp://secret-host"},
		"base URL creds": {"EDAPP_API_TOKEN": "secret-tok", "EDAPP_BASE_URL": "https://u:secret-pw@h"},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := NewClientFromEnv(env(vars))
			require.ErrorIs(t, err, ErrInvalidInput)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), "EDAPP_")
			assert.NotContains(t, err.Error(), "secret", "the error names the variable, never its value")
		})
	}
	_, err = NewClientFromEnv(WithLookupEnv(nil))
	assert.ErrorIs(t, err, ErrInvalidInput)
	_, err = NewClient("t", WithLookupEnv(nil))
	assert.ErrorIs(t, err, ErrInvalidInput, "a nil lookup is a bad value for every constructor")
}

// Dot-only ids would go out as %2E or %2E%2E, which a decoding proxy may
// take for "." or "..": they are refused like empty ids, before sending.
func TestDotOnlyIDsAreRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request sent: %s %s", r.Method, r.URL.EscapedPath())
	})
	ctx := context.Background()
	for _, id := range []string{".", "..", "..."} {
		calls := map[string]error{}
		_, calls["Users.Get"] = client.Users.Get(ctx, id)
		_, calls["Users.Update"] = client.Users.Update(ctx, id, UserUpdateParams{FirstName: Ptr("A")})
		calls["Users.Delete"] = client.Users.Delete(ctx, id)
		_, calls["Users.Courses"] = client.Users.Courses(ctx, id)
		_, calls["UserGroups.ListUsers"] = client.UserGroups.ListUsers(ctx, id, nil)
		_, calls["UserGroups.ListChildren"] = client.UserGroups.ListChildren(ctx, id, nil)
		calls["UserGroups.AddUser"] = client.UserGroups.AddUser(ctx, id, "u-1")
		calls["UserGroups.RemoveUser"] = client.UserGroups.RemoveUser(ctx, "g-1", id)
		_, calls["Catalog.Lessons"] = client.Catalog.Lessons(ctx, id)
		_, calls["Catalog.ListCollectionCourses"] = client.Catalog.ListCollectionCourses(ctx, id, nil)
		calls["Webhooks.Delete"] = client.Webhooks.Delete(ctx, id)
		for name, err := range calls {
			assert.ErrorIs(t, err, ErrInvalidInput, "%s(%q)", name, id)
		}
		_, err := client.Users.Get(ctx, id)
		assert.EqualError(t, err, `edapp: invalid input: userID "`+id+`" is only dots`)
	}
	// Dots inside an id are fine.
	mux.HandleFunc("/v2/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"id":"a..b"}`))
	})
	_, err := client.Users.Get(ctx, "a..b")
	assert.NoError(t, err)
}

// One rule for v2 and v1: only "success": false is a failure.
func TestDoCheckedRule(t *testing.T) {
	t.Parallel()
	for body, fails := range map[string]bool{
		`{"success":true}`:                      false,
		`{}`:                                    false,
		``:                                      false,
		`not json`:                              false,
		`[]`:                                    false,
		`{"success":"true"}`:                    false,
		`{"success":false}`:                     true,
		`{"success":"False","message":"owner"}`: true,
	} {
		client, mux := setup(t)
		mux.HandleFunc("DELETE /v2/webhooks/w-1", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(body))
		})
		err := client.DoChecked(context.Background(), http.MethodDelete, "/v2/webhooks/w-1", nil, nil)
		if !fails {
			assert.NoError(t, err, body)
			continue
		}
		assert.ErrorIs(t, err, ErrUnsuccessful, body)
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, body, string(apiErr.Body))
	}
}

// endlessBody never ends, and counts what was read of it.
type endlessBody struct {
	mu   sync.Mutex
	read int
}

func (b *endlessBody) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	b.mu.Lock()
	b.read += len(p)
	b.mu.Unlock()
	return len(p), nil
}

func (b *endlessBody) Close() error { return nil }

func TestEndlessErrorBodyIsReadWithinItsBound(t *testing.T) {
	t.Parallel()
	for status, sentinel := range map[int]error{
		http.StatusNotFound: ErrNotFound, http.StatusBadRequest: ErrBadRequest,
		http.StatusUnauthorized: ErrUnauthorized, http.StatusInternalServerError: ErrServer,
	} {
		body := &endlessBody{}
		hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: status, Header: http.Header{}, Body: body, ContentLength: -1, Request: r}, nil
		})}
		c, err := NewClient("t", WithHTTPClient(hc), WithRateLimit(rate.Inf, 0), WithRetry(RetryPolicy{}))
		require.NoError(t, err)
		_, err = c.Users.Get(context.Background(), "a")
		var ae *APIError
		require.ErrorAs(t, err, &ae, "status %d", status)
		assert.ErrorIs(t, err, sentinel)
		assert.LessOrEqual(t, body.read, 64<<10+1, "bytes read of a %d body", status)
	}
}

func TestSuccessBodyBound(t *testing.T) {
	t.Parallel()
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"`+strings.Repeat("a", 2000)+`"}`)
	}, WithMaxResponseBytes(1000))
	_, err := c.Users.Get(context.Background(), "a")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than 1000 bytes")

	_, err = NewClient("t", WithMaxResponseBytes(0))
	assert.ErrorIs(t, err, ErrInvalidInput)
}

func TestZeroMaxWaitMeansTheDefaultCap(t *testing.T) {
	t.Parallel()
	p, err := RetryPolicy{MaxRetries: 1}.normalize()
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, p.MaxWait)
	p, err = RetryPolicy{MaxRetries: 1, MinWait: time.Minute}.normalize()
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
	d := c.t.PausedFor()
	assert.True(t, d > DefaultBudgetWindow-time.Minute && d <= DefaultBudgetWindow, "paused for one window: %v", d)
}

// TestSharedClientUnderLoad runs the parallel path under go test (and so
// under -race in CI): one client, many goroutines, every call succeeds.
func TestSharedClientUnderLoad(t *testing.T) {
	t.Parallel()
	srv := staticServer([]byte(benchUserJSON))
	defer srv.Close()
	c, err := NewClient("t", WithBaseURL(srv.URL), WithRateLimit(rate.Inf, 0))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make(chan error, 16)
	for range 16 {
		go func() {
			var err error
			for range 25 {
				var u *User
				if u, err = c.Users.Get(ctx, "u-1001"); err == nil && u.Username != "ann.lee" {
					err = fmt.Errorf("decoded %q", u.Username)
				}
				if err != nil {
					break
				}
			}
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// droppedLog is a client whose every answer is body, with a logger that
// collects the dropped values Do reports.
func droppedLog(t *testing.T, body []byte) (*Client, func() []string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	var buf bytes.Buffer
	c, err := NewClient("t", WithBaseURL(srv.URL), WithRateLimit(rate.Inf, 0),
		WithLogger(slog.New(slog.NewJSONHandler(&buf, nil))))
	require.NoError(t, err)
	return c, func() []string {
		var fields []string
		for line := range strings.Lines(buf.String()) {
			var rec struct{ Fields []string }
			require.NoError(t, json.Unmarshal([]byte(line), &rec))
			fields = append(fields, rec.Fields...)
		}
		return fields
	}
}

func TestOneBadValueInEveryItemCostsOnlyThoseValues(t *testing.T) {
	t.Parallel()
	for _, envelope := range []bool{true, false} {
		t.Run(fmt.Sprint("envelope=", envelope), func(t *testing.T) {
			c, dropped := droppedLog(t, badDatesPage(1000, envelope))
			p, err := c.Analytics.ListAttempts(context.Background(), &AttemptListOptions{ListOptions: ListOptions{PageSize: 1000}})
			require.NoError(t, err)
			require.Len(t, p.Items, 1000)
			prefix := "items"
			if envelope {
				assert.Equal(t, 1000, totalOf(p))
			} else {
				prefix = ""
				assert.Equal(t, -1, totalOf(p))
			}
			for i, a := range p.Items {
				if a.ID != fmt.Sprintf("att-%06d", i) || a.StartedDateTime.IsZero() || !a.CompletedDateTime.IsZero() {
					t.Fatalf("item %d = %+v", i, a)
				}
			}
			got := dropped()
			require.Len(t, got, 1000)
			for i, path := range got {
				require.Equal(t, fmt.Sprintf("%s[%d].completedDateTime", prefix, i), path)
			}
		})
	}
}

func TestDoReportsDroppedValues(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"u1","name":"ann","lastActiveDate":{"when":"yesterday"},"roles":"app-user","isArchived":false}`)
	c, dropped := droppedLog(t, body)
	var u User
	require.NoError(t, c.Do(context.Background(), http.MethodGet, "/v2/users/u1", nil, nil, &u))
	assert.Equal(t, []string{"lastActiveDate", "roles"}, dropped())
	assert.Equal(t, "ann", u.Username)
	assert.Equal(t, RawFields{"isArchived": json.RawMessage(`false`)}, u.Extra)

	// A clean answer reports nothing.
	c, dropped = droppedLog(t, []byte(benchUserJSON))
	got, err := c.Users.Get(context.Background(), "u-1001")
	require.NoError(t, err)
	assert.Empty(t, dropped())
	assert.Equal(t, "ann.lee", got.Username)
	assert.Equal(t, []string{"g-2"}, got.ManagedUserGroups, "from userGroupsManaged")
	assert.Nil(t, got.Extra)
}

// faultCase is a row of the fault matrix: one fault, for an idempotent GET
// and for a POST. The client must return the right error or recover, within
// the context deadline, without a leaked goroutine, and without sending a
// POST twice where the server may have acted on it.
type faultCase struct {
	name    string
	handler func(hits *atomic.Int32) http.HandlerFunc
	// want for GET and for POST: nil means the call must succeed.
	getErr, postErr   func(t *testing.T, err error)
	getHits, postHits int32 // attempts the server must see (0: don't check)
}

func isErr(target error) func(*testing.T, error) {
	return func(t *testing.T, err error) { t.Helper(); assert.ErrorIs(t, err, target) }
}

func isDecodeErr(t *testing.T, err error) {
	t.Helper()
	var d *DecodeError
	assert.ErrorAs(t, err, &d)
}

func anyErr(t *testing.T, err error) { t.Helper(); assert.Error(t, err) }

// resetMidBody promises a long body, sends part of it and drops the
// connection, on the first `times` attempts; later attempts succeed.
func resetMidBody(times int32) func(*atomic.Int32) http.HandlerFunc {
	return func(hits *atomic.Int32) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			if hits.Add(1) > times {
				io.WriteString(w, `{"id":"ok"}`)
				return
			}
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{\"id\":\"tru")
			buf.Flush()
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0) // RST, not FIN
			}
			conn.Close()
		}
	}
}

func respond(status int, header map[string]string, body string, times int32) func(*atomic.Int32) http.HandlerFunc {
	return func(hits *atomic.Int32) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			if hits.Add(1) > times {
				io.WriteString(w, `{"id":"ok"}`)
				return
			}
			for k, v := range header {
				w.Header().Set(k, v)
			}
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}
}

var faultMatrix = []faultCase{
	{
		name:    "connection reset mid-body, once",
		handler: resetMidBody(1),
		getErr:  nil, getHits: 2, // GET reads the body inside the retry loop and retries
		postErr: anyErr, postHits: 1, // the server may have acted: no second POST
	},
	{
		name:    "connection reset mid-body, always",
		handler: resetMidBody(1 << 30),
		getErr:  anyErr, getHits: 4,
		postErr: anyErr, postHits: 1,
	},
	{
		name:    "truncated JSON",
		handler: respond(200, nil, `{"id":"abc","items":[1,2`, 1<<30),
		getErr:  isDecodeErr, getHits: 1,
		postErr: isDecodeErr, postHits: 1,
	},
	{
		name:    "200 with an HTML body",
		handler: respond(200, map[string]string{"Content-Type": "text/html"}, "<html><body>maintenance</body></html>", 1<<30),
		getErr:  isDecodeErr, getHits: 1,
		postErr: isDecodeErr, postHits: 1,
	},
	{
		name: "slow headers beyond the context deadline",
		handler: func(hits *atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				io.Copy(io.Discard, r.Body) // so the server notices the client hang up
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
			}
		},
		getErr: isErr(context.DeadlineExceeded), postErr: isErr(context.DeadlineExceeded),
	},
	{
		name:    "429 with Retry-After, then success",
		handler: respond(429, map[string]string{"Retry-After": "1"}, `{"message":"slow down"}`, 1),
		getErr:  nil, getHits: 2,
		postErr: nil, postHits: 2, // a 429 was not acted on: POST may retry
	},
	{
		name:    "429 without Retry-After, then success",
		handler: respond(429, nil, `{"message":"slow down"}`, 2),
		getErr:  nil, getHits: 3,
		postErr: nil, postHits: 3,
	},
	{
		name:    "429 for good",
		handler: respond(429, nil, `{"message":"slow down"}`, 1<<30),
		getErr:  isErr(ErrRateLimited), getHits: 4,
		postErr: isErr(ErrRateLimited), postHits: 4,
	},
	{
		name:    "503 burst, then success",
		handler: respond(503, nil, `{"message":"busy"}`, 3),
		getErr:  nil, getHits: 4,
		postErr: isErr(ErrServer), postHits: 1,
	},
	{
		name: "redirect loop",
		handler: func(hits *atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				hits.Add(1)
				http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
			}
		},
		getErr: anyErr, getHits: 10, // net/http stops after 10 hops; no retry of the loop
		postErr: anyErr, postHits: 10,
	},
}

// TestFaultMatrix runs its cases in parallel with each other, and alone
// otherwise, so that the goroutines counted after them are theirs.
func TestFaultMatrix(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Run("cases", func(t *testing.T) { runFaultMatrix(t) })
	assertNoGoroutineLeak(t, before)
}

func runFaultMatrix(t *testing.T) {
	for _, fc := range faultMatrix {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			t.Run(fc.name+"/"+method, func(t *testing.T) {
				t.Parallel()
				var hits atomic.Int32
				srv := httptest.NewServer(fc.handler(&hits))
				tr := &http.Transport{}
				c, err := NewClient("t", WithBaseURL(srv.URL), WithRateLimit(rate.Inf, 0),
					WithHTTPClient(&http.Client{Transport: tr}),
					WithRetry(RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 20 * time.Millisecond}))
				require.NoError(t, err)

				const deadline = 3 * time.Second
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				start := time.Now()
				var out struct{ ID string }
				var body any
				if method == http.MethodPost {
					body = map[string]string{"name": "x"}
				}
				err = c.Do(ctx, method, "/v2/users", nil, body, &out)
				elapsed := time.Since(start)
				cancel()

				check, wantHits := fc.getErr, fc.getHits
				if method == http.MethodPost {
					check, wantHits = fc.postErr, fc.postHits
				}
				if check == nil {
					require.NoError(t, err)
					assert.Equal(t, "ok", out.ID)
				} else {
					require.Error(t, err)
					check(t, err)
					assert.NotContains(t, err.Error(), "giving up")
				}
				if wantHits > 0 {
					assert.Equal(t, wantHits, hits.Load(), "attempts")
				}
				assert.Less(t, elapsed, deadline+time.Second, "returned within the context deadline")

				srv.CloseClientConnections()
				srv.Close()
				tr.CloseIdleConnections()
			})
		}
	}
}

// assertNoGoroutineLeak waits for the goroutine count to fall back to what
// it was; connection goroutines take a moment to notice a closed socket.
func assertNoGoroutineLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			n := runtime.Stack(buf, true)
			t.Errorf("goroutines: %d before, %d after\n%s", before, runtime.NumGoroutine(), firstLines(string(buf[:n]), 60))
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func firstLines(s string, n int) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	var b strings.Builder
	for i := 0; i < n && sc.Scan(); i++ {
		b.WriteString(sc.Text())
		b.WriteByte('\n')
	}
	return b.String()
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

// countingServer answers {"id":"a"} and counts the requests.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.WriteString(w, `{"id":"a","totalCount":1,"items":[{"id":"a"}]}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestDefaultClientSendsAFullBurstAndNoMore(t *testing.T) {
	t.Parallel()
	srv, sent := countingServer(t)
	c, err := NewClient("t", WithBaseURL(srv.URL))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var wg sync.WaitGroup
	var ok, throttled atomic.Int64
	sem := make(chan struct{}, 32)
	for range 1450 {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			_, err := c.Users.Get(ctx, "a")
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ErrRateLimited) && errors.Is(err, context.DeadlineExceeded):
				throttled.Add(1) // refused at once: the wait would outlast ctx
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(DefaultBudget), sent.Load(), "requests on the wire")
	assert.Equal(t, int64(DefaultBudget), ok.Load(), "the whole budget goes out at once")
	assert.Equal(t, int64(50), throttled.Load())
}

// recordingLimiter records the lane of every wait and can fail or pause.
type recordingLimiter struct {
	mu     sync.Mutex
	lanes  []bool
	paused []time.Time
	err    error
	hold   time.Duration
}

func (l *recordingLimiter) Wait(ctx context.Context) error { return l.WaitLane(ctx, false) }

func (l *recordingLimiter) WaitLane(ctx context.Context, bulk bool) error {
	l.mu.Lock()
	l.lanes = append(l.lanes, bulk)
	l.mu.Unlock()
	if l.hold > 0 {
		select {
		case <-time.After(l.hold):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return l.err
}

func (l *recordingLimiter) Pause(until time.Time) {
	l.mu.Lock()
	l.paused = append(l.paused, until)
	l.mu.Unlock()
}

func (l *recordingLimiter) waits() []bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]bool(nil), l.lanes...)
}

func TestLanes(t *testing.T) {
	t.Parallel()
	srv, _ := countingServer(t)
	lim := &recordingLimiter{}
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(lim))
	require.NoError(t, err)
	ctx := context.Background()

	_, err = c.Users.Get(ctx, "a")
	require.NoError(t, err)
	_, err = c.Users.Get(ctx, "a", WithBulk())
	require.NoError(t, err)
	for _, err := range c.Users.All(ctx, nil) {
		require.NoError(t, err)
	}
	_, err = c.Users.Courses(ctx, "a") // paging that serves one interactive call
	require.NoError(t, err)
	assert.Equal(t, []bool{false, true, true, false}, lim.waits())
}

func TestLimiterErrorIsNeverRetried(t *testing.T) {
	t.Parallel()
	srv, sent := countingServer(t)
	down := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	lim := &recordingLimiter{err: errors.New("redis: " + down.Error())}
	lim.err = errors.Join(lim.err, down)
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(lim),
		WithRetry(RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
	require.NoError(t, err)
	var r Response
	_, err = c.Users.Get(context.Background(), "a", WithResponseInto(&r))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rate limiter failed")
	assert.Contains(t, err.Error(), "redis")
	assert.False(t, errors.Is(err, ErrRateLimited), "a broken limiter is not throttling")
	assert.Len(t, lim.waits(), 1, "not retried")
	assert.Zero(t, sent.Load(), "never sent unlimited")
}

func TestWithMaxThrottleFailsFast(t *testing.T) {
	t.Parallel()
	srv, sent := countingServer(t)
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(mustWindowLimiter(1, time.Hour)))
	require.NoError(t, err)
	ctx := context.Background()
	_, err = c.Users.Get(ctx, "a")
	require.NoError(t, err)

	var r Response
	_, err = c.Users.Get(ctx, "a", WithMaxThrottle(50*time.Millisecond), WithResponseInto(&r))
	assert.ErrorIs(t, err, ErrRateLimited)
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "ctx had no deadline")
	assert.Less(t, r.Waited, 50*time.Millisecond, "refused without waiting")
	assert.Equal(t, int64(1), sent.Load(), "nothing sent")

	// Out of ctx while throttled: both.
	ctx2, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err = c.Users.Get(ctx2, "a")
	assert.ErrorIs(t, err, ErrRateLimited)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestA429PausesTheWholeClient(t *testing.T) {
	t.Parallel()
	var first atomic.Bool
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first.CompareAndSwap(false, true) {
			w.WriteHeader(http.StatusTooManyRequests) // no Retry-After: the backoff
			return
		}
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
		io.WriteString(w, `{"id":"a"}`)
	}))
	defer srv.Close()
	lim := &recordingLimiter{}
	policy := RetryPolicy{MaxRetries: 2, MinWait: 100 * time.Millisecond, MaxWait: 200 * time.Millisecond}
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(lim), WithRetry(policy))
	require.NoError(t, err)

	ctx := context.Background()
	got429 := time.Now()
	var r1 Response
	done := make(chan error)
	go func() {
		_, err := c.Users.Get(ctx, "a", WithResponseInto(&r1))
		done <- err
	}()
	// Wait until the 429 has been answered, then start others.
	for !first.Load() {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	var others sync.WaitGroup
	for range 3 {
		others.Add(1)
		go func() {
			defer others.Done()
			var r Response
			_, err := c.Users.Get(ctx, "a", WithResponseInto(&r))
			assert.NoError(t, err)
			assert.Greater(t, r.Waited, time.Duration(0), "held by the pause")
		}()
	}
	others.Wait()
	require.NoError(t, <-done)
	assert.Equal(t, 2, r1.Attempts)
	lim.mu.Lock()
	require.Len(t, lim.paused, 1, "the Pauser was told")
	until := lim.paused[0]
	lim.mu.Unlock()
	// A 429 without Retry-After backs off two steps further: at least 2·MinWait, capped at MaxWait.
	assert.GreaterOrEqual(t, until.Sub(got429), 100*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for _, a := range arrivals {
		assert.False(t, a.Before(until.Add(-5*time.Millisecond)), "a request went out during the pause")
	}
}

func TestLongLimiterWaitIsLogged(t *testing.T) {
	t.Parallel()
	srv, _ := countingServer(t)
	buf := new(lockedBuffer)
	log := slog.New(slog.NewTextHandler(buf, nil))
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(&recordingLimiter{hold: 1100 * time.Millisecond}), WithLogger(log))
	require.NoError(t, err)
	_, err = c.Users.Get(context.Background(), "a")
	require.NoError(t, err)
	assert.Contains(t, buf.String(), "waited for the request budget")
	assert.Contains(t, buf.String(), "after429=false")
}

// lockedBuffer is a log's output that the client's goroutines and the test
// may use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestTokenNeverPrintsFromAClientOrATransportError(t *testing.T) {
	t.Parallel()
	const token = "sekret-token-123"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A malformed Location that echoes the token.
		w.Header().Set("Location", "http://[::1"+r.Header.Get("Authorization")+"%zz/")
		w.WriteHeader(http.StatusFound)
	}))
	defer srv.Close()
	c, err := NewClient(token, WithBaseURL(srv.URL), WithRetry(RetryPolicy{}))
	require.NoError(t, err)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.NotContains(t, fmt.Sprintf(verb, c), token, verb)
		assert.NotContains(t, fmt.Sprintf(verb, reflect.ValueOf(c).Elem().Interface()), token, verb) // a copied Client value
		assert.NotContains(t, fmt.Sprintf(verb, []any{c}), token, verb)
		assert.NotContains(t, fmt.Sprintf(verb, struct{ C *Client }{c}), token, verb)
	}
	_, err = c.Users.Get(context.Background(), "a")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), token)
	assert.NotContains(t, err.Error(), url.QueryEscape(token))
}

func TestWithMaxThrottleZeroGoesWhenASlotIsFree(t *testing.T) {
	t.Parallel()
	srv, sent := countingServer(t)
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(mustWindowLimiter(1, time.Hour)))
	require.NoError(t, err)
	_, err = c.Users.Get(context.Background(), "a", WithMaxThrottle(0))
	require.NoError(t, err, "a free slot: no wait needed")
	_, err = c.Users.Get(context.Background(), "a", WithMaxThrottle(0))
	assert.ErrorIs(t, err, ErrRateLimited, "no free slot: refused at once")
	assert.Equal(t, int64(1), sent.Load())
}

func TestRateLimitHeadersPauseTheClient(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", "1")
		}
		io.WriteString(w, `{"id":"a"}`)
	}))
	defer srv.Close()
	lim := &recordingLimiter{}
	c, err := NewClient("t", WithBaseURL(srv.URL), WithLimiter(lim))
	require.NoError(t, err)
	_, err = c.Users.Get(context.Background(), "a")
	require.NoError(t, err)
	lim.mu.Lock()
	require.Len(t, lim.paused, 1, "no requests left: the budget resets in 1 s")
	lim.mu.Unlock()
	// The next call would have to sit out the pause: refused at once.
	_, err = c.Users.Get(context.Background(), "a", WithMaxThrottle(100*time.Millisecond))
	assert.ErrorIs(t, err, ErrRateLimited)
	assert.Equal(t, int64(1), calls.Load())
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

func TestLimiterOptionsReplaceTheDefault(t *testing.T) {
	t.Parallel()
	srv, sent := countingServer(t)
	for name, opt := range map[string]Option{
		"WithRateLimit(rate.Inf, 0)": WithRateLimit(rate.Inf, 0),
		"WithLimiter(nil)":           WithLimiter(nil),
		"a limiter of one's own":     WithLimiter(mustWindowLimiter(DefaultBudget+100, time.Hour)),
	} {
		sent.Store(0)
		c, err := NewClient("t", WithBaseURL(srv.URL), opt)
		require.NoError(t, err, name)
		for range DefaultBudget + 50 {
			_, err := c.Users.Get(context.Background(), "a", WithMaxThrottle(0))
			require.NoError(t, err, "%s: the default limiter would refuse past %d", name, DefaultBudget)
		}
		assert.Equal(t, int64(DefaultBudget+50), sent.Load(), name)
	}
}
