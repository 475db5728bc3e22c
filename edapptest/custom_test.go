package edapptest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/fakeserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFailNextOn(t *testing.T) {
	h := newHarness(t)
	g := h.mustGroup("G", "", "")
	h.FailNextOn("GET /v2/usergroups/{id}/users", 2, http.StatusBadGateway, 0)
	h.FailNext(1, http.StatusServiceUnavailable, 0)

	assert.Equal(t, http.StatusBadGateway, h.do("GET", "/v2/usersgroups/"+g+"/users", nil).status, "the scoped failure first")
	assert.Equal(t, http.StatusServiceUnavailable, h.do("GET", "/v2/users", nil).status, "the unscoped one elsewhere")
	h.get("/v2/users", nil)
	h.ok("POST", "/v2/usergroups/"+g+"/users", map[string]string{"userId": h.mustUser(UserSpec{Username: "u"})}, nil)
	assert.Equal(t, http.StatusBadGateway, h.do("GET", "/v2/usergroups/"+g+"/users", nil).status)
	h.get("/v2/usergroups/"+g+"/users", nil)

	// Without a method every method fails; n <= 0 cancels.
	h.FailNextOn("/v2/usergroups", 3, http.StatusInternalServerError, 0)
	assert.Equal(t, 500, h.do("POST", "/v2/usergroups", map[string]string{"name": "x"}).status)
	assert.Equal(t, 500, h.do("GET", "/v2/usergroups", nil).status)
	h.FailNextOn("/v2/usergroups", 0, 0, 0)
	h.get("/v2/usergroups", nil)
}

func TestHandle(t *testing.T) {
	h := newHarness(t)
	u := h.mustUser(UserSpec{Username: "real"})
	require.NoError(t, h.Handle("GET /v2/users/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fakeserver.WriteJSON(w, http.StatusOK, v2User{ID: r.PathValue("id"), Name: "overridden"})
	})))
	var got v2User
	h.get("/v2/users/"+u, &got)
	assert.Equal(t, v2User{ID: u, Name: "overridden"}, got)
	var all page[v2User]
	h.get("/v2/users", &all)
	assert.Equal(t, "real", all.Items[0].Name, "the other routes are the fake's")
	assert.Equal(t, 401, h.raw("GET", "/v2/users/"+u, "", nil).status, "the token is checked first")
	assert.Equal(t, 1, h.RequestCount("GET /v2/users/{id}"))

	// A new route, a body, then removal.
	require.NoError(t, h.Handle("POST /v2/things", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in map[string]string
		_ = decodeBody(r, &in)
		fakeserver.WriteJSON(w, http.StatusCreated, in)
	})))
	r := h.do("POST", "/v2/things", map[string]string{"a": "b"})
	assert.Equal(t, http.StatusCreated, r.status)
	assert.JSONEq(t, `{"a":"b"}`, string(r.body))
	require.NoError(t, h.Handle("GET /v2/users/{id}", nil))
	h.get("/v2/users/"+u, &got)
	assert.Equal(t, "real", got.Name)

	assert.ErrorIs(t, h.Handle("GET /v2/{bad", http.NotFoundHandler()), ErrInvalid)
	require.NoError(t, h.Handle("/v2/{a}/z", http.NotFoundHandler()))
	assert.ErrorIs(t, h.Handle("/v2/y/{b}", http.NotFoundHandler()), ErrInvalid, "conflicts with /v2/{a}/z")
	assert.Equal(t, http.StatusCreated, h.do("POST", "/v2/things", map[string]string{}).status, "a refused pattern changes nothing")
}

func decodeBody(r *http.Request, v any) error { return json.NewDecoder(r.Body).Decode(v) }

// panicRecorder is a testing.TB that records what New reports.
type panicRecorder struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (p *panicRecorder) Helper()          {}
func (p *panicRecorder) Cleanup(f func()) { p.cleanups = append(p.cleanups, f) }
func (p *panicRecorder) Errorf(format string, a ...any) {
	p.errors = append(p.errors, fmt.Sprintf(format, a...))
}

// TestNewFailsOnPanic: a handler that panics answers 500, and the test
// that made the fake with New fails when it ends.
func TestNewFailsOnPanic(t *testing.T) {
	rec := &panicRecorder{}
	srv := New(rec)
	require.NoError(t, srv.Handle("GET /v2/users", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("boom")
	})))
	_, err := srv.Client(edapp.WithRetry(edapp.RetryPolicy{MaxRetries: 0})).Users.List(t.Context(), nil)
	assert.Error(t, err)
	require.Len(t, rec.cleanups, 1)
	assert.Empty(t, rec.errors, "nothing reported before the test ends")
	rec.cleanups[0]()
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], "GET /v2/users: boom")

	quiet := &panicRecorder{}
	srv = New(quiet)
	_, err = srv.Client().Users.List(t.Context(), nil)
	require.NoError(t, err)
	quiet.cleanups[0]()
	assert.Empty(t, quiet.errors)
}
