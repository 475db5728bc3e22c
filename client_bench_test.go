package edapp

// Benchmarks of the SDK against a hand-written baseline (plain net/http and
// encoding/json) on the same loopback server, in the same run. See
// BENCHMARKS.md for the command and the figures.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/edapp-go/edapp/internal/pager"
)

const benchUserJSON = `{"id":"u-1001","name":"ann.lee","email":"ann.lee@example.com","firstName":"Ann","lastName":"Lee",` +
	`"externalId":"hr-1001","timeZone":"Australia/Sydney","roles":["app-user","prizing-user"],` +
	`"userGroups":["g-1","g-2"],"userGroupsManaged":["g-2"],"customFields":{"site":"Sydney","team":"Ops"},` +
	`"lastActiveDate":"2024-05-01T09:30:00.123Z"}`

// plainUser is the baseline's user: the same fields as User, one for each
// member of benchUserJSON, in a plain struct without methods (time.Time,
// not Time), as a hand-written client would declare it.
type plainUser struct {
	ID                string            `json:"id"`
	Name              string            `json:"name"`
	Email             string            `json:"email"`
	FirstName         string            `json:"firstName"`
	LastName          string            `json:"lastName"`
	ExternalID        string            `json:"externalId"`
	TimeZone          string            `json:"timeZone"`
	Roles             []string          `json:"roles"`
	UserGroups        []string          `json:"userGroups"`
	UserGroupsManaged []string          `json:"userGroupsManaged"`
	CustomFields      map[string]string `json:"customFields"`
	LastActiveDate    time.Time         `json:"lastActiveDate"`
}

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

// benchClient is an SDK client with the limiter off, so the benchmark
// measures the SDK, not the service's rate limit.
func benchClient(b *testing.B, url string, opts ...Option) *Client {
	b.Helper()
	c, err := NewClient("bench-token", append([]Option{WithBaseURL(url), WithRateLimit(rate.Inf, 0)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// baselineGet is what a careful hand-written client does: build the
// request, set the headers, send it, check the status, decode the body.
func baselineGet(ctx context.Context, hc *http.Client, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer bench-token")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func staticServer(body []byte) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
}

// baselineTransport has the pool settings the SDK's own transport has.
func baselineTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 32
	return t
}

// BenchmarkGetUser: one GET of one user, SDK against baseline.
func BenchmarkGetUser(b *testing.B) {
	srv := staticServer([]byte(benchUserJSON))
	defer srv.Close()
	ctx := context.Background()

	b.Run("sdk", func(b *testing.B) {
		c := benchClient(b, srv.URL)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Users.Get(ctx, "u-1001"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline", func(b *testing.B) {
		hc := &http.Client{Transport: baselineTransport()}
		b.ReportAllocs()
		for b.Loop() {
			var u plainUser
			if err := baselineGet(ctx, hc, srv.URL+"/v2/users/u-1001", &u); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The two, alternately in one loop, by process CPU time (see
	// BenchmarkDecodeAttemptsPage).
	c := benchClient(b, srv.URL)
	hc := &http.Client{Transport: baselineTransport()}
	b.Run("interleaved", interleaved(func(b *testing.B) {
		if _, err := c.Users.Get(ctx, "u-1001"); err != nil {
			b.Fatal(err)
		}
	}, func(b *testing.B) {
		var u plainUser
		if err := baselineGet(ctx, hc, srv.URL+"/v2/users/u-1001", &u); err != nil {
			b.Fatal(err)
		}
	}))
}

// BenchmarkGetUserObserver: Users.Get with no Observer and with one whose
// five callbacks do nothing, side by side; "interleaved" runs the two
// alternately and reports the no-op observer's CPU time over none's.
func BenchmarkGetUserObserver(b *testing.B) {
	srv := staticServer([]byte(benchUserJSON))
	defer srv.Close()
	ctx := context.Background()
	noop := WithObserver(Observer{
		CallStart: func(CallEvent) {}, CallEnd: func(CallEvent) {},
		Attempt: func(AttemptEvent) {}, Wait: func(WaitEvent) {}, Page: func(PageEvent) {},
	})
	get := func(c *Client) func(*testing.B) {
		return func(b *testing.B) {
			if _, err := c.Users.Get(ctx, "u-1001"); err != nil {
				b.Fatal(err)
			}
		}
	}
	for name, opts := range map[string][]Option{"none": nil, "noop": {noop}} {
		b.Run("observer="+name, func(b *testing.B) {
			call := get(benchClient(b, srv.URL, opts...))
			b.ReportAllocs()
			for b.Loop() {
				call(b)
			}
		})
	}
	b.Run("interleaved", interleaved(get(benchClient(b, srv.URL, noop)), get(benchClient(b, srv.URL))))
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

// interleaved runs sdk and baseline alternately and reports the ratio of
// the process CPU time each used.
func interleaved(sdk, baseline func(*testing.B)) func(*testing.B) {
	return func(b *testing.B) {
		var s, base time.Duration
		for b.Loop() {
			t0 := processCPU()
			sdk(b)
			t1 := processCPU()
			baseline(b)
			s, base = s+t1-t0, base+processCPU()-t1
		}
		b.ReportMetric(float64(s)/float64(base), "sdk/baseline-cpu")
	}
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

// BenchmarkParallelGetUser: many goroutines share one client (limiter off).
// Run with -cpu 1,2 to see throughput follow the cores; -race checks the
// sharing.
func BenchmarkParallelGetUser(b *testing.B) {
	srv := staticServer([]byte(benchUserJSON))
	defer srv.Close()
	ctx := context.Background()

	b.Run("sdk", func(b *testing.B) {
		c := benchClient(b, srv.URL)
		b.ReportAllocs()
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := c.Users.Get(ctx, "u-1001"); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("baseline", func(b *testing.B) {
		hc := &http.Client{Transport: baselineTransport()}
		b.ReportAllocs()
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				var u plainUser
				if err := baselineGet(ctx, hc, srv.URL+"/v2/users/u-1001", &u); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// TestSharedClientUnderLoad runs the parallel path under go test (and so
// under -race in CI): one client, many goroutines, every call succeeds.
func TestSharedClientUnderLoad(t *testing.T) {
	srv := staticServer([]byte(benchUserJSON))
	defer srv.Close()
	c, err := NewClient("t", WithBaseURL(srv.URL), WithRateLimit(rate.Inf, 0))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make(chan error, 16)
	for range 16 {
		go func() {
			var err error
			for range 25 {
				var u *User
				if u, err = c.Users.Get(ctx, "u-1001"); err == nil && u.Username != "ann.lee" {
					err = fmt.Errorf("decoded %q", u.Username)
				}
				if err != nil {
					break
				}
			}
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
