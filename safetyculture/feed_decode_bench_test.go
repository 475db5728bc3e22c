package safetyculture

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/internal/lenient"
)

// progressPage is a course-progress page of n rows as the service sends
// it: metadata with next_page and next_page_token, rows in snake_case.
func progressPage(n int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"metadata":{"next_page":"/training/v1/feed/training-course-progress?cursor=MTAwMA&limit=1000","next_page_token":"MTAwMA"},"data":[`)
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"opened_at":"2024-03-04T09:15:02.120Z","completed_at":"2024-03-05T11:40:00.000Z","total_lessons":6,"completed_lessons":6,"course_id":"5f1c2a9e8b7d6c5a4b3e2d1f","course_external_id":"SAFE-101","course_title":"Leading Under Pressure","user_email":"u%d@example.com","user_first_name":"Mia","user_last_name":"Chen","user_id":"user_%032d","user_external_id":"E-%d","progress_percent":100,"score":87,"due_at":""}`, i, i, i)
	}
	sb.WriteString(`]}`)
	return []byte(sb.String())
}

// BenchmarkFeedDecodeCourseProgress decodes one page of 1000 rows as the
// service sends it: through the SDK's decoder, and with plain
// encoding/json into the same types (which keeps no unknown member and
// reads no other spelling).
func BenchmarkFeedDecodeCourseProgress(b *testing.B) {
	page := progressPage(1000)
	b.Run("side-by-side", func(b *testing.B) {
		// The two decodes in turn, each timed: on a busy machine the
		// ratio of their sums is steadier than two separate runs.
		var sdk, plain time.Duration
		for b.Loop() {
			start := time.Now()
			var a feedAnswer[CourseProgress]
			if _, err := lenient.Decode(page, &a); err != nil {
				b.Fatal(err)
			}
			mid := time.Now()
			var p plainProgressPage
			if err := json.Unmarshal(page, &p); err != nil {
				b.Fatal(err)
			}
			sdk, plain = sdk+mid.Sub(start), plain+time.Since(mid)
		}
		b.ReportMetric(float64(sdk)/float64(plain), "sdk/plain")
	})
	b.Run("sdk", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			var a feedAnswer[CourseProgress]
			dropped, err := lenient.Decode(page, &a)
			if err != nil || len(dropped) > 0 || len(a.Data) != 1000 || a.Data[999].UserEmail == "" {
				b.Fatal(err, dropped)
			}
		}
	})
	b.Run("whole-page", func(b *testing.B) {
		// The page decoded whole, with a metadata type that lacks
		// next_page_token, as before record-by-record decoding.
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			var a struct {
				Metadata struct {
					NextPage *string        `json:"next_page"`
					Extra    map[string]any `json:"-"`
				} `json:"metadata"`
				Data []CourseProgress `json:"data"`
			}
			if _, err := lenient.Decode(page, &a); err != nil || len(a.Data) != 1000 {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			var a plainProgressPage
			if err := json.Unmarshal(page, &a); err != nil || len(a.Data) != 1000 {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFeedDecodeEmptyRecords decodes the page of an attack: 8 MB of
// empty records, more than a page may hold. The page is refused at
// MaxFeedItems rows, having decoded no more.
func BenchmarkFeedDecodeEmptyRecords(b *testing.B) {
	page := []byte(`{"metadata":{"next_page":null},"data":[` + strings.Repeat(`{},`, 8<<20/3) + `{}]}`)
	b.ReportAllocs()
	for b.Loop() {
		var a feedAnswer[CourseProgress]
		if _, err := lenient.Decode(page, &a); err == nil {
			b.Fatal("the page was read")
		}
	}
}

// plainProgressPage is a course-progress page for plain encoding/json.
type plainProgressPage struct {
	Metadata struct {
		NextPage      *string `json:"next_page"`
		NextPageToken *string `json:"next_page_token"`
	} `json:"metadata"`
	Data []CourseProgress `json:"data"`
}
