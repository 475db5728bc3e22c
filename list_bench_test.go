package edapp_test

// An AllAttempts export against the fake with a latency per page, pages in
// parallel against one at a time. The fake runs in a process of its own (this
// test binary, started again), so that the heap measured is the client's
// alone and not the fake's store. See docs/bench/budget.md, "Parallel pages".

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
)

const (
	// exportFakeEnv holds "records,latency" for the fake's process.
	exportFakeEnv   = "EDAPP_EXPORT_BENCH_FAKE"
	exportToken     = "export-bench-token"
	exportRecords   = 200_000
	exportLatency   = 50 * time.Millisecond
	exportPageSize  = edapp.MaxPageSize
	exportFakeUsers = 500
)

// TestExportBenchFake is the fake's process for BenchmarkExportParallel,
// which starts this test binary again with exportFakeEnv set. Run alone,
// it skips.
func TestExportBenchFake(t *testing.T) {
	spec := os.Getenv(exportFakeEnv)
	if spec == "" {
		t.Skip("the fake's process for BenchmarkExportParallel; it runs only when the benchmark starts it")
	}
	recs, lat, _ := strings.Cut(spec, ",")
	records, err := strconv.Atoi(recs)
	if err != nil {
		t.Fatal(err)
	}
	latency, err := time.ParseDuration(lat)
	if err != nil {
		t.Fatal(err)
	}
	srv := edapptest.New(t, edapptest.WithToken(exportToken), edapptest.WithLatency(latency))
	defer srv.Close()
	if err := fakedata.SeedAccount(srv, fakedata.AccountSpec{Users: exportFakeUsers, Attempts: records}); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	fmt.Println("url", srv.URL)
	// Serve until the benchmark closes our stdin.
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// startExportFake starts the fake's process and returns its URL.
func startExportFake(b *testing.B, records int, latency time.Duration) string {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestExportBenchFake$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), exportFakeEnv+"="+strconv.Itoa(records)+","+latency.String())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if url, ok := strings.CutPrefix(sc.Text(), "url "); ok {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return url
		}
	}
	b.Fatalf("the fake's process gave no URL: %v", sc.Err())
	return ""
}

// heapPeak samples HeapInuse every few milliseconds until stopped, and
// whenever sample is called.
type heapPeak struct {
	mu   sync.Mutex
	peak uint64
	stop chan struct{}
	done chan struct{}
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				h.sample()
			}
		}
	}()
	return h
}

func (h *heapPeak) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.mu.Lock()
	h.peak = max(h.peak, ms.HeapInuse)
	h.mu.Unlock()
}

func (h *heapPeak) end() uint64 {
	close(h.stop)
	<-h.done
	return h.peak
}

// BenchmarkExportParallel exports 200,000 attempts, 1000 a page, from the
// fake answering each page after 50 ms, with one page at a time and with
// the default four. The limiter is off: this measures paging. It reports
// records per second and the peak heap in use during the export (HeapInuse,
// sampled every 2 ms and at every page); B/op divided by the 200 pages is
// what one page costs. Set EDAPP_EXPORT_RECORDS for a smaller export.
func BenchmarkExportParallel(b *testing.B) {
	records := exportRecords
	if v := os.Getenv("EDAPP_EXPORT_RECORDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("EDAPP_EXPORT_RECORDS=%q: want a positive count", v)
		}
		records = n
	}
	url := startExportFake(b, records, exportLatency)
	ctx := context.Background()
	for _, mode := range []struct {
		name string
		n    int
	}{{"sequential", 1}, {"parallel", edapp.DefaultPageConcurrency}} {
		b.Run(mode.name, func(b *testing.B) {
			c, err := edapp.NewClient(exportToken, edapp.WithBaseURL(url), edapp.WithLimiter(nil))
			if err != nil {
				b.Fatal(err)
			}
			var peak uint64
			b.ReportAllocs()
			for b.Loop() {
				runtime.GC()
				h := startHeapPeak()
				n := 0
				for a, err := range c.Analytics.AllAttempts(ctx, &edapp.AttemptListOptions{ListOptions: edapp.ListOptions{PageSize: exportPageSize}},
					edapp.WithPageConcurrency(mode.n)) {
					if err != nil {
						b.Fatal(err)
					}
					n++
					if want := "att_" + strconv.Itoa(n); a.ID != want {
						b.Fatalf("record %d is %s, want %s", n, a.ID, want)
					}
					if n%exportPageSize == 0 {
						h.sample()
					}
				}
				peak = max(peak, h.end())
				if n != records {
					b.Fatalf("exported %d of %d", n, records)
				}
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(records)/sec, "records/s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}
