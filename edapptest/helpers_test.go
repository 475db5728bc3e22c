package edapptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is a settable clock for WithClock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2024, 3, 7, 5, 10, 36, 187e6, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// harness wraps a Server with plain net/http helpers.
type harness struct {
	t *testing.T
	*Server
}

// unstarted is a Server with the default options and no listener.
func unstarted(t testing.TB) *Server {
	t.Helper()
	s, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newHarness(t *testing.T, opts ...Option) harness {
	t.Helper()
	return harness{t, New(t, opts...)}
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t *testing.T, out any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.body, out), "body: %s", r.body)
}

func (r resp) message(t *testing.T) string {
	t.Helper()
	var e struct {
		Message *string `json:"message"`
	}
	r.json(t, &e)
	require.NotNil(t, e.Message, "error body without message: %s", r.body)
	return *e.Message
}

// raw sends a request with a raw body and the given token ("" for none).
func (h harness) raw(method, path, token string, body []byte) resp {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, h.URL+path, rd)
	require.NoError(h.t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(h.t, err)
	return resp{res.StatusCode, res.Header, b}
}

// do sends an authenticated request; body is JSON-encoded unless nil.
func (h harness) do(method, path string, body any) resp {
	h.t.Helper()
	var b []byte
	if body != nil {
		var err error
		b, err = json.Marshal(body)
		require.NoError(h.t, err)
	}
	return h.raw(method, path, h.Token, b)
}

// get sends an authenticated GET, wants 200 and decodes into out.
func (h harness) get(path string, out any) {
	h.t.Helper()
	r := h.do("GET", path, nil)
	require.Equal(h.t, http.StatusOK, r.status, "GET %s: %s", path, r.body)
	if out != nil {
		r.json(h.t, out)
	}
}

// ok sends an authenticated request, wants 200 and decodes into out.
func (h harness) ok(method, path string, body, out any) {
	h.t.Helper()
	r := h.do(method, path, body)
	require.Equal(h.t, http.StatusOK, r.status, "%s %s: %s", method, path, r.body)
	if out != nil {
		r.json(h.t, out)
	}
}

// page is the paged envelope, items kept raw.
type page[T any] struct {
	TotalCount int `json:"totalCount"`
	Items      []T `json:"items"`
}

func ids[T any](items []T, id func(T) string) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

// mustUser adds a user or fails.
func (h harness) mustUser(spec UserSpec) string {
	h.t.Helper()
	id, err := h.AddUser(spec)
	require.NoError(h.t, err)
	return id
}

func (h harness) mustGroup(name, parent, code string) string {
	h.t.Helper()
	id, err := h.AddGroup(GroupSpec{Name: name, ParentID: parent, InviteCode: code})
	require.NoError(h.t, err)
	return id
}

func (h harness) mustCourse(spec CourseSpec) (string, []string) {
	h.t.Helper()
	id, lessons, err := h.AddCourse(spec)
	require.NoError(h.t, err)
	return id, lessons
}

func lessonSpecs(titles ...string) []LessonSpec {
	out := []LessonSpec{}
	for _, t := range titles {
		out = append(out, LessonSpec{Title: t, ExternalID: strings.ReplaceAll(strings.ToLower(t), " ", "-"), MinimumScore: 50})
	}
	return out
}

// keys returns the keys of a JSON object in order.
func keys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	var out []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		out = append(out, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return out
}

// assertNoSecret fails when s holds secret in any of its usual encodings.
func assertNoSecret(t *testing.T, s, secret, what string) {
	t.Helper()
	j, _ := json.Marshal(secret)
	for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret),
		strings.Trim(string(j), `"`), strings.ToUpper(secret)} {
		assert.False(t, strings.Contains(s, form), "%s holds a secret (as %q)", what, form)
	}
}

// dumpRequests renders the request log every way a user might print it.
func dumpRequests(t *testing.T, reqs []Request) string {
	t.Helper()
	j, err := json.Marshal(reqs)
	require.NoError(t, err)
	return fmt.Sprintf("%#v\n%v\n%s", reqs, reqs, j)
}
