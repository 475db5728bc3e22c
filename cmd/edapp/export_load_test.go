package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
)

// TestExportLoad measures an export of 5,000 users and 200,000 attempts
// against the fake, with 50 ms added to every request and the fake's
// account budget switched on. It takes a minute or so, so it runs only when
// asked:
//
//	EDAPP_EXPORT_LOAD=1 go test -run TestExportLoad -v ./cmd/edapp
func TestExportLoad(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a load measurement; skipped in -short")
	}
	if os.Getenv("EDAPP_EXPORT_LOAD") == "" {
		t.Skip("set EDAPP_EXPORT_LOAD=1 to run: EDAPP_EXPORT_LOAD=1 go test -run TestExportLoad -v ./cmd/edapp")
	}
	const users, attempts = 5000, 200000
	srv := edapptest.New(t, edapptest.WithBudget(1400, 5*time.Minute))
	defer srv.Close()
	seedStart := time.Now()
	if err := fakedata.SeedAccount(srv, fakedata.AccountSpec{Users: users, Attempts: attempts}); err != nil {
		t.Fatal(err)
	}
	t.Logf("seeded %d users and %d attempts in %s", users, attempts, time.Since(seedStart).Round(time.Millisecond))
	srv.SetLatency(50 * time.Millisecond)
	srv.ResetRequests()

	dir := t.TempDir()
	start := time.Now()
	r := runExport(t, context.Background(), srv, nil, "--out", dir)
	wall := time.Since(start)
	wantCode(t, r, exitOK)

	st := loadState(t, dir)
	total := 0
	for _, ks := range st.Kinds {
		total += ks.Records
	}
	if got := st.Kinds["attempts"].Records; got != attempts {
		t.Errorf("%d attempts exported, want %d", got, attempts)
	}
	if got := st.Kinds["users"].Records; got != users {
		t.Errorf("%d users exported, want %d", got, users)
	}

	reqs := srv.Requests()
	var times []time.Time
	limited := 0
	for _, q := range reqs {
		times = append(times, q.Time)
		if q.Status == 429 {
			limited++
		}
	}
	if limited > 0 {
		t.Errorf("%d answers were 429", limited)
	}
	t.Logf("export: %s wall-clock, %d records (%.0f records/s), %d requests, at most %d in any 5 minutes, %d answered 429",
		wall.Round(time.Millisecond), total, float64(total)/wall.Seconds(), len(reqs), maxInWindow(times, 5*time.Minute), limited)
	for _, line := range strings.Split(strings.TrimSpace(r.stdout+r.stderr), "\n") {
		t.Log(line)
	}
	size := int64(0)
	_ = filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			size += fi.Size()
		}
		return nil
	})
	t.Logf("files: %.1f MiB", float64(size)/(1<<20))

	// A re-run: only what is new (nothing), and the kinds without a date
	// filter again.
	srv.ResetRequests()
	start = time.Now()
	r = runExport(t, context.Background(), srv, nil, "--out", dir)
	wantCode(t, r, exitOK)
	t.Logf("re-run: %s wall-clock, %d requests", time.Since(start).Round(time.Millisecond), len(srv.Requests()))
}

// maxInWindow is the largest number of times in any trailing window.
func maxInWindow(times []time.Time, window time.Duration) int {
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	best, lo := 0, 0
	for hi := range times {
		for times[hi].Sub(times[lo]) >= window {
			lo++
		}
		best = max(best, hi-lo+1)
	}
	return best
}
