package webhook_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/webhook"
)

// TestHandlerMaxInFlight: with the bound reached, one more delivery gets
// 503 with Retry-After, and a place freed takes the next one.
func TestHandlerMaxInFlight(t *testing.T) {
	t.Parallel()
	payload := readEventFixture(t, "LessonCompletedEvent.json")
	entered, release := make(chan struct{}), make(chan struct{})
	h := newHandler(t, func(context.Context, edapp.Event) error {
		entered <- struct{}{}
		<-release
		return nil
	}, webhook.WithMaxInFlight(2))
	done := make(chan int, 2)
	for range 2 {
		go func() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(payload)))
			done <- w.Code
		}()
		<-entered
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(payload)))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Errorf("third delivery: status %d, Retry-After %q", w.Code, w.Header().Get("Retry-After"))
	}
	close(release)
	for range 2 {
		if code := <-done; code != http.StatusOK {
			t.Errorf("status %d", code)
		}
	}
	go func() { <-entered }()
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(payload)))
	if w.Code != http.StatusOK {
		t.Errorf("after the others: status %d", w.Code)
	}
}

// TestHandlerErrUnavailable: an event function that cannot take the
// delivery now makes it 503 with Retry-After, not 500.
func TestHandlerErrUnavailable(t *testing.T) {
	t.Parallel()
	h := newHandler(t, func(context.Context, edapp.Event) error {
		return fmt.Errorf("database: %w", webhook.ErrUnavailable)
	})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(readEventFixture(t, "CourseCompletedEvent.json"))))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
		t.Errorf("status %d, Retry-After %q", w.Code, w.Header().Get("Retry-After"))
	}
}

// firstRead calls waiting the first time the body is read from.
type firstRead struct {
	io.ReadCloser
	waiting func()
}

func (b *firstRead) Read(p []byte) (int, error) {
	b.waiting()
	return b.ReadCloser.Read(p)
}

// TestHandlerSlowBodiesHoldNoPlace: senders that hold connections open with
// slow bodies, more of them than WithMaxInFlight's places, do not keep a
// real delivery out: it gets 200 while they still hang.
func TestHandlerSlowBodiesHoldNoPlace(t *testing.T) {
	t.Parallel()
	const places, slow = 2, 4
	h := newHandler(t, func(context.Context, edapp.Event) error { return nil },
		webhook.WithMaxInFlight(places), webhook.WithSecretHeader("X-Hook-Secret", "s3cret"),
		webhook.WithReadTimeout(time.Minute))
	srv, _ := slowBodies(t, h, slow, "X-Hook-Secret: s3cret\r\n")
	req, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(readEventFixture(t, "LessonCompletedEvent.json")))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Hook-Secret", "s3cret")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a real delivery among %d slow bodies: status %d", slow, resp.StatusCode)
	}
}

// slowBodies serves h and opens n connections to it, each sending header
// lines extra and a third of a promised body, then nothing more; it
// returns once each one's handler waits on its body (or answered), with
// the connections, which the test closes at its end.
func slowBodies(t *testing.T, h http.Handler, n int, extra string) (*httptest.Server, []net.Conn) {
	t.Helper()
	reading := make(chan struct{}, n+1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Signalled once, when the handler waits on the body or when it
		// answered without reading it.
		signal := sync.OnceFunc(func() { reading <- struct{}{} })
		r.Body = &firstRead{ReadCloser: r.Body, waiting: signal}
		h.ServeHTTP(w, r)
		signal()
	}))
	t.Cleanup(srv.Close)
	conns := make([]net.Conn, 0, n)
	for range n {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		conns = append(conns, conn)
		fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\n%sContent-Length: 300\r\n\r\n%s", extra, strings.Repeat("{", 100))
		<-reading
	}
	return srv, conns
}
