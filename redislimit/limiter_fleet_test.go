package redislimit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The fleet: separate OS processes (this test binary, run again as
// TestFleetWorker) share one key with a scaled-down window.
const (
	fleetProcs   = 4
	fleetLimit   = 60
	fleetWindow  = 2 * time.Second
	fleetRun     = 6500 * time.Millisecond // a little over 3 windows, so every worker covers them
	fleetWindows = 3                       // windows over which the budget's use is measured

	envFleetAddr = "REDISLIMIT_FLEET_ADDR"
	envFleetKey  = "REDISLIMIT_FLEET_KEY"
	envFleetBulk = "REDISLIMIT_FLEET_BULK"
)

// TestFleetWorker is one process of TestFleet; alone it skips. It draws
// from the shared budget with two goroutines until the run ends, and prints
// every admission's Redis time.
func TestFleetWorker(t *testing.T) {
	t.Parallel()
	addr := os.Getenv(envFleetAddr)
	if addr == "" {
		t.Skip("a helper process of TestFleet")
	}
	bulk := os.Getenv(envFleetBulk) == "1"
	l := mustNew(t, newClient(t, addr), os.Getenv(envFleetKey), fleetLimit, fleetWindow)
	ctx, cancel := context.WithTimeout(context.Background(), fleetRun)
	defer cancel()

	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				at, err := l.wait(ctx, bulk)
				if errors.Is(err, context.DeadlineExceeded) {
					return // the run is over
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				fmt.Fprintf(out, "admit %d %t\n", at.UnixMicro(), bulk)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := out.Flush(); err != nil {
		t.Fatal(err)
	}
}

func TestFleet(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs for several seconds")
	}
	s := startRedis(t)
	key := t.Name() + strconv.FormatInt(time.Now().UnixNano(), 36)

	type proc struct {
		cmd *exec.Cmd
		out bytes.Buffer
	}
	procs := make([]*proc, fleetProcs)
	for i := range procs {
		p := &proc{cmd: exec.Command(os.Args[0], "-test.run=^TestFleetWorker$", "-test.count=1")}
		p.cmd.Env = append(os.Environ(), envFleetAddr+"="+s.addr(), envFleetKey+"="+key,
			envFleetBulk+"="+strconv.Itoa(i%2)) // half the fleet is bulk
		p.cmd.Stdout = &p.out
		p.cmd.Stderr = &p.out
		procs[i] = p
	}
	for _, p := range procs {
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if p.cmd.ProcessState == nil {
				_ = p.cmd.Process.Kill()
				_ = p.cmd.Wait()
			}
		})
	}

	var all, bulk []time.Time
	perProc := make([]int, fleetProcs)
	for i, p := range procs {
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("worker %d: %v\n%s", i, err, p.out.String())
		}
		sc := bufio.NewScanner(&p.out)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 3 || f[0] != "admit" {
				continue
			}
			us, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatalf("worker %d: %q: %v", i, sc.Text(), err)
			}
			at := time.UnixMicro(us)
			all = append(all, at)
			if f[2] == "true" {
				bulk = append(bulk, at)
			}
			perProc[i]++
		}
	}
	for i, n := range perProc {
		if n == 0 {
			t.Errorf("worker %d was never admitted", i)
		}
	}
	checkWindow(t, "fleet", all, fleetLimit, fleetWindow)
	checkWindow(t, "fleet bulk", bulk, int(math.Floor(DefaultBulkShare*fleetLimit)), fleetWindow)

	// Measured, not asserted: the share of the budget the fleet used over
	// the first windows from its first admission.
	first := all[0]
	for _, at := range all {
		if at.Before(first) {
			first = at
		}
	}
	horizon := first.Add(fleetWindows * fleetWindow)
	used, usedBulk := 0, 0
	for _, at := range all {
		if at.Before(horizon) {
			used++
		}
	}
	for _, at := range bulk {
		if at.Before(horizon) {
			usedBulk++
		}
	}
	most, _ := maxInWindow(all, fleetWindow)
	mostBulk, _ := maxInWindow(bulk, fleetWindow)
	t.Logf("fleet of %d processes (%d goroutines each), %d per %v: %d admissions in the %d windows from the first (%d bulk, %d interactive): %.1f%% of the budget; %d admissions in the whole run, per process %v; most in any window %d (bulk %d)",
		fleetProcs, 2, fleetLimit, fleetWindow, used, fleetWindows, usedBulk, used-usedBulk,
		100*float64(used)/float64(fleetWindows*fleetLimit), len(all), perProc, most, mostBulk)
}
