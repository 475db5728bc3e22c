package edapp

// Simulations of the request budget on simulated time, comparing the
// default WindowLimiter with the token bucket the client used before. They
// print their tables with t.Log; run them with
//
//	go test -run TestLimiterSim -v .

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"golang.org/x/time/rate"
)

const (
	serviceLimit  = 1400            // requests per serviceWindow, for the whole account
	serviceWindow = 5 * time.Minute //
	windowMargin  = 2 * time.Second // the default limiter's window is serviceWindow + windowMargin
)

var simStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// simLimiter is a limiter driven on simulated time: reserve takes the slot
// for a call asked for at now and returns when the call may start.
type simLimiter interface {
	reserve(now time.Time, bulk bool) time.Time
}

type simWindow struct{ l *WindowLimiter }

func newSimWindow(window time.Duration) simWindow {
	return simWindow{mustWindowLimiter(serviceLimit, window, withClock(func() time.Time { return simStart }, nil))}
}

func (s simWindow) reserve(now time.Time, bulk bool) time.Time {
	at, _ := s.l.reserve(now, bulk, time.Time{}, false)
	return at
}

// simBucket is the client's old default: 1350 requests per 5 minutes with
// a burst of 50. It has no lanes.
type simBucket struct{ l *rate.Limiter }

func newSimBucket() simBucket { return simBucket{rate.NewLimiter(rate.Limit(1350.0/300), 50)} }

func (s simBucket) reserve(now time.Time, _ bool) time.Time {
	return now.Add(s.l.ReserveN(now, 1).DelayFrom(now))
}

// simGreedy sends calls as fast as l allows until horizon and returns when
// each started.
func simGreedy(l simLimiter, bulk bool, horizon time.Duration) []time.Time {
	var sent []time.Time
	for now := simStart; ; {
		now = l.reserve(now, bulk)
		if now.Sub(simStart) >= horizon {
			return sent
		}
		sent = append(sent, now)
	}
}

// serviceMax is the most the service allows in the first T: 1400 per
// started 5 minutes.
func serviceMax(T time.Duration) int {
	return serviceLimit * int(math.Ceil(float64(T)/float64(serviceWindow)))
}

func countBefore(sent []time.Time, T time.Duration) int {
	n, _ := slices.BinarySearchFunc(sent, simStart.Add(T), func(a, b time.Time) int { return a.Compare(b) })
	return n
}

// TestLimiterSimBudget measures the budget a job uses in its first 1, 5, 10
// and 60 minutes when it sends as fast as the limiter allows, against the
// most the service allows.
func TestLimiterSimBudget(t *testing.T) {
	t.Parallel()
	horizons := []time.Duration{time.Minute, 5 * time.Minute, 10 * time.Minute, time.Hour}
	const end = time.Hour
	window := newSimWindow(serviceWindow + windowMargin)
	windowInteractive := simGreedy(window, false, end)
	windowBulk := simGreedy(newSimWindow(serviceWindow+windowMargin), true, end)
	bucket := simGreedy(newSimBucket(), false, end) // no lanes: bulk is the same

	var b strings.Builder
	b.WriteString("\n| Job length | Service maximum | Window, interactive | Window, bulk | Token bucket (either lane) | Window / bucket (interactive) |\n|---|---|---|---|---|---|\n")
	for _, T := range horizons {
		most := serviceMax(T)
		wi, wb, tb := countBefore(windowInteractive, T), countBefore(windowBulk, T), countBefore(bucket, T)
		pct := func(n int) float64 { return 100 * float64(n) / float64(most) }
		fmt.Fprintf(&b, "| %v | %d | %d (%.1f%%) | %d (%.1f%%) | %d (%.1f%%) | %.1f× |\n",
			T, most, wi, pct(wi), wb, pct(wb), tb, pct(tb), float64(wi)/float64(tb))
		assert.GreaterOrEqual(t, pct(wi), 99.0, "interactive load at %v", T)
		assert.GreaterOrEqual(t, pct(wb), 89.0, "bulk load at %v", T)
		assert.LessOrEqual(t, wi, most)
	}
	t.Log(b.String())
}

// simLaunch has learners call the limiter at the same moment, each making
// calls calls one after the other (the service answering at once), and
// returns how long each learner waited in all.
func simLaunch(l simLimiter, learners, calls int) []time.Duration {
	type ready struct {
		at      time.Time
		seq     int // calls asked for at the same time go in order
		learner int
		call    int
	}
	var queue []ready
	for i := range learners {
		queue = append(queue, ready{simStart, i, i, 0})
	}
	seq := learners
	waited := make([]time.Duration, learners)
	for len(queue) > 0 {
		i := 0
		for j, r := range queue {
			if c := r.at.Compare(queue[i].at); c < 0 || c == 0 && r.seq < queue[i].seq {
				i = j
			}
		}
		r := queue[i]
		queue = slices.Delete(queue, i, i+1)
		start := l.reserve(r.at, false)
		waited[r.learner] += start.Sub(r.at)
		if r.call+1 < calls {
			queue = append(queue, ready{start, seq, r.learner, r.call + 1})
			seq++
		}
	}
	return waited
}

// percentile returns the nearest-rank percentile p of d.
func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[max(int(math.Ceil(p/100*float64(len(s))))-1, 0)]
}

// TestLimiterSimLaunch has 100 learners press "Launch" at once, two calls
// each, on a fresh budget.
func TestLimiterSimLaunch(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("\n| Limiter | p50 | p90 | max |\n|---|---|---|---|\n")
	for _, tc := range []struct {
		name string
		l    simLimiter
	}{
		{"Window (1400 per 5m2s)", newSimWindow(serviceWindow + windowMargin)},
		{"Token bucket (1350 per 5m, burst 50)", newSimBucket()},
	} {
		w := simLaunch(tc.l, 100, 2)
		p50, p90, most := percentile(w, 50), percentile(w, 90), percentile(w, 100)
		fmt.Fprintf(&b, "| %s | %v | %v | %v |\n", tc.name, p50.Round(100*time.Millisecond), p90.Round(100*time.Millisecond), most.Round(100*time.Millisecond))
		if _, ok := tc.l.(simWindow); ok {
			assert.Zero(t, p50, "p50 wait with the window limiter")
			assert.Zero(t, most, "200 calls fit in a fresh budget")
		}
	}
	t.Log(b.String())
}

// TestLimiterSimSkew sends two full bursts one limiter window apart and
// delays each request by up to 2 s on its way to the service (latency, or
// a service clock that drifts). The service counts requests in trailing
// 5-minute windows, (t-5m, t]. With the 2 s margin no window holds more
// than 1400; without it, the two bursts can land in one window.
func TestLimiterSimSkew(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("\n| Limiter window | Delays on the way | Most in any 5-minute window at the service |\n|---|---|---|\n")
	for _, tc := range []struct {
		window   time.Duration
		delays   string
		delay    func(i int) time.Duration // the delay of the i-th request
		maxAllow int
	}{
		{serviceWindow + windowMargin, "none", func(int) time.Duration { return 0 }, serviceLimit},
		{serviceWindow + windowMargin, "first burst +2 s, second +0 s (worst case)", burstSkew(2 * time.Second), serviceLimit},
		{serviceWindow + windowMargin, "random, 0–2 s", randomSkew(2 * time.Second), serviceLimit},
		{serviceWindow, "none", func(int) time.Duration { return 0 }, serviceLimit},
		{serviceWindow, "first burst +1 s, second +0 s", burstSkew(time.Second), 2 * serviceLimit},
		{serviceWindow, "random, 0–2 s", randomSkew(2 * time.Second), 2 * serviceLimit},
	} {
		sent := simGreedy(newSimWindow(tc.window), false, 2*tc.window)
		if !assert.Len(t, sent, 2*serviceLimit) {
			continue
		}
		arrived := make([]admission, len(sent))
		for i, at := range sent {
			arrived[i] = admission{at: at.Add(tc.delay(i))}
		}
		slices.SortFunc(arrived, func(a, b admission) int { return a.at.Compare(b.at) })
		most, _ := maxInWindow(arrived, serviceWindow)
		fmt.Fprintf(&b, "| %v | %s | %d |\n", tc.window, tc.delays, most)
		assert.LessOrEqual(t, most, tc.maxAllow, "window %v, delays %s", tc.window, tc.delays)
		if tc.window == serviceWindow && tc.delays != "none" {
			assert.Greater(t, most, serviceLimit, "without the margin, skew must show (else the check proves nothing)")
		}
	}
	t.Log(b.String())
}

// burstSkew delays the first burst by d and the second not at all.
func burstSkew(d time.Duration) func(int) time.Duration {
	return func(i int) time.Duration {
		if i < serviceLimit {
			return d
		}
		return 0
	}
}

// randomSkew delays each request by a pseudo-random time in [0, d], the
// same on every run.
func randomSkew(d time.Duration) func(int) time.Duration {
	rng := rand.New(rand.NewPCG(1, 1))
	return func(int) time.Duration { return time.Duration(rng.Int64N(int64(d) + 1)) }
}
