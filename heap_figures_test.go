package edapp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

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
