//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
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
// EDAPP_EXPORT_DB_BENCH_ATTEMPTS sets another number of attempts;
// EDAPP_EXPORT_DB_BENCH_PROFILES=DIR writes each export's CPU profile there.
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
	if err := srv.SeedAccount(edapptest.AccountSpec{Users: 5000, Attempts: attempts}); err != nil {
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
			args := d.args()
			if dir := os.Getenv("EDAPP_EXPORT_DB_BENCH_PROFILES"); dir != "" {
				args = append(args, "-test.cpuprofile="+filepath.Join(dir, fmt.Sprintf("%s-%d.prof", d.name, round)))
			}
			wall, rss, records := benchRun(t, srv, args)
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
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The child's rusage would count the RSS of this process, which it
	// shares until exec: read its own high-water mark instead.
	var rss int64
	exited, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			if hwm := vmHWM(cmd.Process.Pid); hwm > rss {
				rss = hwm
			}
			select {
			case <-exited:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	err := cmd.Wait()
	wall := time.Since(start)
	close(exited)
	<-done
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, cmd.Stdout.(*strings.Builder).String())
	}
	records := 0
	for _, m := range regexp.MustCompile(`(?m)^\S+\s+(\d+) records`).FindAllStringSubmatch(cmd.Stdout.(*strings.Builder).String(), -1) {
		n, _ := strconv.Atoi(m[1])
		records += n
	}
	return wall, rss, records
}

// vmHWM is the peak resident memory of a process, in bytes (0 when it
// cannot be read).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
