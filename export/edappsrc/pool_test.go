package edappsrc_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/edappsrc"
	"golang.org/x/time/rate"
)

// wireCount counts the requests in flight at the fake over time.
type wireCount struct {
	mu          sync.Mutex
	n, most     int
	area        float64 // requests × seconds
	last        time.Time
	first, done time.Time // the first request, the last answer
}

func (w *wireCount) add(d int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	if !w.last.IsZero() {
		w.area += float64(w.n) * now.Sub(w.last).Seconds()
	}
	w.n, w.last = w.n+d, now
	w.most = max(w.most, w.n)
	if d > 0 && w.first.IsZero() {
		w.first = now
	}
	if d < 0 {
		w.done = now
	}
}

// mean is the mean in flight from the first request to the last answer.
func (w *wireCount) mean() float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.area / w.done.Sub(w.first).Seconds()
}

// wiredClient is a client of srv through a handler that counts the
// requests in flight at the fake into *w.
func wiredClient(t testing.TB, srv *edapptest.Server, w **wireCount) *edapp.Client {
	t.Helper()
	h := srv.Handler()
	wire := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		(*w).add(1)
		defer (*w).add(-1)
		h.ServeHTTP(rw, r)
	}))
	t.Cleanup(wire.Close)
	c, err := edapp.NewClient(srv.Token, edapp.WithBaseURL(wire.URL), edapp.WithRateLimit(rate.Inf, 0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRunKeepsAWalkAloneWithinThePool: a walk alone asks for a page more
// than the pool has places, and the pool still bounds the requests in
// flight at the fake to Options.Concurrency.
func TestRunKeepsAWalkAloneWithinThePool(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t, edapptest.WithLatency(20*time.Millisecond))
	if err := fakedata.SeedAccount(srv, fakedata.AccountSpec{Users: 10, Attempts: 300}); err != nil {
		t.Fatal(err)
	}
	w := &wireCount{}
	c := wiredClient(t, srv, &w)
	if _, err := export.Run(context.Background(), edappsrc.New(c), export.Options{Kinds: []string{"attempts"}, PageSize: 10, Concurrency: 3}, discard{}); err != nil {
		t.Fatal(err)
	}
	if w.most != 3 {
		t.Errorf("at most %d requests in flight, want the pool's 3", w.most)
	}
}

// discard is a destination that keeps nothing.
type discard struct{}

func (discard) Resume(context.Context, *export.Kind, export.RunInfo) (export.Plan, error) {
	return export.Plan{}, nil
}
func (discard) Begin(context.Context, *export.Kind, export.Plan) error              { return nil }
func (discard) Write(context.Context, *export.Batch) error                          { return nil }
func (discard) End(context.Context, *export.Kind, *export.KindResult, func()) error { return nil }

// BenchmarkRunKeepsThePoolBusy runs a first run of every kind at 50 ms a
// request and 4 requests in flight, in pages of 50 so that the requests,
// not the CPU, set the pace, and reports the mean requests in flight at
// the fake from the first request to the last answer (inflight, and busy%
// of the pool). EDAPP_POOL_BENCH=realistic runs the writer benchmark's
// account instead (5,000 users, 100,000 attempts, pages of 1,000), where
// the CPU, the fake's and the export's, sets the pace too:
//
//	go test -run '^$' -bench RunKeepsThePoolBusy -benchtime 5x ./export/edappsrc
func BenchmarkRunKeepsThePoolBusy(b *testing.B) {
	srv := edapptest.New(b, edapptest.WithLatency(50*time.Millisecond))
	defer srv.Close()
	spec, pageSize := fakedata.AccountSpec{Users: 240, Groups: 24, Collections: 4, Courses: 12, Lessons: 3, Attempts: 1500}, 50
	if os.Getenv("EDAPP_POOL_BENCH") == "realistic" {
		spec, pageSize = fakedata.AccountSpec{Users: 5000, Attempts: 100000}, edapp.MaxPageSize
	}
	if err := fakedata.SeedAccount(srv, spec); err != nil {
		b.Fatal(err)
	}
	var w *wireCount
	c := wiredClient(b, srv, &w)
	var sum float64
	for b.Loop() {
		w = &wireCount{}
		if _, err := export.Run(context.Background(), edappsrc.New(c), export.Options{PageSize: pageSize, Concurrency: 4}, discard{}); err != nil {
			b.Fatal(err)
		}
		sum += w.mean()
	}
	b.ReportMetric(sum/float64(b.N), "inflight")
	b.ReportMetric(100*sum/float64(b.N)/4, "busy%")
}
