package main

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fakeTimers is a waitMeter's clock and timers, advanced by the test.
type fakeTimers struct {
	mu      sync.Mutex
	now     time.Time
	pending []fakeTimer
}

type fakeTimer struct {
	at time.Time
	f  func()
}

func (c *fakeTimers) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeTimers) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	var fired, stopped bool
	c.pending = append(c.pending, fakeTimer{c.now.Add(d), func() {
		c.mu.Lock()
		run := !stopped
		fired = true
		c.mu.Unlock()
		if run {
			f()
		}
	}})
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !stopped && !fired
		stopped = true
		return was
	}
}

// advance moves the clock by d and fires the timers now due.
func (c *fakeTimers) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	kept := c.pending[:0]
	for _, tm := range c.pending {
		if tm.at.After(c.now) {
			kept = append(kept, tm)
		} else {
			due = append(due, tm.f)
		}
	}
	c.pending = kept
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// delayingLimiter tells its delay and holds WaitLane until released.
type delayingLimiter struct {
	stubLimiter
	delay   time.Duration
	release chan struct{}
}

func (d *delayingLimiter) Delay(bool) time.Duration { return d.delay }
func (d *delayingLimiter) WaitLane(ctx context.Context, _ bool) error {
	<-d.release
	return nil
}

func fakeMeter(l budgetLimiter, clock *fakeTimers) (*waitMeter, chan string) {
	notices := make(chan string, 10)
	m := newWaitMeter(l, func(s string) { notices <- s })
	m.now, m.afterFunc, m.zone, m.remind = clock.Now, clock.AfterFunc, time.UTC, remindEvery
	return m, notices
}

func wantNotice(t *testing.T, notices chan string, want string) {
	t.Helper()
	if got := <-notices; got != want {
		t.Errorf("notice %q, want %q", got, want)
	}
}

// TestWaitMeterEstimatesABudgetWait checks that a budget wait is reported
// as it starts with its length and end, again every 30 seconds while it
// lasts, and no more once it ended.
func TestWaitMeterEstimatesABudgetWait(t *testing.T) {
	t.Parallel()
	clock := &fakeTimers{now: time.Date(2026, 3, 7, 4, 8, 18, 0, time.UTC)}
	l := &delayingLimiter{delay: 3*time.Minute + 47*time.Second, release: make(chan struct{})}
	m, notices := fakeMeter(l, clock)
	done := make(chan error)
	go func() { done <- m.WaitLane(context.Background(), true) }()
	wantNotice(t, notices, "waiting 3m47s for the request budget, until 04:12:05 UTC")
	clock.advance(remindEvery)
	wantNotice(t, notices, "still waiting for the request budget, for 30s so far; 3m17s left, until 04:12:05 UTC")
	clock.advance(10 * time.Second)
	close(l.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wantNotice(t, notices, "waited 40s for the request budget")
	clock.advance(remindEvery)
	select {
	case s := <-notices:
		t.Errorf("a reminder after the wait ended: %q", s)
	default:
	}
}

// TestWaitMeterRemindsOfA429Pause checks the pause's notice and reminders.
func TestWaitMeterRemindsOfA429Pause(t *testing.T) {
	t.Parallel()
	clock := &fakeTimers{now: time.Date(2026, 3, 7, 4, 8, 18, 0, time.UTC)}
	m, notices := fakeMeter(&stubLimiter{}, clock)
	m.Pause(clock.Now().Add(time.Minute))
	wantNotice(t, notices, "the service answered 429 (too many requests): every request waits 1m0s, until 04:09:18 UTC")
	clock.advance(remindEvery)
	wantNotice(t, notices, "still paused after a 429: 30s left, until 04:09:18 UTC")
	clock.advance(remindEvery)
	clock.advance(remindEvery)
	select {
	case s := <-notices:
		t.Errorf("a reminder after the pause ended: %q", s)
	default:
	}
}
