//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExportCPUBench measures the CPU (user + system) an export spends per
// record fetched, for BENCHMARKS.md: EDAPP_CPU_BENCH=BIN,BIN,... names
// edapp binaries (say the commit before a change and the one with it).
// One `edapp fake` process (the first binary's) serves the realistic
// shape with no latency; each round, for files, SQLite and PostgreSQL in
// turn, each binary runs a first run into a new destination, then the
// binaries take turns at re-runs that find nothing new, the binaries'
// order alternating from round to round. Each database a first run
// wrote is then loaded again into a new one by the fastest path
// (benchFastestLoad), whose CPU (this process's, the fake being in its
// own) is the floor. The PostgreSQL server's CPU is counted beside each
// run and each load. It logs every run and, per binary, the medians
// against the files run.
//
//	EDAPP_CPU_BENCH=before,after go test -count=1 -timeout 0 -run TestExportCPUBench -v ./cmd/edapp
//
// EDAPP_CPU_BENCH_ATTEMPTS (100000), _USERS (5000) and _ROUNDS (3) set the
// size; _RERUNS (1) the re-runs of each binary a round; _DESTS narrows
// the destinations (csv,sqlite,postgres), _FLOOR=0 leaves out the
// fastest loads, and _PROFILES=DIR runs instead a first run and a re-run
// into each destination with this test binary's own export
// (TestExportChild), writing their CPU profiles there.
func TestExportCPUBench(t *testing.T) {
	if os.Getenv("EDAPP_CPU_BENCH") == "" {
		t.Skip("set EDAPP_CPU_BENCH=BIN,BIN (edapp binaries) to run")
	}
	bins := strings.Split(os.Getenv("EDAPP_CPU_BENCH"), ",")
	env := func(name, def string) string {
		if v := os.Getenv("EDAPP_CPU_BENCH_" + name); v != "" {
			return v
		}
		return def
	}
	rounds, _ := strconv.Atoi(env("ROUNDS", "3"))
	url := startFakeProcess(t, bins[0], "--users", env("USERS", "5000"), "--groups", "300", "--collections", "20",
		"--courses", "200", "--lessons", "8", "--attempts", env("ATTEMPTS", "100000"))
	if dir := env("PROFILES", ""); dir != "" {
		cpuProfiles(t, dir, url, benchDestsOf(env("DESTS", "csv,sqlite,postgres")))
		return
	}
	t.Logf("load before: %s", loadavg())
	figures := map[string][]float64{} // "bin dest what" -> µs per record
	reruns, _ := strconv.Atoi(env("RERUNS", "1"))
	for round := range rounds {
		order := append(slices.Clone(bins[round%len(bins):]), bins[:round%len(bins)]...)
		for _, d := range benchDestsOf(env("DESTS", "csv,sqlite,postgres")) {
			cpuBenchRound(t, figures, order, d, url, round+1, max(reruns, 1))
		}
	}
	t.Logf("load after: %s", loadavg())
	for _, bin := range bins {
		cpuBenchSummary(t, figures, bin)
	}
}

// cpuBenchRound runs, for each of bins in turn, a first run into a new
// destination d, then reruns rounds of re-runs that find nothing new, the
// binaries taking turns, then the fastest load of each first run's rows,
// adding their CPU per record to figures. (A re-run is a tenth of a second
// of CPU or two, so one sample of it a round moves with the machine.)
func cpuBenchRound(t *testing.T, figures map[string][]float64, bins []string, d benchDest, url string, round, reruns int) {
	args := make([][]string, len(bins))
	for i, bin := range bins {
		args[i] = d.make(t)
		r := cpuBenchRun(t, figures, bin, d.name, "first", url, args[i], round)
		figures[cpuKey(bin, d.name, "records")] = append(figures[cpuKey(bin, d.name, "records")], float64(r.records))
	}
	for range reruns {
		for i, bin := range bins {
			cpuBenchRun(t, figures, bin, d.name, "re-run", url, args[i], round)
		}
	}
	if d.name == "csv" || os.Getenv("EDAPP_CPU_BENCH_FLOOR") == "0" {
		return
	}
	for i, bin := range bins {
		cpuBenchFloor(t, figures, bin, d.name, args[i][1], round)
	}
}

// cpuKey is the key of figures for bin's runs of what into dest.
func cpuKey(bin, dest, what string) string {
	return filepath.Base(bin) + " " + dest + " " + what
}

// cpuBenchRun runs bin's export with args once, logs it and adds its CPU
// per record (and the PostgreSQL server's) to figures.
func cpuBenchRun(t *testing.T, figures map[string][]float64, bin, dest, what, url string, args []string, round int) cpuRun {
	r := cpuExport(t, bin, url, args)
	key := cpuKey(bin, dest, what)
	figures[key] = append(figures[key], perRecord(r.cpu, r.records))
	line := fmt.Sprintf("round %d %-14s %-8s %-6s %8d records  CPU %6.2f s (%5.2f µs a record)", round, filepath.Base(bin), dest, what, r.records, r.cpu.Seconds(), perRecord(r.cpu, r.records))
	if dest == "postgres" {
		figures[key+" server"] = append(figures[key+" server"], perRecord(r.server, r.records))
		line += fmt.Sprintf("  server CPU %6.2f s (%5.2f µs a record)", r.server.Seconds(), perRecord(r.server, r.records))
	}
	t.Logf("%s  wall %5.2f s  peak RSS %d MiB", line, r.wall.Seconds(), r.maxRSS>>20)
	return r
}

// cpuBenchFloor loads the rows bin's first run wrote into the database at
// url again by the fastest path, and adds its CPU per record to figures.
func cpuBenchFloor(t *testing.T, figures map[string][]float64, bin, dest, url string, round int) {
	counts := figures[cpuKey(bin, dest, "records")]
	records := int(counts[len(counts)-1])
	load, _ := benchFastestLoad(t, url)
	key := cpuKey(bin, dest, "floor")
	figures[key] = append(figures[key], perRecord(load.cpu, records))
	figures[key+" server"] = append(figures[key+" server"], perRecord(load.server, records))
	t.Logf("round %d %-14s %-8s fastest load of its rows: CPU %6.2f s (%5.2f µs a record)%s", round, filepath.Base(bin), dest, load.cpu.Seconds(), perRecord(load.cpu, records), serverCPU(dest, load.server))
}

// cpuProfiles runs a first run and a re-run into each of dests with this
// binary's export, against the fake at url, and writes their CPU
// profiles to dir.
func cpuProfiles(t *testing.T, dir, url string, dests []benchDest) {
	for _, d := range dests {
		args := d.make(t)
		for _, what := range []string{"first", "rerun"} {
			prof := filepath.Join(dir, what+"-"+d.name+".prof")
			cmd := childWith(env{"EDAPP_API_TOKEN": "T", "EDAPP_BASE_URL": url}, 0, append(slices.Clone(args), "--budget", "1000000/5m", "-test.cpuprofile="+prof)...)
			start := time.Now()
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v\n%s", d.name, err, cmd.Stdout)
			}
			u := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			t.Logf("%-8s %-5s: wall %5.2f s, CPU %5.2f s; profile %s", d.name, what, time.Since(start).Seconds(), time.Duration(u.Utime.Nano()+u.Stime.Nano()).Seconds(), prof)
		}
	}
}

// cpuBenchSummary logs bin's medians: each destination's CPU per record,
// and its ratio to the files run's (first runs to first runs, re-runs to
// re-runs), PostgreSQL's with its server's.
func cpuBenchSummary(t *testing.T, figures map[string][]float64, bin string) {
	name := filepath.Base(bin)
	med := func(k string) float64 { return median(figures[name+" "+k]) }
	for _, what := range []string{"first", "re-run"} {
		files := med("csv " + what)
		t.Logf("%s files %-6s median %5.2f µs a record (%.2f–%.2f)", name, what, files, slices.Min(figures[name+" csv "+what]), slices.Max(figures[name+" csv "+what]))
		for _, d := range []string{"sqlite", "postgres"} {
			if len(figures[name+" "+d+" "+what]) == 0 {
				continue
			}
			own, server := med(d+" "+what), med(d+" "+what+" server")
			floor := med(d+" floor") + med(d+" floor server")
			line := fmt.Sprintf("%s %-8s %-6s median %5.2f µs a record", name, d, what, own)
			if d == "postgres" {
				line += fmt.Sprintf(" + server %5.2f", server)
			}
			line += fmt.Sprintf(" = %.2f× files", (own+server)/files)
			if what == "first" {
				line += fmt.Sprintf("; fastest load %5.2f µs a record = %.2f× files; above it %.2f× files", floor, floor/files, (own+server-floor)/files)
				line += fmt.Sprintf("; above its round's own, µs a record: %.2f", aboveByRound(figures, name+" "+d))
			}
			t.Log(line)
		}
	}
}

// aboveByRound is, round by round, the CPU per record of the first run
// of key ("bin dest") above the fastest load of its rows, the PostgreSQL
// server's counted in both: the floor moves with the machine from round
// to round as much as the runs do.
func aboveByRound(figures map[string][]float64, key string) []float64 {
	first, floor := figures[key+" first"], figures[key+" floor"]
	out := make([]float64, min(len(first), len(floor)))
	for i := range out {
		out[i] = first[i] - floor[i]
		if servers := figures[key+" first server"]; i < len(servers) {
			out[i] += servers[i] - figures[key+" floor server"][i]
		}
	}
	return out
}

// cpuRun is one export's CPU figures.
type cpuRun struct {
	wall, cpu, server time.Duration
	records           int
	maxRSS            int64 // the export process's peak resident memory, in bytes
}

// cpuExport runs bin's export against the fake at url with args, and
// returns its CPU (from its rusage), the PostgreSQL server's in it, and
// the records it fetched.
func cpuExport(t *testing.T, bin, url string, args []string) cpuRun {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"export"}, append(slices.Clone(args), "--budget", "1000000/5m")...)...)
	cmd.Env = append(os.Environ(), "EDAPP_API_TOKEN=T", "EDAPP_BASE_URL="+url)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	server0 := serverTicks(args[1])
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	peak := pollHWM(cmd.Process.Pid)
	err := cmd.Wait()
	r := cpuRun{wall: time.Since(start), maxRSS: peak()}
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, out.String())
	}
	time.Sleep(200 * time.Millisecond) // see benchExport
	r.server = ticksDuration(serverTicks(args[1]) - server0)
	u := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	r.cpu = time.Duration(u.Utime.Nano() + u.Stime.Nano())
	for _, m := range regexp.MustCompile(`(?m)^\s*\S+\s+(\d+) records`).FindAllStringSubmatch(out.String(), -1) {
		n, _ := strconv.Atoi(m[1])
		r.records += n
	}
	return r
}

// pollHWM polls the peak resident memory of the process pid until the
// function it returns is called, which returns the highest seen. (The
// child's rusage would count this process's RSS, which it shares until
// exec.)
func pollHWM(pid int) (stop func() int64) {
	var rss int64
	exited, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			rss = max(rss, vmHWM(pid))
			select {
			case <-exited:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(exited)
		<-done
		return rss
	}
}

// startFakeProcess starts `bin fake` with args on a free port, and returns
// its base URL; the test's end stops it.
func startFakeProcess(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"fake", "--addr", "127.0.0.1:0", "--token", "T"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "EDAPP_BASE_URL=")
	if err != nil || !ok {
		t.Fatalf("edapp fake: %q, %v", line, err)
	}
	return url
}

// selfCPU is this process's CPU time so far, user and system.
func selfCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func perRecord(d time.Duration, records int) float64 {
	if records == 0 {
		return 0
	}
	return float64(d.Microseconds()) / float64(records)
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}
