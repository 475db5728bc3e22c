package edapp

// Benchmarks of the SDK against a hand-written baseline (plain net/http and
// encoding/json) on the same loopback server, in the same run. See
// BENCHMARKS.md for the command and the figures.

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// plainUser is the baseline's user: the same fields as User, one for each
// member of benchUserJSON, in a plain struct without methods (time.Time,
// not Time), as a hand-written client would declare it.
type plainUser struct {
	ID                string            `json:"id"`
	Name              string            `json:"name"`
	Email             string            `json:"email"`
	FirstName         string            `json:"firstName"`
	LastName          string            `json:"lastName"`
	ExternalID        string            `json:"externalId"`
	TimeZone          string            `json:"timeZone"`
	Roles             []string          `json:"roles"`
	UserGroups        []string          `json:"userGroups"`
	UserGroupsManaged []string          `json:"userGroupsManaged"`
	CustomFields      map[string]string `json:"customFields"`
	LastActiveDate    time.Time         `json:"lastActiveDate"`
}

// BenchmarkGetUser: one GET of one user, SDK against baseline.
func BenchmarkGetUser(b *testing.B) {
	srv := staticServer([]byte(benchUserJSON))
	defer srv.Close()
	ctx := context.Background()

	b.Run("sdk", func(b *testing.B) {
		c := benchClient(b, srv.URL)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Users.Get(ctx, "u-1001"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline", func(b *testing.B) {
		hc := &http.Client{Transport: baselineTransport()}
		b.ReportAllocs()
		for b.Loop() {
			var u plainUser
			if err := baselineGet(ctx, hc, srv.URL+"/v2/users/u-1001", &u); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The two, alternately in one loop, by process CPU time (see
	// BenchmarkDecodeAttemptsPage).
	c := benchClient(b, srv.URL)
	hc := &http.Client{Transport: baselineTransport()}
	b.Run("interleaved", interleaved(func(b *testing.B) {
		if _, err := c.Users.Get(ctx, "u-1001"); err != nil {
			b.Fatal(err)
		}
	}, func(b *testing.B) {
		var u plainUser
		if err := baselineGet(ctx, hc, srv.URL+"/v2/users/u-1001", &u); err != nil {
			b.Fatal(err)
		}
	}))
}

// BenchmarkUsersGetWallTime: the wall time of one Users.Get (no observer,
// limiter off) against plain net/http and encoding/json into plainUser, on
// the same loopback server. "impl=sdk" and "impl=baseline" run each alone
// (their allocations are the figures to compare); "impl=interleaved"
// alternates the two call by call, the first of each pair in turn, and
// reports each one's wall time per call and their ratio, which a busy
// machine slows alike. scripts/bench-percall runs it with -count 20 and
// benchstat; BENCHMARKS.md quotes it.
func BenchmarkUsersGetWallTime(b *testing.B) {
	srv := staticServer([]byte(benchUserJSON))
	defer srv.Close()
	ctx := context.Background()
	c := benchClient(b, srv.URL)
	hc := &http.Client{Transport: baselineTransport()}
	// Each side labels its goroutine before each call, so a CPU profile
	// tells them apart (pprof -tagfocus side=sdk); the connection's read and
	// write goroutines, started by a side's first call, inherit its label.
	sdkSide := pprof.WithLabels(ctx, pprof.Labels("side", "sdk"))
	baselineSide := pprof.WithLabels(ctx, pprof.Labels("side", "baseline"))
	sdk := func(b *testing.B) {
		pprof.SetGoroutineLabels(sdkSide)
		if _, err := c.Users.Get(ctx, "u-1001"); err != nil {
			b.Fatal(err)
		}
	}
	baseline := func(b *testing.B) {
		pprof.SetGoroutineLabels(baselineSide)
		var u plainUser
		if err := baselineGet(ctx, hc, srv.URL+"/v2/users/u-1001", &u); err != nil {
			b.Fatal(err)
		}
	}
	for _, impl := range []struct {
		name string
		call func(*testing.B)
	}{{"sdk", sdk}, {"baseline", baseline}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				impl.call(b)
			}
		})
	}
	b.Run("impl=interleaved", interleavedWall(sdk, baseline))
}

// interleavedWall runs sdk and baseline alternately, each first in turn,
// and reports the wall time of each per call and the ratio of the two.
func interleavedWall(sdk, baseline func(*testing.B)) func(*testing.B) {
	return func(b *testing.B) {
		var s, base time.Duration
		first, second, n := sdk, baseline, 0
		for b.Loop() {
			t0 := time.Now()
			first(b)
			t1 := time.Now()
			second(b)
			t2 := time.Now()
			if n%2 == 0 {
				s, base = s+t1.Sub(t0), base+t2.Sub(t1)
			} else {
				s, base = s+t2.Sub(t1), base+t1.Sub(t0)
			}
			first, second, n = second, first, n+1
		}
		b.ReportMetric(float64(s.Nanoseconds())/float64(n), "sdk-ns/call")
		b.ReportMetric(float64(base.Nanoseconds())/float64(n), "baseline-ns/call")
		b.ReportMetric(float64(s)/float64(base), "sdk/baseline")
	}
}

// BenchmarkGetUserObserver: Users.Get with no Observer and with one whose
// five callbacks do nothing, side by side; "interleaved" runs the two
// alternately and reports the no-op observer's CPU time over none's.
func BenchmarkGetUserObserver(b *testing.B) {
	srv := staticServer([]byte(benchUserJSON))
	defer srv.Close()
	ctx := context.Background()
	noop := WithObserver(Observer{
		CallStart: func(ctx context.Context, _ CallEvent) context.Context { return ctx }, CallEnd: func(context.Context, CallEvent) {},
		Attempt: func(context.Context, AttemptEvent) {}, Wait: func(context.Context, WaitEvent) {}, Page: func(context.Context, PageEvent) {},
	})
	get := func(c *Client) func(*testing.B) {
		return func(b *testing.B) {
			if _, err := c.Users.Get(ctx, "u-1001"); err != nil {
				b.Fatal(err)
			}
		}
	}
	for name, opts := range map[string][]Option{"none": nil, "noop": {noop}} {
		b.Run("observer="+name, func(b *testing.B) {
			call := get(benchClient(b, srv.URL, opts...))
			b.ReportAllocs()
			for b.Loop() {
				call(b)
			}
		})
	}
	b.Run("interleaved", interleaved(get(benchClient(b, srv.URL, noop)), get(benchClient(b, srv.URL))))
}

// BenchmarkParallelGetUser: many goroutines share one client (limiter off).
// Run with -cpu 1,2 to see throughput follow the cores; -race checks the
// sharing.
func BenchmarkParallelGetUser(b *testing.B) {
	srv := staticServer([]byte(benchUserJSON))
	defer srv.Close()
	ctx := context.Background()

	b.Run("sdk", func(b *testing.B) {
		c := benchClient(b, srv.URL)
		b.ReportAllocs()
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := c.Users.Get(ctx, "u-1001"); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("baseline", func(b *testing.B) {
		hc := &http.Client{Transport: baselineTransport()}
		b.ReportAllocs()
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				var u plainUser
				if err := baselineGet(ctx, hc, srv.URL+"/v2/users/u-1001", &u); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// peakHeap runs fn and returns the most heap in use above where it
// started, sampled every millisecond.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > base && ms.HeapInuse-base > peak.Load() {
				peak.Store(ms.HeapInuse - base)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(done)
	return peak.Load()
}

// TestBodyHeapFigures prints the heap an endless error body and a large
// chunked success body cost, beside what an unbounded bytes.Buffer read
// costs. Run with EDAPP_HEAP_FIGURES=1; BENCHMARKS.md quotes it.
func TestBodyHeapFigures(t *testing.T) {
	if os.Getenv("EDAPP_HEAP_FIGURES") == "" {
		t.Skip("set EDAPP_HEAP_FIGURES=1 to measure")
	}
	const big = 200 << 20
	client := func(status int, n int64) *Client {
		hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			var body io.Reader = &endlessBody{}
			if n >= 0 {
				body = io.LimitReader(body, n)
			}
			return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(body), ContentLength: -1, Request: r}, nil
		})}
		c, err := NewClient("t", WithHTTPClient(hc), WithRateLimit(rate.Inf, 0), WithRetry(RetryPolicy{}), WithMaxResponseBytes(256<<20))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	mib := func(b uint64) float64 { return float64(b) / (1 << 20) }

	c := client(http.StatusNotFound, -1)
	errPeak := peakHeap(func() { _ = c.Do(context.Background(), http.MethodGet, "/v2/x", nil, nil, nil) })
	t.Logf("endless 404 body: peak heap %.2f MiB (the read stops at 64 KiB + 1)", mib(errPeak))

	c = client(http.StatusOK, big)
	var out []byte
	okPeak := peakHeap(func() { _ = c.Do(context.Background(), http.MethodGet, "/v2/x", nil, nil, nil); _ = out })
	basePeak := peakHeap(func() {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(io.LimitReader(&endlessBody{}, big))
	})
	t.Logf("200 MiB chunked success body: SDK peak heap %.0f MiB, bytes.Buffer.ReadFrom %.0f MiB (%.2fx)",
		mib(okPeak), mib(basePeak), float64(okPeak)/float64(basePeak))
}
