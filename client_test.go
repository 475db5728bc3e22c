package edapp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp/internal/ids"
)

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

func TestOddFieldNeverFailsThePage(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"totalCount":3,"items":[
			{"id":"a","when":"2019-03-07T05:10:36.187Z","n":1},
			{"id":"b","when":"last tuesday","n":2},
			{"id":"c","when":null,"n":{"odd":true}}]}`)
	}, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	type rec struct {
		ID   string `json:"id"`
		When Time   `json:"when"`
		N    int    `json:"n"`
	}
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
