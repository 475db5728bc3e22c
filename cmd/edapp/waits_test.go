package main

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
)

// A 429's pause shows without -v, and the run's "waited" includes it.
func TestWaitsShowA429Pause(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	if _, err := fakedata.SeedDemo(srv); err != nil {
		t.Fatal(err)
	}
	srv.FailNext(1, 429, time.Second)
	r := runFake(t, srv, "export", "--out", t.TempDir(), "--kinds", "users")
	wantCode(t, r, exitOK)
	for _, want := range []string{
		"edapp: the service answered 429 (too many requests): every request waits 1s",
		"edapp: 2 requests sent; waited ",
		"1s paused after a 429",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// A wait for the budget over a second shows when it starts and when it ends.
func TestWaitsShowALongBudgetWait(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	file := writeFile(t, "users.csv", "externalId,username\nN1,n1\nN2,n2\n")
	// Groups and users take the budget of 2; the creates wait for the window.
	r := runFake(t, srv, "users", "sync", "--csv", file, "--apply", "--budget", "2/2s")
	wantCode(t, r, exitOK)
	for _, want := range []string{"edapp: waiting ", " for the request budget, until ", "edapp: waited ", "edapp: 4 requests sent"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// stubLimiter waits as told and records pauses.
type stubLimiter struct {
	wait   time.Duration
	err    error
	paused []time.Time
}

func (s *stubLimiter) Wait(ctx context.Context) error { return s.WaitLane(ctx, false) }
func (s *stubLimiter) WaitLane(context.Context, bool) error {
	time.Sleep(s.wait)
	return s.err
}
func (s *stubLimiter) Pause(until time.Time) { s.paused = append(s.paused, until) }

func TestWaitMeterCounts(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var notices []string
	stub := &stubLimiter{}
	m := newWaitMeter(stub, func(s string) { mu.Lock(); notices = append(notices, s); mu.Unlock() })
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	m.now = func() time.Time { return now }
	ctx := context.Background()
	for range 3 {
		if err := m.WaitLane(ctx, true); err != nil {
			t.Fatal(err)
		}
	}
	stub.err = errors.New("no slot")
	_ = m.Wait(ctx) // refused: not sent
	// Two overlapping pauses count once: 10s, then 4s more.
	m.Pause(now.Add(10 * time.Second))
	m.Pause(now.Add(5 * time.Second))
	m.Pause(now.Add(14 * time.Second))
	if len(stub.paused) != 3 {
		t.Errorf("%d pauses passed on, want 3", len(stub.paused))
	}
	if got := m.summary(); got != "3 requests sent; waited 14s in all: 0s for the request budget, 14s paused after a 429" {
		t.Errorf("summary: %s", got)
	}
	if len(notices) != 2 || !strings.Contains(notices[0], "every request waits 10s") || !strings.Contains(notices[1], "every request waits 14s") {
		t.Errorf("notices: %q", notices)
	}
}

// On a terminal the notices go above the bars, and after them as lines.
func TestNoticesAboveTheBars(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	a := newFactory(newIOStreams(nil, nil, &buf), env{}.get)
	p := a.Progress(context.Background(), true)
	tr := p.track("users")
	a.IO.notice("waiting for the request budget (its window is full)")
	tr.add(1, 0)
	tr.done(nil)
	p.wait()
	a.IO.notice("waited 2s for the request budget")
	out := buf.String()
	if !strings.Contains(out, "waiting for the request budget (its window is full)\n") || !strings.Contains(out, "edapp: waited 2s for the request budget\n") {
		t.Errorf("output:\n%q", out)
	}
	if strings.Contains(out, "edapp: waiting") {
		t.Errorf("the first notice did not go above the bars:\n%q", out)
	}
}
