//go:build linux

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/dbtest"
)

// TestExportDBBench measures edapp export into CSV files, SQLite and
// PostgreSQL side by side, each export a process of its own into a new
// destination, in interleaved rounds (three by default), and reports each
// run and the medians with their range. It takes many minutes, so it runs
// only when asked (scripts/bench-writer runs it and keeps the log):
//
//	EDAPP_EXPORT_DB_BENCH=1 go test -count=1 -timeout 0 -run TestExportDBBench -v ./cmd/edapp
//
// The parts (EDAPP_EXPORT_DB_BENCH_PARTS, comma-separated; all by default):
//   - latency: first runs and re-runs at 50 ms a request, --concurrency 4
//     and 16, with the mean requests in flight counted at the fake, and the
//     identities refresh of the database timed on its own;
//   - zero: first runs with no latency, against loading the rows they
//     wrote by the fastest path (benchFastestLoad);
//   - rss: the peak RSS of one first run into each destination at
//     200,000 and 1,000,000 attempts, no latency.
//
// EDAPP_EXPORT_DB_BENCH_ATTEMPTS, _USERS and _COURSES set the account
// (200,000, 5,000 and the fake's one course), _ROUNDS the rounds, _RSS the attempts of the
// third (200000,1000000) and _RSS_DESTS its destinations
// (csv,sqlite,postgres); _DESTS and _CONCURRENCY narrow the latency part
// (csv,sqlite,postgres and 4,16), and _TIMELINE=1 logs, for each of its
// first runs, the requests in flight over the fetch alone and per quarter
// second; EDAPP_EXPORT_DB_BENCH_PROFILES=DIR writes each export's CPU
// profile and execution trace there.
func TestExportDBBench(t *testing.T) {
	t.Parallel()
	if os.Getenv("EDAPP_EXPORT_DB_BENCH") == "" {
		t.Skip("set EDAPP_EXPORT_DB_BENCH=1 to run: EDAPP_EXPORT_DB_BENCH=1 go test -count=1 -timeout 0 -run TestExportDBBench -v ./cmd/edapp")
	}
	parts := benchEnv("PARTS", "latency,zero,rss")
	users, attempts, rounds := benchInt(t, "USERS", 5000), benchInt(t, "ATTEMPTS", 200000), benchInt(t, "ROUNDS", 3)
	if strings.Contains(parts, "latency") {
		for _, conc := range benchInts(t, "CONCURRENCY", "4,16") {
			benchLatency(t, newBenchFake(t, users, attempts, 50*time.Millisecond), conc, rounds)
		}
	}
	if strings.Contains(parts, "zero") {
		benchZero(t, newBenchFake(t, users, attempts, 0), rounds)
	}
	if strings.Contains(parts, "rss") {
		for _, f := range strings.Split(benchEnv("RSS", "200000,1000000"), ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("EDAPP_EXPORT_DB_BENCH_RSS: %v", err)
			}
			benchRSS(t, newBenchFake(t, users, n, 0), n)
		}
	}
}

func benchEnv(name, def string) string {
	if v := os.Getenv("EDAPP_EXPORT_DB_BENCH_" + name); v != "" {
		return v
	}
	return def
}

// benchInts is a comma-separated list of positive numbers.
func benchInts(t *testing.T, name, def string) []int {
	var out []int
	for _, f := range strings.Split(benchEnv(name, def), ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			t.Fatalf("EDAPP_EXPORT_DB_BENCH_%s: want positive numbers", name)
		}
		out = append(out, n)
	}
	return out
}

// benchDestsOf is the destinations names lists (comma-separated), in
// benchDests' order.
func benchDestsOf(names string) []benchDest {
	var out []benchDest
	for _, d := range benchDests {
		if slices.Contains(strings.Split(names, ","), d.name) {
			out = append(out, d)
		}
	}
	return out
}

func benchInt(t *testing.T, name string, def int) int {
	n, err := strconv.Atoi(benchEnv(name, strconv.Itoa(def)))
	if err != nil || n <= 0 {
		t.Fatalf("EDAPP_EXPORT_DB_BENCH_%s: want a positive number", name)
	}
	return n
}

// benchFake is the fake behind a handler that counts the requests in
// flight over time, as the wire sees them (the latency wait included).
type benchFake struct {
	*edapptest.Server
	url string // the counting handler's

	mu       sync.Mutex
	inFlight int
	area     float64 // requests × seconds since reset
	last     time.Time
	reset0   time.Time // when reset was called
	first    time.Time // the first request since reset
	lastEnd  time.Time // the last answer since reset
	buckets  []float64 // requests × seconds per timelineStep since reset
}

// timelineStep is the step of the in-flight timeline the bench logs.
const timelineStep = 250 * time.Millisecond

func newBenchFake(t *testing.T, users, attempts int, latency time.Duration) *benchFake {
	t.Helper()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	// The fake's default is one course of three lessons, so that every
	// attempt and event shares its course and one of three lessons.
	courses, _ := strconv.Atoi(benchEnv("COURSES", "0"))
	if err := fakedata.SeedAccount(srv, fakedata.AccountSpec{Users: users, Attempts: attempts, Courses: courses}); err != nil {
		t.Fatal(err)
	}
	srv.SetLatency(latency)
	f := &benchFake{Server: srv, last: time.Now()}
	h := srv.Handler()
	wire := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.add(1)
		defer f.add(-1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(wire.Close)
	f.url = wire.URL
	return f
}

func (f *benchFake) add(d int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	f.spread(f.last, now)
	f.area += float64(f.inFlight) * now.Sub(f.last).Seconds()
	f.inFlight, f.last = f.inFlight+d, now
	switch {
	case d > 0 && f.first.IsZero():
		f.first = now
	case d < 0:
		f.lastEnd = now
	}
}

// spread adds the requests in flight from..to to the timeline's buckets.
// Called with mu held.
func (f *benchFake) spread(from, to time.Time) {
	if f.reset0.IsZero() || f.inFlight == 0 {
		return
	}
	for from.Before(to) {
		i := int(from.Sub(f.reset0) / timelineStep)
		end := f.reset0.Add(time.Duration(i+1) * timelineStep)
		if to.Before(end) {
			end = to
		}
		for len(f.buckets) <= i {
			f.buckets = append(f.buckets, 0)
		}
		f.buckets[i] += float64(f.inFlight) * end.Sub(from).Seconds()
		from = end
	}
}

// fetchSpan is the mean in flight from the first request to the last
// answer, the time before the first and the time after the last, and the
// timeline of the run: the mean in flight per timelineStep.
func (f *benchFake) fetchSpan(wall time.Duration) string {
	f.add(0)
	f.mu.Lock()
	defer f.mu.Unlock()
	span := f.lastEnd.Sub(f.first)
	var tl strings.Builder
	for _, b := range f.buckets {
		fmt.Fprintf(&tl, " %.1f", b/timelineStep.Seconds())
	}
	return fmt.Sprintf("%.2f in flight over the fetch (%.2f s), %.2f s before the first request, %.2f s after the last answer; per %s:%s",
		f.area/span.Seconds(), span.Seconds(), f.first.Sub(f.reset0).Seconds(), f.reset0.Add(wall).Sub(f.lastEnd).Seconds(), timelineStep, tl.String())
}

// reset starts counting anew.
func (f *benchFake) reset() {
	f.add(0)
	f.mu.Lock()
	f.area = 0
	f.reset0, f.first, f.lastEnd, f.buckets = time.Now(), time.Time{}, time.Time{}, nil
	f.mu.Unlock()
}

// meanInFlight is the mean of the requests in flight over the last
// seconds (since reset).
func (f *benchFake) meanInFlight(seconds float64) float64 {
	f.add(0)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.area / seconds
}

// benchDest is a destination of the bench: a new one from make, the
// arguments of an export into it.
type benchDest struct {
	name string
	make func(t *testing.T) []string
}

var benchDests = []benchDest{
	{"csv", func(t *testing.T) []string { return []string{"--out", t.TempDir()} }},
	{"sqlite", func(t *testing.T) []string {
		return []string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "edapp.db")}
	}},
	{"postgres", func(t *testing.T) []string { return []string{"--db", dbtest.Postgres(t)} }},
}

// benchRun is one export's figures.
type benchRun struct {
	wall     time.Duration
	cpu      time.Duration // the export process's, user and system
	busy     float64       // the machine's cores busy on average (the fake, a database server, anything else)
	server   time.Duration // the PostgreSQL server's processes', user and system
	rss      int64
	records  int
	inFlight float64 // mean requests in flight
	span     string  // the fetch's in flight, and the timeline (fetchSpan)
}

// benchLatency runs rounds of first runs and re-runs into each
// destination at concurrency conc.
func benchLatency(t *testing.T, srv *benchFake, conc, rounds int) {
	walls := map[string][]float64{}
	var inFlight []float64
	for round := 1; round <= rounds; round++ {
		for _, d := range benchDestsOf(benchEnv("DESTS", "csv,sqlite,postgres")) {
			args := append(d.make(t), "--concurrency", strconv.Itoa(conc))
			first := benchExport(t, srv, fmt.Sprintf("c%d-%s-first-%d", conc, d.name, round), args)
			again := benchExport(t, srv, fmt.Sprintf("c%d-%s-rerun-%d", conc, d.name, round), args)
			walls[d.name+" first"] = append(walls[d.name+" first"], first.wall.Seconds())
			walls[d.name+" re-run"] = append(walls[d.name+" re-run"], again.wall.Seconds())
			inFlight = append(inFlight, first.inFlight)
			if os.Getenv("EDAPP_EXPORT_DB_BENCH_TIMELINE") != "" {
				t.Logf("concurrency %d round %d %-8s first: %s", conc, round, d.name, first.span)
			}
			t.Logf("concurrency %d round %d %-8s first %6.1f s (%.2f in flight, peak RSS %d MiB, %d records, CPU %.1f s, %.2f cores busy%s)  re-run %6.2f s",
				conc, round, d.name, first.wall.Seconds(), first.inFlight, first.rss>>20, first.records, first.cpu.Seconds(), first.busy, serverCPU(d.name, first.server), again.wall.Seconds())
			if d.name != "csv" {
				benchIdentities(t, args[1])
			}
		}
	}
	for _, which := range []string{"first", "re-run"} {
		base := median(walls["csv "+which])
		for _, d := range benchDestsOf(benchEnv("DESTS", "csv,sqlite,postgres")) {
			xs := walls[d.name+" "+which]
			t.Logf("concurrency %d %-8s %-6s median %6.2f s (%.2f–%.2f)  %.2f× CSV", conc, d.name, which, median(xs), slices.Min(xs), slices.Max(xs), median(xs)/base)
		}
	}
	t.Logf("concurrency %d first runs: mean in flight median %.2f (%.2f–%.2f) = %.0f%% of %d", conc, median(inFlight), slices.Min(inFlight), slices.Max(inFlight), 100*median(inFlight)/float64(conc), conc)
}

// benchExport runs one export as a process (the fake in this one), and
// returns its figures.
func benchExport(t *testing.T, srv *benchFake, name string, args []string) benchRun {
	t.Helper()
	if dir := os.Getenv("EDAPP_EXPORT_DB_BENCH_PROFILES"); dir != "" {
		args = append(slices.Clone(args), "-test.cpuprofile="+filepath.Join(dir, name+".prof"), "-test.trace="+filepath.Join(dir, name+".trace"))
	}
	// The fake keeps no budget; a large one keeps the client's limiter from
	// pacing the runs of more requests than the service's budget.
	cmd := exportChild(srv.Server, 0, append(slices.Clone(args), "--budget", "1000000/5m")...)
	cmd.Env = append(cmd.Env, "EDAPP_BASE_URL="+srv.url)
	srv.reset()
	busy0, total0 := machineTicks()
	server0 := serverTicks(args[1])
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
	r := benchRun{wall: time.Since(start)}
	if busy1, total1 := machineTicks(); total1 > total0 {
		r.busy = float64(busy1-busy0) / float64(total1-total0) * float64(runtime.NumCPU())
	}
	// A backend that just exited counts in its server's children time only
	// once the server has reaped it.
	time.Sleep(200 * time.Millisecond)
	r.server = ticksDuration(serverTicks(args[1]) - server0)
	if cmd.ProcessState != nil {
		r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	r.inFlight = srv.meanInFlight(r.wall.Seconds())
	r.span = srv.fetchSpan(r.wall)
	close(exited)
	<-done
	r.rss = rss
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, cmd.Stdout.(*strings.Builder).String())
	}
	for _, m := range regexp.MustCompile(`(?m)^\s*\S+\s+(\d+) records`).FindAllStringSubmatch(cmd.Stdout.(*strings.Builder).String(), -1) {
		n, _ := strconv.Atoi(m[1])
		r.records += n
	}
	return r
}

// benchZero runs rounds of first runs with no latency into each
// destination, and loads the rows each database export wrote again by the
// fastest path.
func benchZero(t *testing.T, srv *benchFake, rounds int) {
	walls := map[string][]float64{}
	for round := 1; round <= rounds; round++ {
		for _, d := range benchDests {
			args := d.make(t)
			r := benchExport(t, srv, fmt.Sprintf("zero-%s-%d", d.name, round), args)
			walls[d.name] = append(walls[d.name], r.wall.Seconds())
			line := fmt.Sprintf("no latency round %d %-8s first %6.1f s (%d records, CPU %.1f s, %.2f cores busy%s)", round, d.name, r.wall.Seconds(), r.records, r.cpu.Seconds(), r.busy, serverCPU(d.name, r.server))
			if d.name != "csv" {
				load, _ := benchFastestLoad(t, args[1])
				walls[d.name+" fastest"] = append(walls[d.name+" fastest"], load.elapsed.Seconds())
				line += fmt.Sprintf("  fastest load %6.1f s%s", load.elapsed.Seconds(), serverCPU(d.name, load.server))
			}
			t.Log(line)
		}
	}
	for _, d := range benchDests {
		xs := walls[d.name]
		line := fmt.Sprintf("no latency %-8s median %6.1f s (%.1f–%.1f)", d.name, median(xs), slices.Min(xs), slices.Max(xs))
		if f := walls[d.name+" fastest"]; len(f) > 0 {
			line += fmt.Sprintf("  fastest load median %6.1f s (%.1f–%.1f)  %.2f× the fastest load", median(f), slices.Min(f), slices.Max(f), median(xs)/median(f))
		}
		t.Log(line)
	}
}

// benchRSS runs one first run into each destination with n attempts
// (those EDAPP_EXPORT_DB_BENCH_RSS_DESTS names, all by default).
func benchRSS(t *testing.T, srv *benchFake, n int) {
	dests := benchEnv("RSS_DESTS", "csv,sqlite,postgres")
	for _, d := range benchDests {
		if !slices.Contains(strings.Split(dests, ","), d.name) {
			continue
		}
		r := benchExport(t, srv, fmt.Sprintf("rss-%d-%s", n, d.name), d.make(t))
		t.Logf("%d attempts %-8s %6.1f s  peak RSS %4d MiB  %d records", n, d.name, r.wall.Seconds(), r.rss>>20, r.records)
	}
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

// machineTicks is the machine's busy and total CPU ticks so far, from
// /proc/stat (zero elsewhere).
func machineTicks() (busy, total int64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line)[1:]
	for i, f := range fields[:min(8, len(fields))] { // guest time is in user's already
		n, _ := strconv.ParseInt(f, 10, 64)
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total
}

// serverTicks is the CPU time, in clock ticks, of the PostgreSQL server
// of url (0 for another URL): its postmaster's, with that of the backends
// that have exited (its children time), and its live processes'. Other
// servers on the machine, which come and go, are left out.
func serverTicks(dsn string) (ticks int64) {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme != "postgres" || u.Port() == "" {
		return 0
	}
	port := u.Port()               // the URL carries the user's password before the host
	procs := map[string][]string{} // pid -> the fields after its command
	master := ""
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": utime, stime, cutime and cstime are
		// the 12th to 15th fields after the command's closing parenthesis.
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open || s[open+1:end] != "postgres" {
			continue
		}
		pid := strings.TrimSpace(s[:open])
		procs[pid] = strings.Fields(s[end+1:])
		if cmd, _ := os.ReadFile(filepath.Dir(p) + "/cmdline"); strings.Contains(string(cmd), "\x00-p\x00"+port+"\x00") {
			master = pid
		}
	}
	for pid, fields := range procs {
		if len(fields) >= 15 && master != "" && (pid == master || fields[1] == master) {
			for _, f := range fields[11:15] {
				n, _ := strconv.ParseInt(f, 10, 64)
				ticks += n
			}
		}
	}
	return ticks
}

// serverCPU is the PostgreSQL server's CPU time for a line of the log.
func serverCPU(dest string, d time.Duration) string {
	if dest != "postgres" {
		return ""
	}
	return fmt.Sprintf(", server CPU %.1f s", d.Seconds())
}

// ticksDuration converts clock ticks (USER_HZ, 100 on Linux) to a duration.
func ticksDuration(ticks int64) time.Duration { return time.Duration(ticks) * 10 * time.Millisecond }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
