package edapp

// Benchmarks of reading attempts (a page, a decode, a stream) against a
// hand-written baseline in the same run. See BENCHMARKS.md.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/edapp-go/edapp/internal/pager"
)

// plainAttempt is the baseline's attempt: Attempt's fields in a plain
// struct without methods.
type plainAttempt struct {
	ID                string    `json:"id"`
	UserID            string    `json:"userId"`
	UserExternalID    string    `json:"userExternalId"`
	CourseID          string    `json:"courseId"`
	CourseExternalID  string    `json:"courseExternalId"`
	LessonID          string    `json:"lessonId"`
	LessonExternalID  string    `json:"lessonExternalId"`
	StartedDateTime   time.Time `json:"startedDateTime"`
	CompletedDateTime time.Time `json:"completedDateTime"`
	Score             float64   `json:"score"`
	Success           bool      `json:"success"`
	EarnedStars       int       `json:"earnedStars"`
}

// attemptsPage renders one envelope of n attempts, reporting total.
func attemptsPage(n, total int) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, `{"totalCount":%d,"items":[`, total)
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"id":"att-%06d","userId":"u-%d","userExternalId":"hr-%d","courseId":"c-%d","courseExternalId":"C%d",`+
			`"lessonId":"l-%d","lessonExternalId":"L%d","startedDateTime":"2024-05-01T09:%02d:00.123Z",`+
			`"completedDateTime":"2024-05-01T09:%02d:30Z","score":%d,"success":%t,"earnedStars":%d}`,
			i, i%97, i%97, i%13, i%13, i%41, i%41, i%60, i%60, i%101, i%3 != 0, i%4)
	}
	buf.WriteString("]}")
	return buf.Bytes()
}

// BenchmarkListAttemptsPage: fetch and decode one page of 1000 attempts.
// The baseline does the same GET and decodes with json.Unmarshal into the
// same Attempt struct.
func BenchmarkListAttemptsPage(b *testing.B) {
	page := attemptsPage(1000, 1000)
	srv := staticServer(page)
	defer srv.Close()
	ctx := context.Background()

	b.Run("sdk", func(b *testing.B) {
		c := benchClient(b, srv.URL)
		opts := &AttemptListOptions{ListOptions: ListOptions{PageSize: 1000}}
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			p, err := c.Analytics.ListAttempts(ctx, opts)
			if err != nil || len(p.Items) != 1000 {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline", func(b *testing.B) {
		hc := &http.Client{Transport: baselineTransport()}
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v2/analytics/attempts?page=1&pageSize=1000", nil)
			req.Header.Set("Authorization", "Bearer bench-token")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				b.Fatal(err)
			}
			var env struct {
				TotalCount int            `json:"totalCount"`
				Items      []plainAttempt `json:"items"`
			}
			if err := json.Unmarshal(data, &env); err != nil || len(env.Items) != 1000 {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeAttemptsPage: decoding only, one page of 1000 attempts:
// the SDK's list decoder against json.Unmarshal into plain structs.
func BenchmarkDecodeAttemptsPage(b *testing.B) {
	page := attemptsPage(1000, 1000)
	b.Run("sdk", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			var l pager.List[Attempt]
			if _, err := lenient.Decode(page, &l); err != nil || len(l.Items) != 1000 {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			var env struct {
				TotalCount int            `json:"totalCount"`
				Items      []plainAttempt `json:"items"`
			}
			if err := json.Unmarshal(page, &env); err != nil || len(env.Items) != 1000 {
				b.Fatal(err)
			}
		}
	})
	// The two, alternately in one loop; sdk/baseline is the ratio of the
	// process CPU time each used, which other programs on a busy machine do
	// not inflate (garbage collection and, for GetUser, the loopback server
	// are counted on both sides).
	decodeSDK := func(page []byte) func(b *testing.B) {
		return func(b *testing.B) {
			var l pager.List[Attempt]
			if _, err := lenient.Decode(page, &l); err != nil || len(l.Items) != 1000 {
				b.Fatal(err)
			}
		}
	}
	decodeBase := func(b *testing.B) {
		var env struct {
			TotalCount int            `json:"totalCount"`
			Items      []plainAttempt `json:"items"`
		}
		if err := json.Unmarshal(page, &env); err != nil || len(env.Items) != 1000 {
			b.Fatal(err)
		}
	}
	b.Run("interleaved", interleaved(decodeSDK(page), decodeBase))
	// What the SDK pays when every item has a member it does not know (kept
	// in Extra), and when every item has a date in an unknown form (dropped
	// and reported), against the same clean baseline.
	unknown := bytes.ReplaceAll(page, []byte(`"success":`), []byte(`"isArchived":false,"success":`))
	b.Run("interleaved-unknown-members", interleaved(decodeSDK(unknown), decodeBase))
	b.Run("interleaved-bad-dates", interleaved(decodeSDK(badDatesPage(1000, true)), decodeBase))
}

// BenchmarkStreamAttempts streams every record through AllAttempts, 1000 a
// page, and reports the peak heap in use while streaming. The peak must not
// grow with the total: compare total=20000 with total=200000.
func BenchmarkStreamAttempts(b *testing.B) {
	page := attemptsPage(1000, 0)
	for _, total := range []int{20_000, 200_000} {
		b.Run("total="+strconv.Itoa(total), func(b *testing.B) {
			body := bytes.Replace(page, []byte(`"totalCount":0`), []byte(`"totalCount":`+strconv.Itoa(total)), 1)
			srv := staticServer(body)
			defer srv.Close()
			c := benchClient(b, srv.URL)
			ctx := context.Background()
			var peak uint64
			var ms runtime.MemStats
			b.ReportAllocs()
			for b.Loop() {
				runtime.GC()
				n := 0
				for a, err := range c.Analytics.AllAttempts(ctx, &AttemptListOptions{ListOptions: ListOptions{PageSize: 1000}}) {
					if err != nil {
						b.Fatal(err)
					}
					_ = a
					n++
					if n%1000 == 0 { // once a page
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapInuse)
					}
				}
				if n != total {
					b.Fatalf("streamed %d of %d", n, total)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(total), "ns/record")
		})
	}
}
