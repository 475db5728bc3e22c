package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress reports the records fetched per kind: bars on a terminal, plain
// log lines otherwise.
type progress interface {
	// track starts reporting on one kind.
	track(name string) tracker
	// wait flushes the output once every tracker is done.
	wait()
}

// tracker reports on one kind. Its methods may be called from one
// goroutine at a time.
type tracker interface {
	// setTotal sets the number of records expected (negative: unknown).
	setTotal(n int)
	// add counts n more records and the time spent waiting for the budget.
	add(n int, waited time.Duration)
	// parents reports, for a kind fetched one list per parent (group,
	// course, user), how many parents are done out of total.
	parents(done, total int)
	// done ends the kind; err is nil on success.
	done(err error)
}

// newProgress draws bars on w when it is a terminal and bars is set, and
// writes a log line per kind (and one every interval for long kinds)
// otherwise.
func newProgress(ctx context.Context, w io.Writer, bars bool) progress {
	if bars {
		return &barProgress{p: mpb.NewWithContext(ctx, mpb.WithOutput(w), mpb.WithWidth(100), mpb.WithAutoRefresh())}
	}
	return &logProgress{w: w, interval: 10 * time.Second}
}

type barProgress struct {
	p    *mpb.Progress
	done func() // called once the bars are done, if not nil
}

func (b *barProgress) track(name string) tracker {
	t := &barTracker{start: time.Now()}
	bar := b.p.AddBar(0,
		mpb.PrependDecorators(
			decor.Name(name, decor.WC{W: 28, C: decor.DindentRight}),
			decor.CountersNoUnit("%d / %d", decor.WCSyncWidth),
		),
		mpb.AppendDecorators(
			decor.Any(t.rate, decor.WCSyncSpace),
			decor.Any(func(decor.Statistics) string {
				return "waited " + t.waitedFor().Round(100*time.Millisecond).String()
			}, decor.WCSyncSpace),
			decor.Any(t.parentsDone, decor.WCSyncSpace),
		),
	)
	t.bar = bar
	return t
}

func (b *barProgress) wait() {
	b.p.Wait()
	if b.done != nil {
		b.done()
	}
}

type barTracker struct {
	bar    *mpb.Bar
	start  time.Time
	mu     sync.Mutex
	waited time.Duration
	end    time.Time

	parentsN, parentsTotal int
}

func (t *barTracker) parents(done, total int) {
	t.mu.Lock()
	t.parentsN, t.parentsTotal = done, total
	t.mu.Unlock()
	// No list reports a total: fill the bar by the parents done, projecting
	// the records to come from those fetched so far.
	if done > 0 && done < total {
		cur := t.bar.Current()
		t.bar.SetTotal(max(cur*int64(total)/int64(done), cur+1), false)
	}
}

func (t *barTracker) parentsDone(decor.Statistics) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.parentsTotal == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d parents", t.parentsN, t.parentsTotal)
}

// rate is the records per second since the kind started, until it ended.
func (t *barTracker) rate(s decor.Statistics) string {
	t.mu.Lock()
	end := t.end
	t.mu.Unlock()
	if end.IsZero() {
		end = time.Now()
	}
	el := end.Sub(t.start).Seconds()
	if el <= 0 {
		return ""
	}
	return fmt.Sprintf("%.0f rec/s", float64(s.Current)/el)
}

func (t *barTracker) waitedFor() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.waited
}

func (t *barTracker) setTotal(n int) {
	if n >= 0 {
		t.bar.SetTotal(int64(n), false)
	}
}

func (t *barTracker) add(n int, waited time.Duration) {
	t.mu.Lock()
	t.waited += waited
	t.mu.Unlock()
	t.bar.IncrBy(n)
}

func (t *barTracker) done(err error) {
	t.mu.Lock()
	t.end = time.Now()
	t.mu.Unlock()
	if err != nil {
		t.bar.Abort(false)
		return
	}
	t.bar.SetTotal(-1, true)
}

type logProgress struct {
	mu       sync.Mutex
	w        io.Writer
	interval time.Duration
}

// kindLine writes "KIND: MSG", or logs MSG with the kind when stderr
// goes through slog.
func (l *logProgress) kindLine(kind, msg string) {
	if ll, ok := l.w.(*logLines); ok {
		ll.kindLine(kind, msg)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%s: %s\n", kind, msg)
}

func (l *logProgress) track(name string) tracker {
	now := time.Now()
	return &logTracker{l: l, name: name, total: -1, start: now, last: now}
}

func (l *logProgress) wait() {}

type logTracker struct {
	l                      *logProgress
	name                   string
	total, n               int
	waited                 time.Duration
	start, last            time.Time
	parentsN, parentsTotal int
}

func (t *logTracker) parents(done, total int) { t.parentsN, t.parentsTotal = done, total }

func (t *logTracker) setTotal(n int) { t.total = n }

func (t *logTracker) add(n int, waited time.Duration) {
	t.n += n
	t.waited += waited
	if now := time.Now(); now.Sub(t.last) >= t.l.interval {
		t.last = now
		t.l.kindLine(t.name, t.status(now))
	}
}

func (t *logTracker) status(now time.Time) string {
	count := fmt.Sprint(t.n)
	if t.total >= 0 {
		count = fmt.Sprintf("%d/%d", t.n, t.total)
	}
	el := now.Sub(t.start)
	rate := 0.0
	if el > 0 {
		rate = float64(t.n) / el.Seconds()
	}
	of := ""
	if t.parentsTotal > 0 {
		of = fmt.Sprintf(" from %d/%d parents", t.parentsN, t.parentsTotal)
	}
	return fmt.Sprintf("%s records%s in %s (%.0f/s, waited %s)", count, of, el.Round(time.Millisecond), rate, t.waited.Round(time.Millisecond))
}

func (t *logTracker) done(err error) {
	if err != nil {
		t.l.kindLine(t.name, fmt.Sprintf("stopped after %s: %s", t.status(time.Now()), reason(err)))
		return
	}
	t.l.kindLine(t.name, "done, "+t.status(time.Now()))
}

// nopProgress reports nothing.
type nopProgress struct{}

func (nopProgress) track(string) tracker   { return nopProgress{} }
func (nopProgress) wait()                  {}
func (nopProgress) setTotal(int)           {}
func (nopProgress) add(int, time.Duration) {}
func (nopProgress) done(error)             {}
func (nopProgress) parents(int, int)       {}
