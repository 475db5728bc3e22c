package export_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/filedest"
	"github.com/edapp-go/edapp/export/scsrc"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// TestRunSafetyCultureRefetchesAnalyticsFromTheCursorLessTheOverlap: the
// date-filtered analytics kinds are incremental as attempts are: a first
// run sends no date filter, and the next sends each kind's from its
// cursor, the start of the first run by the service's clock, less
// scsrc.Overlap.
func TestRunSafetyCultureRefetchesAnalyticsFromTheCursorLessTheOverlap(t *testing.T) {
	t.Parallel()
	fake, err := sctest.NewUnstarted()
	if err != nil {
		t.Fatal(err)
	}
	url, sent := dateFiltersSent(t, fake)
	c, err := safetyculture.NewClient(fake.Token, edapp.WithBaseURL(url))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filedest.Open(t.TempDir(), filedest.WithFormat("csv"))
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{"attempts": "/training/analytics/v1/lessons/attempts",
		"lesson_progress_events": "/training/analytics/v1/lessons/progress/events", "survey_answers": "/training/analytics/v1/surveys/answers"}
	opts := export.Options{Kinds: slices.Collect(maps.Keys(paths))}
	var starts [2]time.Time
	for run := range starts {
		starts[run] = time.Now()
		if _, err := export.Run(context.Background(), scsrc.New(c), opts, files); err != nil {
			t.Fatal(err)
		}
		for kind, path := range paths {
			got := sent(path)
			if run == 0 && got != "" {
				t.Errorf("%s: the first run sent a date filter %q", kind, got)
			}
			from, err := time.Parse(time.RFC3339, got)
			if run == 1 && (err != nil || from.Before(starts[0].Add(-scsrc.Overlap-time.Second)) || from.After(starts[1].Add(-scsrc.Overlap))) {
				t.Errorf("%s: the second run sent %q, want the first's start %v less %v", kind, got, starts[0].UTC(), scsrc.Overlap)
			}
		}
	}
}

// dateFiltersSent serves fake at the returned address, and reports the
// date filter (startDateTime or minEventDateTime) of a path's last request.
func dateFiltersSent(t *testing.T, fake *sctest.Server) (string, func(path string) string) {
	var mu sync.Mutex
	sent := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		mu.Lock()
		sent[r.URL.Path] = q.Get("startDateTime") + q.Get("minEventDateTime")
		mu.Unlock()
		fake.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func(path string) string {
		mu.Lock()
		defer mu.Unlock()
		return sent[path]
	}
}

// TestRunSafetyCultureFeedKindsReportTheirTotal: a feed kind's total is
// the count its first page announces (its rows and remaining_records).
func TestRunSafetyCultureFeedKindsReportTheirTotal(t *testing.T) {
	t.Parallel()
	fake := sctest.New(t)
	for i := range 3 {
		uid, err := fake.AddUser(sctest.UserSpec{Email: fmt.Sprintf("u%d@example.com", i)})
		if err != nil {
			t.Fatal(err)
		}
		gid, err := fake.AddGroup("", fmt.Sprintf("Group %d", i))
		if err != nil {
			t.Fatal(err)
		}
		if err := fake.AddGroupUser(gid, uid); err != nil {
			t.Fatal(err)
		}
	}
	c, err := safetyculture.NewClient(fake.Token, edapp.WithBaseURL(fake.URL))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filedest.Open(t.TempDir(), filedest.WithFormat("csv"))
	if err != nil {
		t.Fatal(err)
	}
	prog := newKindTracking()
	sum, err := export.Run(context.Background(), scsrc.New(c), export.Options{Kinds: []string{"users", "groups", "group_members"}, Progress: prog}, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Kinds {
		if n, ok := prog.total(r.Kind); !ok || n != r.Records || n == 0 {
			t.Errorf("%s: total %d (set: %v), %d records fetched", r.Kind, n, ok, r.Records)
		}
	}
}

// TestProbeModifiedAfterWaitCountsAsTheKinds: the course-progress probe's
// wait for the budget is counted in the kind's waits, as its walk's are.
func TestProbeModifiedAfterWaitCountsAsTheKinds(t *testing.T) {
	t.Parallel()
	fake := sctest.New(t)
	slow := &slowRoute{delay: 50 * time.Millisecond}
	perRoute := func(route string) edapp.Limiter {
		if strings.Contains(route, "training-course-progress") {
			return slow
		}
		return nil
	}
	c, err := safetyculture.NewClient(fake.Token, edapp.WithBaseURL(fake.URL), edapp.WithRouteLimiter(perRoute))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filedest.Open(t.TempDir(), filedest.WithFormat("csv"))
	if err != nil {
		t.Fatal(err)
	}
	opts := export.Options{Kinds: []string{"course_progress"}}
	if _, err := export.Run(context.Background(), scsrc.New(c), opts, files); err != nil {
		t.Fatal(err)
	}
	slow.calls.Store(0)
	prog := newKindTracking()
	opts.Progress = prog
	sum, err := export.Run(context.Background(), scsrc.New(c), opts, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Kinds) != 1 || !strings.Contains(strings.Join(sum.Kinds[0].Notes, " "), "fetched from") {
		t.Fatalf("the second run did not probe: %+v", sum.Kinds)
	}
	calls := slow.calls.Load()
	if got, want := prog.waitedOf("course_progress"), time.Duration(calls)*slow.delay; calls < 2 || got < want {
		t.Errorf("course_progress waited %v over %d requests (the probe's included), want at least %v", got, calls, want)
	}
}

// kindTracking is a Progress that keeps each kind's total and waits.
type kindTracking struct {
	mu     sync.Mutex
	totals map[string]int
	waited map[string]time.Duration
}

func newKindTracking() *kindTracking {
	return &kindTracking{totals: map[string]int{}, waited: map[string]time.Duration{}}
}

func (p *kindTracking) Track(kind string) export.Tracker { return kindTracker{p, kind} }

func (p *kindTracking) total(kind string) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, ok := p.totals[kind]
	return n, ok
}

func (p *kindTracking) waitedOf(kind string) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waited[kind]
}

type kindTracker struct {
	p    *kindTracking
	kind string
}

func (t kindTracker) SetTotal(n int) {
	t.p.mu.Lock()
	defer t.p.mu.Unlock()
	t.p.totals[t.kind] = n
}

func (t kindTracker) Add(_ int, waited time.Duration) {
	t.p.mu.Lock()
	defer t.p.mu.Unlock()
	t.p.waited[t.kind] += waited
}

func (kindTracker) Parents(int, int) {}
func (kindTracker) Done(error)       {}

// slowRoute is a limiter that holds every request of one route back for
// delay, and counts them.
type slowRoute struct {
	delay time.Duration
	calls atomic.Int64
}

func (l *slowRoute) Wait(ctx context.Context) error {
	l.calls.Add(1)
	select {
	case <-time.After(l.delay):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
