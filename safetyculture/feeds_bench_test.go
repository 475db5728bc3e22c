package safetyculture

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/edapp-go/edapp"
)

// BenchmarkFeedsAllCourseProgress walks a course-progress feed of 100,000
// rows in pages of 1000, on loopback with no latency: the client's own cost
// per row and per page.
func BenchmarkFeedsAllCourseProgress(b *testing.B) {
	const rows, limit = 100_000, 1000
	pages := make([]string, rows/limit)
	for p := range pages {
		var sb strings.Builder
		next := "null"
		if p+1 < len(pages) {
			next = `"/training/v1/feed/training-course-progress?cursor=` + strconv.Itoa(p+1) + `"`
		}
		sb.WriteString(`{"metadata":{"next_page":` + next + `},"data":[`)
		for i := range limit {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"opened_at":"2024-03-04T09:15:02.120Z","completed_at":"","total_lessons":6,"completed_lessons":2,"course_id":"5f1c2a9e8b7d6c5a4b3e2d1f","course_external_id":"","course_title":"Leading Under Pressure","user_email":"u%d@example.com","user_first_name":"A","user_last_name":"B","user_id":"user_%032d","user_external_id":"","progress_percent":33,"score":0,"due_at":""}`, p*limit+i, p*limit+i)
		}
		sb.WriteString(`]}`)
		pages[p] = sb.String()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
		w.Write([]byte(pages[p]))
	}))
	defer srv.Close()
	c, err := NewClient(testToken, edapp.WithBaseURL(srv.URL), edapp.WithRouteLimiter(func(string) edapp.Limiter { return nil }))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		n := 0
		for _, err := range c.Feeds.AllCourseProgress(ctx, &FeedOptions{Limit: limit}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != rows {
			b.Fatalf("%d rows", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
}
