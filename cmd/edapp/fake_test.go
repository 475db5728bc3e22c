package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
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

// startFake runs `edapp fake args...` until the returned stop is called,
// and returns the base URL and token it printed.
func startFake(t *testing.T, args ...string) (base, token string, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"fake", "--addr", "127.0.0.1:0"}, args...), strings.NewReader(""), &out, &errOut, env{}.get)
	}()
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		lines := strings.Split(out.String(), "\n")
		if len(lines) >= 3 {
			base = strings.TrimPrefix(lines[0], "EDAPP_BASE_URL=")
			token = strings.TrimPrefix(lines[1], "EDAPP_API_TOKEN=")
			if base == lines[0] || token == lines[1] {
				t.Fatalf("unexpected output:\n%s", out.String())
			}
			break
		}
		select {
		case code := <-done:
			t.Fatalf("fake exited with %d:\n%s\n%s", code, out.String(), errOut.String())
		case <-deadline.C:
			t.Fatalf("fake printed nothing in a minute:\n%s", errOut.String())
		case <-tick.C:
		}
	}
	stopped := false
	stop = func() int {
		if stopped {
			return exitOK
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { stop() })
	return base, token, stop
}

func TestFakeServesUntilCancelled(t *testing.T) {
	t.Parallel()
	base, token, stop := startFake(t, "--seed", "--token", "dev-token")
	if token != "dev-token" {
		t.Errorf("token %q", token)
	}
	c, err := edapp.NewClient(token, edapp.WithBaseURL(base))
	if err != nil {
		t.Fatal(err)
	}
	page, err := c.Users.List(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := page.Total(); n != 4 {
		t.Errorf("seeded fake has %d users, want the demo's 4", n)
	}
	// The other commands work against it.
	r := runEnv(t, env{"EDAPP_BASE_URL": base, "EDAPP_API_TOKEN": token}, "webhooks", "list", "-o", "json")
	wantCode(t, r, exitOK)
	if code := stop(); code != exitOK {
		t.Errorf("exit code %d after cancel", code)
	}
}

func TestFakeLoad(t *testing.T) {
	t.Parallel()
	base, token, _ := startFake(t, "--users", "20", "--attempts", "60")
	c, _ := edapp.NewClient(token, edapp.WithBaseURL(base))
	users, err := c.Users.List(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	attempts, err := c.Analytics.ListAttempts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	nu, _ := users.Total()
	na, _ := attempts.Total()
	if nu != 20 || na != 60 {
		t.Errorf("loaded %d users and %d attempts, want 20 and 60", nu, na)
	}
}

// TestFakeAccountShape: the shape flags reach SeedAccount.
func TestFakeAccountShape(t *testing.T) {
	t.Parallel()
	base, token, _ := startFake(t, "--users", "30", "--groups", "6", "--collections", "2",
		"--courses", "3", "--lessons", "2", "--attempts", "90")
	c, _ := edapp.NewClient(token, edapp.WithBaseURL(base))
	ctx, all := context.Background(), &edapp.ListOptions{PageSize: 1000}
	groups, err := c.UserGroups.List(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	courses, err := c.Catalog.ListCourses(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := c.Catalog.ListCollections(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups.Items) != 6 || len(courses.Items) != 3 || len(cols.Items) != 2 {
		t.Errorf("%d groups, %d courses, %d collections; want 6, 3 and 2", len(groups.Items), len(courses.Items), len(cols.Items))
	}
}

func TestFakeBudget(t *testing.T) {
	t.Parallel()
	for _, budget := range []string{"3", "3/1h"} {
		t.Run(budget, func(t *testing.T) { testFakeBudget(t, budget) })
	}
}

func testFakeBudget(t *testing.T, budget string) {
	base, token, _ := startFake(t, "--budget", budget)
	c, _ := edapp.NewClient(token, edapp.WithBaseURL(base), edapp.WithRetry(edapp.RetryPolicy{MaxRetries: 0}), edapp.WithLimiter(unlimited{}))
	var limited error
	for range 4 {
		if _, err := c.Users.List(context.Background(), nil); err != nil {
			limited = err
		}
	}
	if !errors.Is(limited, edapp.ErrRateLimited) {
		t.Errorf("the 4th request in the window: %v, want ErrRateLimited", limited)
	}
}

// unlimited is a limiter that never waits.
type unlimited struct{}

func (unlimited) Wait(context.Context) error { return nil }

func TestFakeBadFlags(t *testing.T) {
	t.Parallel()
	wantCode(t, runEnv(t, env{}, "fake", "--attempts", "5"), exitError) // nobody to attempt
	wantCode(t, runEnv(t, env{}, "fake", "--budget", "-1"), exitUsage)
	wantCode(t, runEnv(t, env{}, "fake", "--budget", "30/0s"), exitUsage)
	wantCode(t, runEnv(t, env{}, "fake", "--groups", "-2"), exitUsage)
	wantCode(t, runEnv(t, env{}, "fake", "--users", "-1"), exitUsage)
	r := runEnv(t, env{}, "fake", "--addr", "256.0.0.1:99999")
	wantCode(t, r, exitError)
	if r.stdout != "" || strings.Contains(r.stderr, "serving") {
		t.Errorf("a fake that never bound its port said it serves:\n%s%s", r.stdout, r.stderr)
	}
}
