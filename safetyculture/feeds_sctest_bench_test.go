package safetyculture

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// benchLatency is what every answer of the benchmark's fake takes.
const benchLatency = 50 * time.Millisecond

// The benchmark's account: 1,000 users in 100 courses (100,000
// course-progress rows), 20 groups and 20 sites of 50 members each.
const (
	benchUsers, benchCourses = 1000, 100
	benchProgressRows        = benchUsers * benchCourses
	benchProgressLimit       = MaxPageSize
)

// seedFeedBench fills fake with the benchmark's account.
// It returns the first course's id.
func seedFeedBench(b *testing.B, fake *sctest.Server) (firstCourse string) {
	b.Helper()
	users := make([]string, benchUsers)
	for i := range users {
		users[i] = mustB(b)(fake.AddUser(sctest.UserSpec{Email: fmt.Sprintf("u%04d@example.com", i), FirstName: "U"}))
	}
	done := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	for c := range benchCourses {
		cid, _, err := fake.AddCourse(sctest.CourseSpec{Title: fmt.Sprintf("Course %d", c), Lessons: []sctest.LessonSpec{{Title: "One"}}})
		if err != nil {
			b.Fatal(err)
		}
		firstCourse = cmp.Or(firstCourse, cid)
		for _, uid := range users {
			if err := fake.SetCourseProgress(sctest.ProgressSpec{UserID: uid, CourseID: cid, CompletedAt: done}); err != nil {
				b.Fatal(err)
			}
		}
	}
	for g := range 20 {
		gid := mustB(b)(fake.AddGroup("", fmt.Sprintf("Group %d", g)))
		sid := mustB(b)(fake.AddSite(sctest.SiteSpec{Name: fmt.Sprintf("Site %d", g)}))
		for _, uid := range users[g*50 : (g+1)*50] {
			if err := fake.AddGroupUser(gid, uid); err != nil {
				b.Fatal(err)
			}
			if err := fake.AddSiteMember(sid, uid); err != nil {
				b.Fatal(err)
			}
		}
	}
	return firstCourse
}

func mustB(b *testing.B) func(string, error) string {
	return func(s string, err error) string {
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
}

// BenchmarkCourseProgressFeedAgainstSctest walks a course-progress feed
// of 100,000 rows from sctest answering in 50 ms, with the default
// client: the requests it sends against the minimum, and its wall time
// against the floor of a sequential feed (requests × 50 ms). Then the six
// feeds, smaller, one after another and all at once: each endpoint has
// its own limiter, so at once they take about as long as the longest
// alone (10 requests) instead of the sum (42).
//
//	go test -run '^$' -bench 'AgainstSctest' -benchtime 1x ./safetyculture/
func BenchmarkCourseProgressFeedAgainstSctest(b *testing.B) {
	fake := sctest.New(b, sctest.WithLatency(benchLatency), sctest.WithoutLimits())
	courseID := seedFeedBench(b, fake)
	b.Run("course-progress", func(b *testing.B) {
		sc := clientOf(b, fake)
		route := "GET /training/v1/feed/training-course-progress"
		before := fake.RequestCount(route)
		b.ResetTimer()
		for range b.N {
			n, err := countOf(sc.Feeds.AllCourseProgress(context.Background(), &FeedOptions{CompletionStatus: CompletionAll, Limit: benchProgressLimit}))
			if err != nil || n != benchProgressRows {
				b.Fatalf("%d rows, %v", n, err)
			}
		}
		reportAgainstFloor(b, fake.RequestCount(route)-before, int(math.Ceil(float64(benchProgressRows)/benchProgressLimit)))
	})
	b.Run("six-feeds-one-after-another", func(b *testing.B) {
		sc := clientOf(b, fake)
		for range b.N {
			for _, walk := range sixFeeds(sc, courseID) {
				if err := walk(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("six-feeds-at-once", func(b *testing.B) {
		sc := clientOf(b, fake)
		for range b.N {
			var wg sync.WaitGroup
			errs := make(chan error, 6)
			for _, walk := range sixFeeds(sc, courseID) {
				wg.Add(1)
				go func() { defer wg.Done(); errs <- walk() }()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// reportAgainstFloor reports the requests a walk sent, the minimum, and
// its wall time against requests × benchLatency.
func reportAgainstFloor(b *testing.B, requests, minimum int) {
	perWalk := float64(requests) / float64(b.N)
	floor := time.Duration(perWalk * float64(benchLatency))
	wall := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(perWalk, "requests/op")
	b.ReportMetric(float64(minimum), "min-requests")
	b.ReportMetric(float64(floor.Milliseconds()), "floor-ms")
	b.ReportMetric(float64(wall)/float64(floor), "wall/floor")
}

// sixFeeds walks the six feeds, each in its own func, each in pages of
// the service's default size (100): the course progress of one course
// (1,000 rows), users (1,000), groups (20), group users (1,000), sites
// (20), site members (1,000); 42 requests in all.
func sixFeeds(sc *Client, courseID string) []func() error {
	ctx := context.Background()
	f := sc.Feeds
	walk := func(n int, err error) error { return err }
	return []func() error{
		func() error {
			return walk(countOf(f.AllCourseProgress(ctx, &FeedOptions{CompletionStatus: CompletionAll, CourseID: courseID})))
		},
		func() error { return walk(countOf(f.AllUsers(ctx))) },
		func() error { return walk(countOf(f.AllGroups(ctx))) },
		func() error { return walk(countOf(f.AllGroupUsers(ctx))) },
		func() error { return walk(countOf(f.AllSites(ctx))) },
		func() error { return walk(countOf(f.AllSiteMembers(ctx))) },
	}
}
