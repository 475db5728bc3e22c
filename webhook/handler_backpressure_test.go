package webhook_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/webhook"
)

// TestHandlerMaxInFlight: with the bound reached, one more delivery gets
// 503 with Retry-After before its body is read, and a place freed takes the
// next one.
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
