package webhook_test

import (
	"bytes"
	"context"
	"fmt"
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

// TestHandlerMaxReading: with WithMaxReading bodies being read, one more
// delivery gets 503 with Retry-After, its body unread; once they are done,
// the next one is read.
func TestHandlerMaxReading(t *testing.T) {
	t.Parallel()
	const places = 2
	h := newHandler(t, func(context.Context, edapp.Event) error { return nil },
		webhook.WithMaxReading(places), webhook.WithReadTimeout(time.Minute))
	reading := make(chan struct{}, places+1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		signal := sync.OnceFunc(func() { reading <- struct{}{} })
		r.Body = &firstRead{ReadCloser: r.Body, waiting: signal}
		h.ServeHTTP(w, r)
		signal()
	}))
	t.Cleanup(srv.Close)
	var conns []net.Conn
	for range places {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		conns = append(conns, conn)
		fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 300\r\n\r\n%s", strings.Repeat(" ", 100))
		<-reading
	}
	payload := readEventFixture(t, "LessonCompletedEvent.json")
	resp, err := srv.Client().Post(srv.URL, "application/json", bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a delivery beyond %d bodies being read: status %d, Retry-After %q", places, resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	for _, c := range conns {
		c.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err = srv.Client().Post(srv.URL, "application/json", bytes.NewReader(payload))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond) // the closed connections' handlers are ending
	}
	if resp.StatusCode != http.StatusOK {
		t.Errorf("after the slow bodies ended: status %d", resp.StatusCode)
	}
}

func TestWithMaxReadingRejectsBadValues(t *testing.T) {
	t.Parallel()
	if _, err := webhook.NewHandler(func(context.Context, edapp.Event) error { return nil }, webhook.WithMaxReading(0)); err == nil {
		t.Error("WithMaxReading(0) accepted")
	}
}
