package fakedata_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp/edapptest"
)

// fakeClock is a fixed clock for WithClock.
type fakeClock struct{ t time.Time }

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2024, 3, 7, 5, 10, 36, 187e6, time.UTC)}
}

func (c *fakeClock) Now() time.Time { return c.t }

// harness wraps a fake with plain net/http helpers.
type harness struct {
	t *testing.T
	*edapptest.Server
}

func newHarness(t *testing.T, opts ...edapptest.Option) harness {
	t.Helper()
	return harness{t, edapptest.New(t, opts...)}
}

type resp struct {
	status int
	body   []byte
}

// do sends an authenticated request without a body.
func (h harness) do(method, path string, _ any) resp {
	h.t.Helper()
	req, err := http.NewRequest(method, h.URL+path, nil)
	require.NoError(h.t, err)
	req.Header.Set("Authorization", "Bearer "+h.Token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(h.t, err)
	return resp{res.StatusCode, b}
}

// get sends an authenticated GET, wants 200 and decodes into out.
func (h harness) get(path string, out any) {
	h.t.Helper()
	r := h.do("GET", path, nil)
	require.Equal(h.t, http.StatusOK, r.status, "GET %s: %s", path, r.body)
	require.NoError(h.t, json.Unmarshal(r.body, out), "body: %s", r.body)
}

func (h harness) mustUser(spec edapptest.UserSpec) string {
	h.t.Helper()
	id, err := h.AddUser(spec)
	require.NoError(h.t, err)
	return id
}

// page is the paged envelope.
type page[T any] struct {
	TotalCount int `json:"totalCount"`
	Items      []T `json:"items"`
}

func ids[T any](items []T, id func(T) string) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

// wireTime reads a datetime field.
type wireTime struct{ t time.Time }

func (w *wireTime) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &w.t) }

func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// The records the tests read, with the fields they read.
type (
	v2User struct {
		ID, Name, ExternalID string
		UserGroups           []string
	}
	v2Group struct {
		ID, Name, InviteCode string
		HasChildren          bool
	}
	v2Collection struct{ ID string }
	v2Course     struct{ ID, ExternalID, Title string }
	v2Lesson     struct{ ID string }
	v2UserCourse struct{ Title string }
	v1Course     struct{ ID string }
	v1Report     struct {
		Lessons []struct {
			Duration float64
			Slides   []json.RawMessage
		}
	}
	wireAttempt struct {
		UserID, LessonID                   string
		StartedDateTime, CompletedDateTime wireTime
		Score                              int
		Success                            bool
	}
	wireProgressEvent  struct{ UserID string }
	wireCourseProgress struct {
		UserID, UserName    string
		Completed           bool
		CompletedDateTime   wireTime
		PercentageCompleted float64
	}
	wireCourseStatistics struct {
		CourseID                                string
		OpenedCount, TotalUsers, CompletedCount int
	}
	wireLessonStatistics struct {
		LessonID       string
		CompletedCount int
	}
	wireSurveyAnswer struct{ UserID, AttemptID string }
)

// receiver is a webhook endpoint that records what it receives.
type receiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []received
}

type received struct{ body []byte }

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{b})
		rc.mu.Unlock()
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) received() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}
