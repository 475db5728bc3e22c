//go:build linux

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edapp-go/edapp/cmd/edapp/internal/dbtest"
	"github.com/edapp-go/edapp/edapptest"
)

// TestExportDBBench measures edapp export into CSV files, SQLite and
// PostgreSQL, side by side: 5,000 users and 200,000 attempts in the fake,
// 50 ms added to every request, three rounds of the three, each export a
// process of its own into a new destination. It reports each run's wall
// time, peak RSS and records per second, and the medians. It takes
// minutes, so it runs only when asked:
//
//	EDAPP_EXPORT_DB_BENCH=1 go test -count=1 -run TestExportDBBench -v ./cmd/edapp
//
// EDAPP_EXPORT_DB_BENCH_ATTEMPTS sets another number of attempts.
func TestExportDBBench(t *testing.T) {
	if os.Getenv("EDAPP_EXPORT_DB_BENCH") == "" {
		t.Skip("set EDAPP_EXPORT_DB_BENCH=1 to run: EDAPP_EXPORT_DB_BENCH=1 go test -count=1 -run TestExportDBBench -v ./cmd/edapp")
	}
	attempts := 200000
	if n, err := strconv.Atoi(os.Getenv("EDAPP_EXPORT_DB_BENCH_ATTEMPTS")); err == nil && n > 0 {
		attempts = n
	}
	srv := edapptest.NewServer()
	defer srv.Close()
	if err := srv.SeedLoad(5000, attempts); err != nil {
		t.Fatal(err)
	}
	srv.SetLatency(50 * time.Millisecond)
	dests := []struct {
		name string
		args func() []string
	}{
		{"csv", func() []string { return []string{"--out", t.TempDir()} }},
		{"sqlite", func() []string { return []string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "edapp.db")} }},
		{"postgres", func() []string { return []string{"--db", dbtest.Postgres(t)} }},
	}
	walls := map[string][]float64{}
	for round := 1; round <= 3; round++ {
		for _, d := range dests {
			wall, rss, records := benchRun(t, srv, d.args())
			walls[d.name] = append(walls[d.name], wall.Seconds())
			t.Logf("round %d %-8s %6.1f s  peak RSS %4d MiB  %d records, %.0f records/s", round, d.name, wall.Seconds(), rss>>20, records, float64(records)/wall.Seconds())
		}
	}
	csv := median(walls["csv"])
	for _, d := range dests {
		m := median(walls[d.name])
		t.Logf("median %-8s %6.1f s  %.2f× the CSV export", d.name, m, m/csv)
	}
}

// benchRun runs one export as a process and returns its wall time, peak
// RSS in bytes and the records it fetched.
func benchRun(t *testing.T, srv *edapptest.Server, args []string) (time.Duration, int64, int) {
	t.Helper()
	cmd := exportChild(srv, 0, args...)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, cmd.Stdout.(*strings.Builder).String())
	}
	wall := time.Since(start)
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	records := 0
	for _, m := range regexp.MustCompile(`(?m)^\S+\s+(\d+) records`).FindAllStringSubmatch(cmd.Stdout.(*strings.Builder).String(), -1) {
		n, _ := strconv.Atoi(m[1])
		records += n
	}
	return wall, rss, records
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
