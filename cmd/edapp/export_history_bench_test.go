package main

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
)

// TestExportHistoryBench measures what the history tables cost, for
// BENCHMARKS.md: EDAPP_HISTORY_BENCH=BEFORE,AFTER names two edapp
// binaries (the commit before the history tables, and one with them). Each
// exports the realistic shape into a SQLite file of its own; then, ten
// times, 1% of the users are edited and 1% complete a lesson (the fake's
// activity), and each binary runs a re-run with those changes, then one
// with none, the two binaries in turn, the first of them alternating. It
// logs each run's CPU (user + system) and wall time, the medians, and the
// size of each history table and of each file at the end.
func TestExportHistoryBench(t *testing.T) {
	bins := strings.Split(os.Getenv("EDAPP_HISTORY_BENCH"), ",")
	if len(bins) != 2 {
		t.Skip("set EDAPP_HISTORY_BENCH=BEFORE,AFTER (two edapp binaries)")
	}
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	spec := fakedata.AccountSpec{Users: 5000, Groups: 300, Collections: 20, Courses: 200, Lessons: 8, Attempts: 200_000}
	if err := fakedata.SeedAccount(srv, spec); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "before.db"), filepath.Join(dir, "after.db")}
	run := func(i int) (cpu, wall time.Duration) {
		cmd := exec.Command(bins[i], "export", "--db", "sqlite:"+files[i], "--concurrency", "4", "--budget", "1000000/5m")
		cmd.Env = append(os.Environ(), "EDAPP_API_TOKEN="+srv.Token, "EDAPP_BASE_URL="+srv.URL)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", bins[i], err, out)
		}
		wall = time.Since(start)
		u := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		return time.Duration(u.Utime.Nano() + u.Stime.Nano()), wall
	}
	for i := range bins {
		cpu, wall := run(i)
		t.Logf("%s first run: cpu %.2f s, wall %.2f s", []string{"before", "after"}[i], cpu.Seconds(), wall.Seconds())
	}
	users := benchUserIDs(t, srv)
	lessons := benchLessonIDs(t, srv)
	rng := rand.New(rand.NewPCG(1, 2))
	times := map[string][]time.Duration{}
	for round := range 10 {
		for _, id := range pick(rng, users, len(users)/100) {
			name := fmt.Sprintf("Edited %d", round)
			if _, err := srv.Client().Users.Update(context.Background(), id, edapp.UserUpdateParams{FirstName: &name}); err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range pick(rng, users, len(users)/100) {
			if err := srv.CompleteLesson(id, lessons[rng.IntN(len(lessons))], float64(50+rng.IntN(50))); err != nil {
				t.Fatal(err)
			}
		}
		for _, what := range []string{"changes", "no change"} {
			for k := range 2 {
				i := (k + round) % 2
				cpu, wall := run(i)
				key := []string{"before", "after"}[i] + " " + what
				times[key+" cpu"] = append(times[key+" cpu"], cpu)
				times[key+" wall"] = append(times[key+" wall"], wall)
				t.Logf("round %d, %s: cpu %.2f s, wall %.2f s", round+1, key, cpu.Seconds(), wall.Seconds())
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(times)) {
		d := slices.Clone(times[k])
		slices.Sort(d)
		t.Logf("median %s: %.2f s (of %d)", k, d[len(d)/2].Seconds(), len(d))
	}
	db, _ := openTestDB(t, "sqlite:"+files[1])
	for _, h := range historyTables(t) {
		tb := strings.TrimSuffix(h.Name, "_history")
		t.Logf("%s: %d rows, %s: %d versions (%d open)", tb, countRows(t, db, `SELECT COUNT(*) FROM `+tb), h.Name,
			countRows(t, db, `SELECT COUNT(*) FROM `+h.Name), countRows(t, db, `SELECT COUNT(*) FROM `+h.Name+` WHERE valid_to IS NULL`))
	}
	for i, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %.1f MiB", []string{"before", "after"}[i], float64(st.Size())/(1<<20))
	}
}

// pick is n of ids, at random.
func pick(rng *rand.Rand, ids []string, n int) []string {
	out := slices.Clone(ids)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:n]
}

func benchUserIDs(t *testing.T, srv *edapptest.Server) []string {
	var out []string
	for u, err := range srv.Client().Users.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, u.ID)
	}
	return out
}

func benchLessonIDs(t *testing.T, srv *edapptest.Server) []string {
	ctx := context.Background()
	var out []string
	for c, err := range srv.Client().Catalog.AllCourses(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		lessons, err := srv.Client().Catalog.Lessons(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lessons {
			out = append(out, l.ID)
		}
		if len(out) > 200 {
			break
		}
	}
	return out
}
