package webhook_test

import (
	"bytes"
	"context"
	"net/http"
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
	srv, conns := slowBodies(t, h, places, "")
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
