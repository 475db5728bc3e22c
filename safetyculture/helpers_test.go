package safetyculture

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/jarcoal/httpmock"
)

const testToken = "sc-test-token-7f3a9c"

// fastRetry keeps retries in tests short.
var fastRetry = edapp.RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}

// wire is an httptest server whose handler a test sets per path, and
// the requests it received.
type wire struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
	mux  *http.ServeMux
}

func newWire(t *testing.T) *wire {
	t.Helper()
	w := &wire{mux: http.NewServeMux()}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		w.mu.Lock()
		w.reqs = append(w.reqs, r)
		w.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		w.mux.ServeHTTP(rw, r)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

// handle answers pattern ("GET /path") with status and body.
func (w *wire) handle(pattern string, status int, body string) {
	w.mux.HandleFunc(pattern, func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(status)
		io.WriteString(rw, body)
	})
}

// requests returns the requests received so far.
func (w *wire) requests() []*http.Request {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*http.Request(nil), w.reqs...)
}

// client returns a client of the wire's server.
func (w *wire) client(t *testing.T, opts ...edapp.Option) *Client {
	t.Helper()
	c, err := NewClient(testToken, append([]edapp.Option{edapp.WithBaseURL(w.srv.URL), edapp.WithRetry(fastRetry)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mockClient returns a client whose requests go to an httpmock transport.
func mockClient(t *testing.T, opts ...edapp.Option) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	base := []edapp.Option{edapp.WithBaseURL("https://api.example.test"), edapp.WithHTTPClient(&http.Client{Transport: mt}), edapp.WithRetry(fastRetry)}
	c, err := NewClient(testToken, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, mt
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// logBuffer is a logger whose lines a test can read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func collect[T any](t *testing.T, seq func(func(T, error) bool)) ([]T, error) {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

var ctx = context.Background()
