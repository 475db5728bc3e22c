package scsrc

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// The SafetyCulture export benchmark's account: 5,000 users who each
// completed the 2 lessons of 20 courses (200,000 attempts, 100,000
// course-progress rows), in 10 groups and 10 sites.
const (
	scBenchUsers, scBenchCourses, scBenchLessons = 5000, 20, 2
	scBenchLatency                               = 50 * time.Millisecond
	// scBenchScale divides the service's limit windows and their limits
	// alike: 20 and 80 requests per endpoint in any 6 s instead of 200 and
	// 800 a minute. The rates are the service's; the bursts a tenth, so
	// that the limits bind within a benchmark's time (at the service's
	// bursts, 720 bulk requests a window, no endpoint of this account
	// would wait).
	scBenchScale  = 10
	scBenchWindow = safetyculture.LimitWindow / scBenchScale
	// scBenchMargin is what the client's limiters add to the window, as
	// the SDK's do (2 s on a minute; a tenth of a shorter window).
	scBenchMargin = scBenchWindow / 10
	scBenchShare  = 0.9 // the bulk share of each window the export may use
)

// seedSCBench fills fake with the benchmark's account.
func seedSCBench(b *testing.B, fake *sctest.Server) {
	b.Helper()
	var lessons []string
	for c := range scBenchCourses {
		_, ls, err := fake.AddCourse(sctest.CourseSpec{Title: fmt.Sprintf("Course %d", c), ExternalID: fmt.Sprintf("C%d", c),
			Lessons: []sctest.LessonSpec{{Title: "One"}, {Title: "Two"}}})
		if err != nil {
			b.Fatal(err)
		}
		lessons = append(lessons, ls...)
	}
	if _, err := fake.AddCollection("All", "", nil); err != nil {
		b.Fatal(err)
	}
	at := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	var groups, sites []string
	for g := range 10 {
		gid, err := fake.AddGroup("", fmt.Sprintf("Group %d", g))
		if err != nil {
			b.Fatal(err)
		}
		sid, err := fake.AddSite(sctest.SiteSpec{Name: fmt.Sprintf("Site %d", g)})
		if err != nil {
			b.Fatal(err)
		}
		groups, sites = append(groups, gid), append(sites, sid)
	}
	for i := range scBenchUsers {
		uid, err := fake.AddUser(sctest.UserSpec{Email: fmt.Sprintf("u%05d@example.com", i), ExternalID: fmt.Sprintf("E%05d", i)})
		if err != nil {
			b.Fatal(err)
		}
		if err := fake.AddGroupUser(groups[i%10], uid); err != nil {
			b.Fatal(err)
		}
		if err := fake.AddSiteMember(sites[i%10], uid); err != nil {
			b.Fatal(err)
		}
		for j, l := range lessons {
			if err := fake.CompleteLesson(uid, l, 80, at.Add(time.Duration(i*len(lessons)+j)*time.Second)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// scBenchLimit is route's scaled limit.
func scBenchLimit(route string) int { return safetyculture.LimitFor(route) / scBenchScale }

// scBenchClient is a client whose limiters have the fake's scaled limits.
func scBenchClient(b *testing.B, fake *sctest.Server) *safetyculture.Client {
	b.Helper()
	c, err := safetyculture.NewClient(fake.Token, edapp.WithBaseURL(fake.URL), edapp.WithRouteLimiter(func(route string) edapp.Limiter {
		l, err := edapp.NewWindowLimiter(scBenchLimit(route), scBenchWindow+scBenchMargin, edapp.WithBulkShare(scBenchShare))
		if err != nil {
			b.Fatal(err)
		}
		return l
	}))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// discard is a destination that keeps nothing: the benchmark measures
// the fetch, not a database.
type discard struct{}

func (discard) Resume(context.Context, *export.Kind, export.RunInfo) (export.Plan, error) {
	return export.Plan{}, nil
}
func (discard) Begin(context.Context, *export.Kind, export.Plan) error              { return nil }
func (discard) Write(context.Context, *export.Batch) error                          { return nil }
func (discard) End(context.Context, *export.Kind, *export.KindResult, func()) error { return nil }

// scBenchRun is one run's outcome: its wall time, the requests of each
// route and the records of each kind.
type scBenchRun struct {
	wall    time.Duration
	cpu     time.Duration // the process's (client and fake), over the run
	routes  map[string]int
	records map[string]int
}

// runSCBench runs the kinds (all: nil) once, and waits for the fake's
// windows to pass, so the next run starts on a fresh budget.
func runSCBench(b *testing.B, fake *sctest.Server, kinds []string) scBenchRun {
	b.Helper()
	before := fake.RequestCounts()
	start, cpu := time.Now(), processCPU()
	sum, err := export.Run(context.Background(), New(scBenchClient(b, fake)), export.Options{Kinds: kinds}, discard{})
	out := scBenchRun{wall: time.Since(start), cpu: processCPU() - cpu, routes: map[string]int{}, records: map[string]int{}}
	if err != nil {
		b.Fatal(err)
	}
	for route, n := range fake.RequestCounts() {
		if d := n - before[route]; d > 0 {
			out.routes[route] = d
		}
	}
	for _, r := range sum.Kinds {
		out.records[r.Kind] = r.Records
	}
	time.Sleep(scBenchWindow + scBenchMargin)
	return out
}

// floor is the least time the run's requests take: the pool's
// concurrency sends them 50 ms at a time, each route waits a window for
// each share of its limit past the first, and a feed's pages go one after
// another (each page's next_page names the next).
func (r scBenchRun) floor() time.Duration {
	total := 0
	var slowest time.Duration
	for route, n := range r.routes {
		total += n
		admit := int(math.Floor(scBenchShare * float64(scBenchLimit(route))))
		limited := time.Duration((n-1)/admit)*(scBenchWindow+scBenchMargin) + scBenchLatency
		if strings.Contains(route, "/feed/") {
			limited = max(limited, time.Duration(n)*scBenchLatency)
		}
		slowest = max(slowest, limited)
	}
	latency := time.Duration(math.Ceil(float64(total)/edapp.DefaultPageConcurrency)) * scBenchLatency
	return max(latency, slowest)
}

func (r scBenchRun) requests() int {
	n := 0
	for _, v := range r.routes {
		n += v
	}
	return n
}

// scBenchMinimum is the fewest requests the records take: a page of the
// most records the export asks for (1,000; the org feeds' service default,
// 100, as the export sends no limit there), one list per course for the
// lessons and per collection for their courses, and one request per empty
// list.
func scBenchMinimum(records map[string]int) int {
	page := map[string]int{"users": 100, "groups": 100, "group_members": 100, "sites": 100, "site_members": 100}
	n := 0
	for kind, recs := range records {
		switch kind {
		case "lessons":
			n += scBenchCourses
		case "collection_courses":
			n++ // one collection
		default:
			size := page[kind]
			if size == 0 {
				size = 1000
			}
			n += max(1, int(math.Ceil(float64(recs)/float64(size))))
		}
	}
	return n
}

// BenchmarkRunSafetyCultureAgainstSctest exports the account from sctest
// answering in 50 ms, its limit windows and limits scaled down by
// scBenchScale (the client's limiters likewise): every kind at once, as
// export.Run runs them, then each kind alone, one after another. It reports the
// requests against the minimum, and each wall time against its floor.
//
//	go test -run '^$' -bench RunSafetyCultureAgainstSctest -benchtime 1x -timeout 30m ./export/scsrc/
func BenchmarkRunSafetyCultureAgainstSctest(b *testing.B) {
	fake := sctest.New(b, sctest.WithLatency(scBenchLatency),
		sctest.WithLimits(sctest.Limits{Catalogue: safetyculture.ClassCatalogue.Limit() / scBenchScale, Other: safetyculture.ClassOther.Limit() / scBenchScale, Window: scBenchWindow}))
	start := time.Now()
	seedSCBench(b, fake)
	b.Logf("seeded in %.1f s", time.Since(start).Seconds())
	b.Run("kinds-at-once", func(b *testing.B) {
		for range b.N {
			r := runSCBench(b, fake, nil)
			reportSCBench(b, r, r.floor())
		}
	})
	b.Run("kinds-one-after-another", func(b *testing.B) {
		for range b.N {
			all := scBenchRun{routes: map[string]int{}, records: map[string]int{}}
			var floor time.Duration
			var lines []string
			for _, kind := range export.KindNames(Kinds(), func(k export.Kind) bool { return !k.PerUser }) {
				r := runSCBench(b, fake, []string{kind})
				all.wall += r.wall
				all.cpu += r.cpu
				floor += r.floor()
				for k, v := range r.routes {
					all.routes[k] += v
				}
				for k, v := range r.records {
					all.records[k] += v
				}
				lines = append(lines, fmt.Sprintf("%s %d records, %d requests, %.2f s (floor %.2f s, CPU %.2f s)",
					kind, r.records[kind], r.requests(), r.wall.Seconds(), r.floor().Seconds(), r.cpu.Seconds()))
			}
			b.Logf("kinds: %s", strings.Join(lines, "; "))
			reportSCBench(b, all, floor)
		}
	})
}

func reportSCBench(b *testing.B, r scBenchRun, floor time.Duration) {
	b.Helper()
	routes := make([]string, 0, len(r.routes))
	for route, n := range r.routes {
		routes = append(routes, fmt.Sprintf("%s=%d", route, n))
	}
	sort.Strings(routes)
	b.Logf("requests by route: %s", strings.Join(routes, ", "))
	b.ReportMetric(float64(r.requests()), "requests")
	b.ReportMetric(float64(scBenchMinimum(r.records)), "min-requests")
	b.ReportMetric(r.wall.Seconds(), "wall-s")
	b.ReportMetric(r.cpu.Seconds(), "cpu-s")
	b.ReportMetric(floor.Seconds(), "floor-s")
	b.ReportMetric(r.wall.Seconds()/floor.Seconds(), "wall/floor")
	b.ReportMetric(0, "ns/op") // wall-s says it
}
