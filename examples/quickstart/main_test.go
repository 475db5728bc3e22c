package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
)

func TestQuickstartAgainstFake(t *testing.T) {
	srv := edapptest.NewServer()
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := fake(ctx, srv.Client(), srv); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer collects output written from another goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls out until re matches, or fails the test after a bound.
func waitFor(t *testing.T, out *syncBuffer, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s in the output:\n%s", re, out)
	return nil
}

// TestQuickstartServe plays the person at the browser: open the printed
// launch link, post the page's form, and watch the event arrive in the
// output; then Ctrl-C (a cancelled context) stops the program.
func TestQuickstartServe(t *testing.T) {
	srv := edapptest.NewServer()
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- serve(ctx, out, srv.Client(), srv) }()

	m := waitFor(t, out, regexp.MustCompile(`(?m)^   (http://\S+/launch-lesson\?\S+)$`))
	link, err := url.Parse(m[1])
	if err != nil {
		t.Fatal(err)
	}
	q := link.Query()
	back := q.Get("returnUrl")
	if !strings.HasPrefix(back, "http://127.0.0.1:") {
		t.Fatalf("returnUrl %q", back)
	}
	waitFor(t, out, regexp.MustCompile(`(?m)^   `+regexp.QuoteMeta(srv.URL)+`/learner/usr_\d+$`))
	waitFor(t, out, regexp.MustCompile(`Serving until Ctrl-C`))

	body := get(t, link.String())
	if !strings.Contains(body, "Raising the alarm") || !strings.Contains(body, "Ann Lee") {
		t.Fatalf("launch page:\n%s", body)
	}
	res, err := http.PostForm(srv.URL+"/launch-lesson", url.Values{
		"token": {q.Get("token")}, "lesson": {q.Get("lesson")}, "returnUrl": {back},
		"score": {"88"}, "action": {"complete"},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(b), "Back to the app") {
		t.Fatalf("completion: %s\n%s", res.Status, b)
	}
	waitFor(t, out, regexp.MustCompile(`app: LessonCompletedEvent: ann\.lee completed "Raising the alarm" in "Fire Safety" with 88`))
	if body := get(t, back); !strings.Contains(body, "Back in the app") {
		t.Fatalf("app page:\n%s", body)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop when its context was cancelled")
	}
	if !strings.Contains(out.String(), "Stopped.") {
		t.Fatalf("output:\n%s", out)
	}
}

func TestQuickstartServeCancelled(t *testing.T) {
	srv := edapptest.NewServer()
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, io.Discard, srv.Client(), srv) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("serve with a cancelled context: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve with a cancelled context did not return")
	}
}

func get(t *testing.T, u string) string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("GET %s: %v %v\n%s", u, res.Status, err, b)
	}
	return string(b)
}
