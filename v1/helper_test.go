package v1_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp"
	v1 "github.com/edapp-go/edapp/v1"
)

const prefix = "/prefix"

// request is what the fake server saw.
type request struct {
	Method string
	Path   string // escaped, as sent, without the prefix
	Body   string
	Auth   string
	Type   string
}

// reply is what the fake server answers.
type reply struct {
	Status int
	Body   string
}

// fake is an httptest server mounted under /prefix, so a client that drops
// the base URL's path prefix hits a 404.
type fake struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	reqs    []request
	replies []reply
	onReq   func(request)
}

func newFake(t *testing.T, replies ...reply) *fake {
	t.Helper()
	f := &fake{t: t, replies: replies}
	mux := http.NewServeMux()
	mux.HandleFunc(prefix+"/", f.handle)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the prefix: %s %s", r.Method, r.URL.EscapedPath())
		http.NotFound(w, r)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := request{
		Method: r.Method,
		Path:   strings.TrimPrefix(r.URL.EscapedPath(), prefix),
		Body:   string(body),
		Auth:   r.Header.Get("Authorization"),
		Type:   r.Header.Get("Content-Type"),
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	rep := reply{Status: http.StatusOK, Body: `{}`}
	if len(f.replies) > 0 {
		rep = f.replies[0]
		f.replies = f.replies[1:]
	}
	on := f.onReq
	f.mu.Unlock()
	if on != nil {
		on(req)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.Status)
	io.WriteString(w, rep.Body)
}

// requests returns what the server saw so far.
func (f *fake) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.reqs...)
}

// only returns the single request the server saw.
func (f *fake) only() request {
	f.t.Helper()
	reqs := f.requests()
	if len(reqs) != 1 {
		f.t.Fatalf("server saw %d requests, want 1: %+v", len(reqs), reqs)
	}
	return reqs[0]
}

func (f *fake) client(opts ...v1.Option) *v1.Client {
	f.t.Helper()
	c, err := edapp.NewClient("test-token",
		edapp.WithBaseURL(f.srv.URL+prefix),
		edapp.WithRateLimit(rate.Inf, 0),
		edapp.WithRetry(edapp.RetryPolicy{}))
	if err != nil {
		f.t.Fatal(err)
	}
	legacy, err := v1.New(c, opts...)
	if err != nil {
		f.t.Fatal(err)
	}
	return legacy
}

// ok is a 200 answer with body.
func ok(body string) reply { return reply{Status: http.StatusOK, Body: body} }

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantRequest(t *testing.T, got request, method, path, body string) {
	t.Helper()
	if got.Method != method || got.Path != path {
		t.Errorf("request = %s %s, want %s %s", got.Method, got.Path, method, path)
	}
	if got.Body != body {
		t.Errorf("body = %#q, want %#q", got.Body, body)
	}
	if got.Auth != "Bearer test-token" {
		t.Errorf("Authorization = %q", got.Auth)
	}
	if body != "" && got.Type != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", got.Type)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func sameTime(t *testing.T, what string, got edapp.Time, want string) {
	t.Helper()
	if want == "" {
		if !got.IsZero() {
			t.Errorf("%s = %v, want zero", what, got)
		}
		return
	}
	if w := mustTime(t, want); !got.Equal(w) {
		t.Errorf("%s = %v, want %v", what, got, w)
	}
}
