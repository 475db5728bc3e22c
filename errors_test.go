package edapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
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
				t.Errorf("%s shows %q: %s", what, piece, excerpt(s[max(0, strings.Index(s, piece)-80):], 200))
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
