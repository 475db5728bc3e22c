package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp/redislimit"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/edapp-go/edapp/safetyculture/sctest"
	"github.com/redis/go-redis/v9"
)

// TestNewCmdExportSafetyCultureFlags: --budget CLASS=N/WINDOW and
// --overlap parse for --source safetyculture; bad values are usage errors
// that never reach the run.
func TestNewCmdExportSafetyCultureFlags(t *testing.T) {
	t.Parallel()
	f := newTestFactory(env{})
	var got *exportOptions
	runF := func(o *exportOptions) error { got = o; return nil }
	sc := []string{"--source", "safetyculture", "--db", "sqlite:x.db"}
	err := execute(newCmdExport(f, runF), append(sc, "--budget", "other=400/1m, catalogue=100/30s", "--overlap", "3h")...)
	if err != nil {
		t.Fatal(err)
	}
	want := scBudget{safetyculture.ClassOther: {400, time.Minute}, safetyculture.ClassCatalogue: {100, 30 * time.Second}}
	if !reflect.DeepEqual(got.scBudget, want) || got.engine.Overlap != 3*time.Hour {
		t.Errorf("parsed to %+v and overlap %s, want %+v and 3h", got.scBudget, got.engine.Overlap, want)
	}
	if err := execute(newCmdExport(f, runF), "--db", "sqlite:x.db", "--overlap", "10m"); err != nil || got.engine.Overlap != 10*time.Minute {
		t.Errorf("edapp --overlap 10m: %v, %s", err, got.engine.Overlap)
	}
	for _, args := range [][]string{
		append(sc, "--budget", "400/1m"), append(sc, "--budget", "nope=1/1m"), append(sc, "--budget", "other=0/1m"),
		append(sc, "--budget", "other=1/0s"), append(sc, "--budget", "other=1/1m,other=2/1m"), append(sc, "--budget", "other"),
		append(sc, "--overlap", "2h"), append(sc, "--overlap", "-1h"), {"--db", "sqlite:x.db", "--overlap", "9m"},
	} {
		got = nil
		wantUsage(t, execute(newCmdExport(f, runF), args...), args)
		if got != nil {
			t.Errorf("%q reached the run", args)
		}
	}
}

// statusLog counts a fake's answers by status, from its request log.
type statusLog struct {
	mu sync.Mutex
	n  map[int]int
}

func (l *statusLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *statusLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *statusLog) WithGroup(string) slog.Handler            { return l }
func (l *statusLog) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "status" {
			l.mu.Lock()
			l.n[int(a.Value.Int64())]++
			l.mu.Unlock()
		}
		return true
	})
	return nil
}

func (l *statusLog) count(status int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[status]
}

// scBudgetFixture is a fake limiting each endpoint to 2 requests per 2
// seconds, with five courses (five requests to the lessons endpoint), and
// the log of its answers.
func scBudgetFixture(t *testing.T) (*sctest.Server, *statusLog) {
	t.Helper()
	log := &statusLog{n: map[int]int{}}
	sc, course, _ := scProgressFixture(t, sctest.WithLimits(sctest.Limits{Catalogue: 2, Other: 2, Window: 2 * time.Second}), sctest.WithLogger(slog.New(log)))
	for i := range 4 {
		if _, _, err := sc.AddCourse(sctest.CourseSpec{Title: fmt.Sprintf("Course %d", i), Lessons: []sctest.LessonSpec{{Title: "L"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if course == "" {
		t.Fatal("no course")
	}
	return sc, log
}

// TestSafetyCultureExportBudgetOverridesAClass: --budget CLASS=N/WINDOW
// sets the limit of each endpoint of the class: at the fake's scaled-down
// limits the export meets no 429. With the service's stated limits the
// export still finishes, slowed down by the service: by 429s when its
// requests to one endpoint overlap, or, when they happened to go one at a
// time, by answers saying the window has no request left (which is why
// that run is not asked for a 429).
func TestSafetyCultureExportBudgetOverridesAClass(t *testing.T) {
	t.Parallel()
	for _, budget := range []string{"", "catalogue=2/2s,other=2/2s"} {
		sc, log := scBudgetFixture(t)
		args := []string{"export", "--source", "safetyculture", "--out", t.TempDir(), "--bulk-share", "1"}
		if budget != "" {
			args = append(args, "--budget", budget)
		}
		wantCode(t, runEnv(t, scEnv(sc), args...), exitOK)
		if n := log.count(429); budget != "" && n > 0 {
			t.Errorf("--budget %q: %d answers 429", budget, n)
		}
	}
}

// TestSafetyCultureExportsShareTheBudgetThroughRedis: two exports on one
// token share each endpoint's budget through Redis: the fake, enforcing
// the same limits, answers no 429; the keys are KeyForRoute's and never
// hold the token.
func TestSafetyCultureExportsShareTheBudgetThroughRedis(t *testing.T) {
	t.Parallel()
	redisURL := startRedis(t)
	sc, log := scBudgetFixture(t)
	var wg sync.WaitGroup
	results := make([]result, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--out", t.TempDir(), "--bulk-share", "1",
				"--redis", redisURL, "--budget", "catalogue=2/2s,other=2/2s")
		}()
	}
	wg.Wait()
	for _, r := range results {
		wantCode(t, r, exitOK)
	}
	if n := log.count(429); n > 0 || sc.RequestCount("GET /training/courses/v1/{courseId}/lessons") != 10 {
		t.Errorf("%d answers 429, %d requests for lessons (want 0 and 10)", n, sc.RequestCount("GET /training/courses/v1/{courseId}/lessons"))
	}
	opts, _ := redis.ParseURL(redisURL)
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	keys, err := rdb.Keys(context.Background(), "*").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("keys: %v %v", keys, err)
	}
	lessons := redislimit.KeyForRoute(sc.Token, "GET /training/courses/v1/{courseId}/lessons")
	found := false
	for _, k := range keys {
		found = found || strings.Contains(k, lessons)
		if strings.Contains(k, sc.Token) {
			t.Errorf("key %q holds the token", k)
		}
	}
	if !found {
		t.Errorf("no key for the lessons endpoint (%s) among %q", lessons, keys)
	}
}

// TestSafetyCultureExportAnnouncesEndpointWaits: an endpoint's wait for its
// budget is announced as EdApp's are, naming the endpoint, how long and
// until when; the summary counts the requests sent and the waits, and so
// does --stats.
func TestSafetyCultureExportAnnouncesEndpointWaits(t *testing.T) {
	t.Parallel()
	sc, _ := scBudgetFixture(t)
	r := runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--out", t.TempDir(), "--bulk-share", "1",
		"--budget", "catalogue=2/2s,other=2/2s", "--kinds", "courses,lessons", "--stats", "-")
	wantCode(t, r, exitOK)
	lessons := "GET /training/courses/v1/{courseId}/lessons"
	if !regexp.MustCompile(`waiting [0-9.]+m?s for the request budget of ` + regexp.QuoteMeta(lessons) + `, until \d\d:\d\d:\d\d`).MatchString(r.stderr) {
		t.Errorf("no announced wait of %s:\n%s", lessons, r.stderr)
	}
	if !regexp.MustCompile(`edapp: [1-9]\d* requests sent; waited [1-9][0-9.]*m?s, added up over the endpoints`).MatchString(r.stderr) {
		t.Errorf("no summary of the requests and waits:\n%s", r.stderr)
	}
	var stats statsJSON
	last := r.stdout[strings.LastIndex(strings.TrimSpace(r.stdout), "\n")+1:] // after the summary table
	if err := json.Unmarshal([]byte(last), &stats); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if stats.Requests < 6 || stats.RequestsByKind["lessons"] < 5 || stats.WaitedSeconds["bulk"] == 0 {
		t.Errorf("--stats: %+v, want the requests (1 of courses, 5 of lessons) and the waits", stats)
	}
}
