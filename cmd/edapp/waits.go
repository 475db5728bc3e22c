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

// remindEvery is how often a wait still going is reported again when
// stderr is not a terminal (a log shows no bars that move).
const remindEvery = 30 * time.Second

// delayer is a limiter that can tell how long a call made now would wait
// (edapp.WindowLimiter can; a shared Redis budget cannot).
type delayer interface {
	Delay(bulk bool) time.Duration
}

// waitMeter is the client's limiter, watched. Every attempt the client
// makes draws from it once, so it counts the requests sent; it adds up the
// time they waited for the budget and the pauses after a 429, and reports
// every wait a user should know about: when it starts, with its expected
// length and end when the limiter can tell them, and when it ends.
//
// It watches the limiter, not the SDK's log, so that no message text is
// parsed; an SDK observer hook would feed the same report.
type waitMeter struct {
	inner  budgetLimiter
	report func(string) // never nil
	now    func() time.Time
	// afterFunc runs f after d unless stopped; time.AfterFunc but in tests.
	afterFunc func(d time.Duration, f func()) (stop func() bool)
	// remind is how often a long wait is reported again; 0 for never.
	remind time.Duration
	zone   *time.Location // of the times printed
	// of names the budget in the notices: "" for the client's one budget,
	// " of GET /path" for one of SafetyCulture's endpoints.
	of string

	mu        sync.Mutex
	requests  int
	waiting   int           // requests waiting on the limiter now
	waitFrom  time.Time     // since when one has been
	budget    time.Duration // time some request waited for the budget
	paused    time.Duration // time every request was paused after a 429
	pauseEnd  time.Time
	long      int       // waits now past noticeAfter
	longStart time.Time // when the first of them started
	longEnd   time.Time // when it is expected to end; zero when unknown
	// budgetSeries and pauseSeries number the reminder series of each
	// kind of wait, so that one ended or replaced stops.
	budgetSeries, pauseSeries int
}

func newWaitMeter(l budgetLimiter, report func(string)) *waitMeter {
	return &waitMeter{inner: l, report: report, now: time.Now, zone: time.Local,
		afterFunc: func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }}
}

func (m *waitMeter) Wait(ctx context.Context) error { return m.WaitLane(ctx, false) }

// Delay is the limiter's estimate of a wait in the lane, for the client's
// observer; 0 when the limiter cannot tell.
func (m *waitMeter) Delay(bulk bool) time.Duration {
	if d, ok := m.inner.(delayer); ok {
		return d.Delay(bulk)
	}
	return 0
}

// WaitLane waits on the limiter, reporting a wait past noticeAfter: at
// once when the limiter tells its length, else once it is past.
func (m *waitMeter) WaitLane(ctx context.Context, bulk bool) error {
	start := m.now()
	var expected time.Duration
	if d, ok := m.inner.(delayer); ok {
		expected = d.Delay(bulk)
	}
	m.mu.Lock()
	if m.waiting++; m.waiting == 1 {
		m.waitFrom = start
	}
	m.mu.Unlock()
	stop := func() bool { return false }
	if expected >= noticeAfter {
		m.longBegins(start, expected)
	} else {
		stop = m.afterFunc(noticeAfter, func() { m.longBegins(start, 0) })
	}
	err := m.inner.WaitLane(ctx, bulk)
	longOne := !stop()
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
			m.budgetSeries++ // stops the reminders of this wait
			m.report(fmt.Sprintf("waited %s for the request budget%s", round(m.now().Sub(m.longStart)), m.of))
		}
	}
	return err
}

// longBegins counts a long wait, and reports it when it is the first:
// with its length and end when expected is known (not zero).
func (m *waitMeter) longBegins(start time.Time, expected time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.long++
	if m.long != 1 {
		return
	}
	m.longStart, m.longEnd = start, time.Time{}
	// The reminders are scheduled before the notice is given, so that
	// whoever acts on the notice (a test moving its clock on) finds them.
	m.scheduleReminder(&m.budgetSeries, m.budgetReminder)
	if expected > 0 {
		m.longEnd = start.Add(expected)
		m.report(fmt.Sprintf("waiting %s for the request budget%s, until %s", round(expected), m.of, m.clock(m.longEnd)))
	} else {
		m.report("waiting for the request budget" + m.of + " (its window is full)")
	}
}

// scheduleReminder runs say every m.remind (on m.mu) as long as it
// returns true and *series is not moved on; remind 0 turns it off.
func (m *waitMeter) scheduleReminder(series *int, say func() bool) {
	if m.remind <= 0 {
		return
	}
	*series++
	mine := *series
	var tick func()
	tick = func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if mine == *series && say() {
			m.afterFunc(m.remind, tick)
		}
	}
	m.afterFunc(m.remind, tick)
}

// budgetReminder reports a long budget wait still going; m.mu is held.
func (m *waitMeter) budgetReminder() bool {
	if m.long == 0 {
		return false
	}
	now := m.now()
	msg := fmt.Sprintf("still waiting for the request budget%s, for %s so far", m.of, round(now.Sub(m.longStart)))
	if left := m.longEnd.Sub(now); left > 0 {
		msg += fmt.Sprintf("; %s left, until %s", round(left), m.clock(m.longEnd))
	}
	m.report(msg)
	return true
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
	who := "every request waits"
	if m.of != "" {
		who = "the requests" + m.of + " wait"
	}
	m.report(fmt.Sprintf("the service answered 429 (too many requests): %s %s, until %s", who, round(until.Sub(now)), m.clock(until)))
	if until.Sub(now) > m.remind {
		m.scheduleReminder(&m.pauseSeries, m.pauseReminder)
	}
}

// pauseReminder reports a pause still going; m.mu is held.
func (m *waitMeter) pauseReminder() bool {
	left := m.pauseEnd.Sub(m.now())
	if left <= 0 {
		return false
	}
	m.report(fmt.Sprintf("still paused after a 429%s: %s left, until %s", m.of, round(left), m.clock(m.pauseEnd)))
	return true
}

// clock is t for people: the time of day with its zone.
func (m *waitMeter) clock(t time.Time) string {
	return t.In(m.zone).Format("15:04:05 MST")
}

// summary is the run's line: the requests sent and how long the run
// waited (time during which requests were held, not summed per request).
func (m *waitMeter) summary() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprintf("%d requests sent; waited %s in all: %s for the request budget, %s paused after a 429",
		m.requests, round(m.budget+m.paused), round(m.budget), round(m.paused))
}

// endpointsSummary is the run's line when each endpoint has a budget of
// its own (SafetyCulture's): the requests sent, and the time each
// endpoint's requests were held, added up over the endpoints (two held at
// once count twice).
func endpointsSummary(meters []*waitMeter) string {
	var requests int
	var budget, paused time.Duration
	for _, m := range meters {
		m.mu.Lock()
		requests, budget, paused = requests+m.requests, budget+m.budget, paused+m.paused
		m.mu.Unlock()
	}
	return fmt.Sprintf("%d requests sent; waited %s, added up over the endpoints: %s for their request budgets, %s paused after a 429",
		requests, round(budget+paused), round(budget), round(paused))
}

func round(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }

// budgetReporter is the limiter the meter watches when it can report its
// budget (for the OpenTelemetry gauge); nil when it cannot.
func (m *waitMeter) budgetReporter() edapp.BudgetReporter {
	r, _ := m.inner.(edapp.BudgetReporter)
	return r
}
