package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/edapp-go/edapp"
)

// noticeAfter is how long a wait for the budget goes unreported: shorter
// waits are the budget working as meant, longer ones a user should see.
const noticeAfter = time.Second

// budgetLimiter is what the CLI's limiters are: both lanes, and Pause.
// edapp.WindowLimiter and redislimit.Limiter are.
type budgetLimiter interface {
	edapp.LaneLimiter
	edapp.Pauser
}

// waitMeter is the client's limiter, watched. Every attempt the client
// makes draws from it once, so it counts the requests sent; it adds up the
// time they waited for the budget and the pauses after a 429, and reports
// every wait a user should know about, when it starts and when it ends.
//
// It watches the limiter, not the SDK's log, so that no message text is
// parsed; an SDK observer hook would feed the same report.
type waitMeter struct {
	inner  budgetLimiter
	report func(string) // never nil
	now    func() time.Time

	mu        sync.Mutex
	requests  int
	waiting   int           // requests waiting on the limiter now
	waitFrom  time.Time     // since when one has been
	budget    time.Duration // time some request waited for the budget
	paused    time.Duration // time every request was paused after a 429
	pauseEnd  time.Time
	long      int       // waits now past noticeAfter
	longStart time.Time // when the first of them started
}

func newWaitMeter(l budgetLimiter, report func(string)) *waitMeter {
	return &waitMeter{inner: l, report: report, now: time.Now}
}

func (m *waitMeter) Wait(ctx context.Context) error { return m.WaitLane(ctx, false) }

// WaitLane waits on the limiter, reporting a wait past noticeAfter.
func (m *waitMeter) WaitLane(ctx context.Context, bulk bool) error {
	start := m.now()
	m.mu.Lock()
	if m.waiting++; m.waiting == 1 {
		m.waitFrom = start
	}
	m.mu.Unlock()
	timer := time.AfterFunc(noticeAfter, func() { m.longBegins(start) })
	err := m.inner.WaitLane(ctx, bulk)
	longOne := !timer.Stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.waiting--; m.waiting == 0 {
		m.budget += m.now().Sub(m.waitFrom)
	}
	if err == nil {
		m.requests++
	}
	if longOne {
		m.long--
		if m.long == 0 {
			m.report(fmt.Sprintf("waited %s for the request budget", round(m.now().Sub(m.longStart))))
		}
	}
	return err
}

func (m *waitMeter) longBegins(start time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.long++
	if m.long == 1 {
		m.longStart = start
		m.report("waiting for the request budget (its window is full)")
	}
}

// Pause passes the service's 429 on, and reports how long every request
// now waits.
func (m *waitMeter) Pause(until time.Time) {
	m.inner.Pause(until)
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	from := now
	if m.pauseEnd.After(now) {
		from = m.pauseEnd
	}
	if !until.After(from) {
		return
	}
	m.paused += until.Sub(from)
	m.pauseEnd = until
	m.report(fmt.Sprintf("the service answered 429 (too many requests): every request waits %s, until %s", round(until.Sub(now)), until.Format(time.TimeOnly)))
}

// summary is the run's line: the requests sent and how long the run
// waited (time during which requests were held, not summed per request).
func (m *waitMeter) summary() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprintf("%d requests sent; waited %s in all: %s for the request budget, %s paused after a 429",
		m.requests, round(m.budget+m.paused), round(m.budget), round(m.paused))
}

func round(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }

// budgetReporter is the limiter the meter watches when it can report its
// budget (for the OpenTelemetry gauge); nil when it cannot.
func (m *waitMeter) budgetReporter() edapp.BudgetReporter {
	r, _ := m.inner.(edapp.BudgetReporter)
	return r
}
