package edapptest

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBudget(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, WithClock(clock.Now), WithBudget(3, time.Minute))
	status := func(path string) resp {
		t.Helper()
		return h.do("GET", path, nil)
	}
	for i := range 3 {
		assert.Equal(t, 200, status("/v2/users").status, "request %d", i)
		clock.Advance(10 * time.Second)
	}
	// Admitted at 0 s, 10 s and 20 s; now 30 s: the first leaves at 60 s.
	r := status("/v2/catalog/courses")
	assert.Equal(t, http.StatusTooManyRequests, r.status)
	assert.Equal(t, "30", r.header.Get("Retry-After"))
	r.message(t)
	// Refused requests do not count, and /v1, the launch page and requests
	// without a valid token are outside the budget.
	assert.Equal(t, 200, status("/v1/users").status)
	assert.Equal(t, 401, h.raw("GET", "/v2/users", "wrong", nil).status)
	assert.Equal(t, 401, h.raw("GET", "/launch-lesson?token=x&lesson=y", "", nil).status)
	clock.Advance(29*time.Second + 500*time.Millisecond)
	r = status("/v2/users")
	assert.Equal(t, http.StatusTooManyRequests, r.status)
	assert.Equal(t, "1", r.header.Get("Retry-After"), "half a second rounds up")
	clock.Advance(500 * time.Millisecond) // 60 s: the first request leaves the window
	assert.Equal(t, 200, status("/V2/users").status, "paths match without regard to case")
	assert.Equal(t, 429, status("/v2/users").status)
	assert.Equal(t, "10", status("/v2/users").header.Get("Retry-After"))
	// Injected failures spend budget like any admitted request.
	clock.Advance(10 * time.Second)
	h.FailNext(1, 503, 0)
	assert.Equal(t, 503, status("/v2/users").status)
	assert.Equal(t, 429, status("/v2/users").status)

	// No budget by default (a limit below 1 is an error: TestNewServerOptions).
	free := newHarness(t)
	for range 20 {
		require.Equal(t, 200, free.do("GET", "/v2/users", nil).status)
	}
}

func TestReadsOverlap(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, seedLoad(h.Server, 20, 200))
	// Hold the store as a reader: reads must still be served, so no lock
	// is exclusive across a read's work.
	h.mu.RLock()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths := []string{"/v2/analytics/attempts?pageSize=50", "/v2/users", "/v2/analytics/courseprogress",
				"/v2/analytics/lesson-progress/events", "/v1/users", "/v2/catalog/courses"}
			req, _ := http.NewRequest("GET", h.URL+paths[i%len(paths)], nil)
			req.Header.Set("Authorization", "Bearer "+h.Token)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			res.Body.Close()
			if res.StatusCode != 200 {
				errs <- fmt.Errorf("%s: status %d", paths[i%len(paths)], res.StatusCode)
			}
		}()
	}
	wg.Wait() // would never return if reads took the lock exclusively
	// A write waits for the reader.
	wrote := make(chan int, 1)
	go func() { wrote <- h.do("POST", "/v2/users", map[string]string{"name": "writer"}).status }()
	select {
	case <-wrote:
		t.Error("a write ran while the store was held")
	default:
	}
	h.mu.RUnlock()
	assert.Equal(t, 200, <-wrote)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestConcurrentReadsAndWrites runs reads, API writes and helpers at
// once; run it with -race.
func TestConcurrentReadsAndWrites(t *testing.T) {
	h := newHarness(t, WithLatency(time.Millisecond), WithBudget(1_000_000, time.Minute))
	require.NoError(t, seedLoad(h.Server, 50, 2000))
	var users page[v2User]
	h.get("/v2/users?pageSize=50", &users)
	var lessons []v2Lesson
	var courses page[v2Course]
	h.get("/v2/catalog/courses", &courses)
	h.get("/v2/catalog/courses/"+courses.Items[0].ID+"/lessons", &lessons)

	var wg sync.WaitGroup
	errs := make(chan error, 256)
	// Reads only, with the GETs that mint tokens among them: those must
	// not run as reads (-race would tell).
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				u := users.Items[(i+j)%len(users.Items)].ID
				for _, p := range []string{"/v1/users/" + u + "/courses", "/v1/users/id/" + u + "/token",
					"/v2/analytics/attempts?pageSize=10", "/v1/users/external/LOAD-000001/token"} {
					if st := h.do("GET", p, nil).status; st != 200 {
						errs <- fmt.Errorf("GET %s: %d", p, st)
					}
				}
			}
		}()
	}
	wg.Wait()
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 15 {
				u := users.Items[(i*15+j)%len(users.Items)].ID
				var path, method string
				switch (i + j) % 5 {
				case 0:
					method, path = "GET", fmt.Sprintf("/v2/analytics/attempts?page=%d&pageSize=100", j+1)
				case 1:
					method, path = "GET", "/v2/analytics/courseprogress?userId="+u
				case 2:
					method, path = "GET", "/v1/users/"+u+"/courses"
				case 3:
					method, path = "PUT", "/v2/users/"+u
				default:
					method, path = "GET", "/v2/analytics/users/"+u+"/lesson-progress"
				}
				var body any
				if method == "PUT" {
					body = map[string]string{"firstName": fmt.Sprint("F", i, j)}
				}
				if st := h.do(method, path, body).status; st != 200 {
					errs <- fmt.Errorf("%s %s: %d", method, path, st)
				}
				if err := h.CompleteLesson(u, lessons[j%len(lessons)].ID, 70); err != nil {
					errs <- err
				}
				_ = h.Requests()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Zero(t, h.core.Panics())
}

// TestCompleteLessonAtScale is the case that used to slow down as data
// grew: 5,000 users completing 3 lessons through CompleteLesson.
func TestCompleteLessonAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("large data set")
	}
	h := newHarness(t)
	_, ls := h.mustCourse(CourseSpec{Title: "C", Lessons: lessonSpecs("A", "B", "C")})
	start := time.Now()
	for i := range 5000 {
		u := h.mustUser(UserSpec{Username: fmt.Sprint("u", i), ExternalID: fmt.Sprint("E", i)})
		for _, l := range ls {
			require.NoError(t, h.CompleteLesson(u, l, 80))
		}
	}
	t.Logf("5000 users x 3 CompleteLesson: %v", time.Since(start))
	var stats page[wireCourseStatistics]
	h.get("/v2/analytics/coursestatistics", &stats)
	require.Len(t, stats.Items, 1)
	assert.Equal(t, 5000, stats.Items[0].CompletedCount)
}

// BenchmarkCompleteLesson measures one completion in an account that
// already holds 15,000 of them.
func BenchmarkCompleteLesson(b *testing.B) {
	s := unstarted(b)
	if err := seedLoad(s, 5000, 15_000); err != nil {
		b.Fatal(err)
	}
	u, _ := s.AddUser(UserSpec{Username: "bench"})
	var lesson string
	for _, l := range s.st.lessons.All() {
		lesson = l.ID
	}
	for b.Loop() {
		if err := s.CompleteLesson(u, lesson, 80); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAttemptsPage serves one page of 1000 attempts out of 200,000.
func BenchmarkAttemptsPage(b *testing.B) {
	s := unstarted(b)
	if err := seedLoad(s, 5000, 200_000); err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	for b.Loop() {
		req, _ := http.NewRequest("GET", "/v2/analytics/attempts?page=100&pageSize=1000", nil)
		req.Header.Set("Authorization", "Bearer "+s.Token)
		w := &discardWriter{h: http.Header{}}
		h.ServeHTTP(w, req)
		if w.status != 200 {
			b.Fatal(w.status)
		}
	}
}

type discardWriter struct {
	h      http.Header
	status int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *discardWriter) Write(b []byte) (int, error) {
	w.WriteHeader(200)
	return len(b), nil
}

// BenchmarkCourseProgressPage serves one page of 1000 course progress
// records out of 5,000, over 200,000 attempts.
func BenchmarkCourseProgressPage(b *testing.B) {
	s := unstarted(b)
	if err := seedLoad(s, 5000, 200_000); err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	for b.Loop() {
		req, _ := http.NewRequest("GET", "/v2/analytics/courseprogress?page=2&pageSize=1000", nil)
		req.Header.Set("Authorization", "Bearer "+s.Token)
		w := &discardWriter{h: http.Header{}}
		h.ServeHTTP(w, req)
		if w.status != 200 {
			b.Fatal(w.status)
		}
	}
}
