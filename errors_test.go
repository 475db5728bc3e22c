package edapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp/internal/core"
	"github.com/edapp-go/edapp/internal/redact"
)

// secretToken is an API token with characters that URL and JSON encoding
// change.
const secretToken = "sk_live/Zq8+Wm3=Tx9&Vb2-Rf7"

// launchSecret is a launch token.
const launchSecret = "5d1e0c2a-9f3b-4a7e-8c6d-0b1a2c3d4e5f"

// secretClient returns a client with secretToken pointed at a server that
// runs h, and checks the token was sent.
func secretClient(t *testing.T, retries int, h http.HandlerFunc) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secretToken {
			t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
		}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(secretToken, WithBaseURL(srv.URL), WithRateLimit(rate.Inf, 0),
		WithRetry(RetryPolicy{MaxRetries: retries}))
	require.NoError(t, err)
	return c
}

// secretPieces are parts of the secrets that must never show: long enough
// not to occur by chance, short enough to catch a token cut in two.
func secretPieces() []string {
	var p []string
	for _, s := range []string{secretToken, launchSecret} {
		for i := 0; i+6 <= len(s); i += 3 {
			p = append(p, s[i:i+6])
		}
	}
	// And the encoded forms of the API token's pieces.
	p = append(p, url.QueryEscape("Zq8+Wm3"), `Zq8+Wm3`, "Wm3%3DTx9", `Tx9\u0026Vb2`)
	return p
}

// assertNoSecret fails when any text shows a piece of a secret.
func assertNoSecret(t *testing.T, what string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		for _, piece := range secretPieces() {
			if strings.Contains(s, piece) {
				t.Errorf("%s shows %q: %s", what, piece, core.Excerpt(s[max(0, strings.Index(s, piece)-80):], 200))
				return
			}
		}
	}
}

// apiErrorTexts is every text an *APIError shows.
func apiErrorTexts(t *testing.T, err error) []string {
	t.Helper()
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	return []string{err.Error(), apiErr.Message, string(apiErr.Body), apiErr.RequestID,
		fmt.Sprintf("%v %+v %#v", apiErr, apiErr, apiErr)}
}

// A token that crosses the 64 KiB cut of an error body keeps no part of
// itself: redaction runs before the cut. Both ways a failed body is read
// are covered: a final status (404) and retries that ran out (503).
func TestErrorBodyRedactedBeforeTheCut(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	for _, secret := range []string{secretToken, "token=" + launchSecret, url.QueryEscape(secretToken), `{"token":"` + launchSecret + `"}`} {
		for _, status := range []int{http.StatusNotFound, http.StatusServiceUnavailable} {
			for _, before := range []int{3, 8, len(secret) / 2, len(secret) - 2} {
				name := fmt.Sprintf("%d/%s/%d", status, secret[:8], before)
				body := strings.Repeat("x", limit-before) + secret + strings.Repeat("y", 100)
				c := secretClient(t, 0, func(w http.ResponseWriter, r *http.Request) {
					w.WriteHeader(status)
					_, _ = w.Write([]byte(body))
				})
				_, err := c.Users.Get(context.Background(), "u-1")
				var apiErr *APIError
				require.ErrorAs(t, err, &apiErr, name)
				assert.LessOrEqual(t, len(apiErr.Body), limit, name)
				assert.Equal(t, strings.Repeat("x", 100), string(apiErr.Body[:100]), name)
				assertNoSecret(t, name, apiErrorTexts(t, err)...)
			}
		}
	}
}

// A server that echoes the token in a request-id header does not get it
// into the error.
func TestRequestIDIsCleaned(t *testing.T) {
	t.Parallel()
	for _, header := range []string{"X-Request-Id", "X-Amzn-Requestid", "X-Correlation-Id"} {
		for _, echo := range []string{
			secretToken,
			"req-1 Bearer " + secretToken,
			url.QueryEscape(secretToken),
			"req-1 https://web.edapp.com/launch-lesson?token=" + launchSecret + "&lesson=l",
			"req-1\t" + strings.Repeat("z", 500),
		} {
			c := secretClient(t, 0, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set(header, echo)
				http.Error(w, `{"message":"nope"}`, http.StatusBadRequest)
			})
			_, err := c.Users.Get(context.Background(), "u-1")
			texts := apiErrorTexts(t, err)
			assertNoSecret(t, header, texts...)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.NotEmpty(t, apiErr.RequestID)
			assert.LessOrEqual(t, len(apiErr.RequestID), 128, "a request id is short")
			assert.NotContains(t, apiErr.RequestID, "\t")
		}
	}
	// An ordinary request id is kept as it is.
	c := secretClient(t, 0, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "c0ffee-42")
		http.Error(w, `{"message":"nope"}`, http.StatusBadRequest)
	})
	_, err := c.Users.Get(context.Background(), "u-1")
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "c0ffee-42", apiErr.RequestID)
	assert.Contains(t, err.Error(), "(request id c0ffee-42)")
}

// The API token and launch tokens are redacted in their URL-encoded and
// JSON-escaped forms too, in error bodies, messages and decode errors.
func TestEncodedTokensAreRedacted(t *testing.T) {
	t.Parallel()
	jsonTok, _ := json.Marshal(secretToken) // & as \u0026
	link := "https://web.edapp.com/launch-lesson?token=" + launchSecret + "&lesson=l-1"
	jsonLink, _ := json.Marshal(link)
	nested, _ := json.Marshal(`{"token":"` + launchSecret + `"}`)
	echoes := []string{
		secretToken,
		url.QueryEscape(secretToken),
		url.PathEscape(secretToken),
		string(jsonTok[1 : len(jsonTok)-1]),
		strings.ReplaceAll(string(jsonTok[1:len(jsonTok)-1]), "/", `\/`),
		url.QueryEscape(link),                 // token%3D…
		string(jsonLink[1 : len(jsonLink)-1]), // token=…\u0026lesson
		`"token":"` + launchSecret + `"`,
		`\"token\":\"` + launchSecret + `\"`,
		string(nested[1 : len(nested)-1]),
		`token\u003d` + launchSecret,
	}
	for _, echo := range echoes {
		for _, body := range []string{
			`{"message":"bad request: ` + echo + `","detail":"` + echo + `"}`,
			`not json: ` + echo,
		} {
			c := secretClient(t, 0, func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, body, http.StatusBadRequest)
			})
			_, err := c.Users.Get(context.Background(), "u-1")
			assertNoSecret(t, "APIError for "+echo, apiErrorTexts(t, err)...)

			// A 2xx answer that does not decode: the DecodeError's excerpt.
			c = secretClient(t, 0, func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte(`{"id": ` + body))
			})
			_, err = c.Users.Get(context.Background(), "u-1")
			var de *DecodeError
			require.True(t, errors.As(err, &de), "%v", err)
			assertNoSecret(t, "DecodeError for "+echo, err.Error(), de.Body, fmt.Sprintf("%+v %#v", de, de))
		}
	}
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
