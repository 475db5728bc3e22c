package safetyculture

import (
	"iter"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countOf runs seq and returns how many items it yielded.
func countOf[T any](seq iter.Seq2[T, error]) (int, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func TestAnalyticsServiceEveryRead(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.mux.HandleFunc("GET /training/analytics/v1/", func(rw http.ResponseWriter, r *http.Request) {
		rw.Write([]byte(`{"totalCount":1,"items":[{"id":"x1","userId":"u1","courseId":"c1","lessonId":"l1","slideId":"s1","eventName":"LessonCompleted","lessonScore":null}]}`))
	})
	c := w.client(t)
	a := c.Analytics
	opts := &AnalyticsOptions{CourseID: "c1", StartDateTime: time.Date(2024, 1, 1, 10, 0, 0, 0, time.FixedZone("X", 3600))}
	type read struct {
		path string
		list func() (int, error)
		all  func() (int, error)
	}
	reads := []read{
		{"/courses/statistics", func() (int, error) { p, err := a.ListCourseStatistics(ctx, opts); return lenOf(p, err) }, func() (int, error) { return countOf(a.AllCourseStatistics(ctx, opts)) }},
		{"/lessons/statistics", func() (int, error) { p, err := a.ListLessonStatistics(ctx, opts); return lenOf(p, err) }, func() (int, error) { return countOf(a.AllLessonStatistics(ctx, opts)) }},
		{"/lessons/attempts", func() (int, error) { p, err := a.ListLessonAttempts(ctx, opts); return lenOf(p, err) }, func() (int, error) { return countOf(a.AllLessonAttempts(ctx, opts)) }},
		{"/lessons/progress/events", func() (int, error) { p, err := a.ListLessonProgressEvents(ctx, opts); return lenOf(p, err) }, func() (int, error) { return countOf(a.AllLessonProgressEvents(ctx, opts)) }},
		{"/users/u1/lessons/progress", func() (int, error) { p, err := a.ListUserLessonProgress(ctx, "u1", opts); return lenOf(p, err) }, func() (int, error) { return countOf(a.AllUserLessonProgress(ctx, "u1", opts)) }},
		{"/users/u1/lessons/progress/events", func() (int, error) { p, err := a.ListUserLessonProgressEvents(ctx, "u1", opts); return lenOf(p, err) }, func() (int, error) { return countOf(a.AllUserLessonProgressEvents(ctx, "u1", opts)) }},
		{"/slides/statistics", func() (int, error) { p, err := a.ListSlideStatistics(ctx, opts); return lenOf(p, err) }, func() (int, error) { return countOf(a.AllSlideStatistics(ctx, opts)) }},
		{"/users/u1/slides/statistics", func() (int, error) { p, err := a.ListUserSlideStatistics(ctx, "u1", opts); return lenOf(p, err) }, func() (int, error) { return countOf(a.AllUserSlideStatistics(ctx, "u1", opts)) }},
		{"/surveys/questionDefinitions", func() (int, error) { p, err := a.ListSurveyQuestionDefinitions(ctx, opts); return lenOf(p, err) }, func() (int, error) { return countOf(a.AllSurveyQuestionDefinitions(ctx, opts)) }},
		{"/surveys/answers", func() (int, error) { p, err := a.ListSurveyAnswers(ctx, opts); return lenOf(p, err) }, func() (int, error) { return countOf(a.AllSurveyAnswers(ctx, opts)) }},
		{"/rapidRefresh/answers", func() (int, error) { p, err := a.ListRapidRefreshAnswers(ctx, opts); return lenOf(p, err) }, func() (int, error) { return countOf(a.AllRapidRefreshAnswers(ctx, opts)) }},
	}
	for _, r := range reads {
		before := len(w.requests())
		n, err := r.list()
		require.NoError(t, err, r.path)
		assert.Equal(t, 1, n, r.path)
		n, err = r.all()
		require.NoError(t, err, r.path)
		assert.Equal(t, 1, n, r.path)
		reqs := w.requests()[before:]
		require.Len(t, reqs, 2, r.path)
		assert.Equal(t, "/training/analytics/v1"+r.path, reqs[0].URL.Path)
		assert.Equal(t, "courseId=c1&startDateTime=2024-01-01T09%3A00%3A00Z", reqs[0].URL.RawQuery, "filters in UTC")
		assert.Equal(t, "courseId=c1&page=1&pageSize=1000&startDateTime=2024-01-01T09%3A00%3A00Z", reqs[1].URL.RawQuery)
	}
	assert.Equal(t, 1, strings.Count(strings.Join(Routes(), ","), "rapidRefresh/answers"))
	_, err := a.ListUserLessonProgress(ctx, "", nil)
	assert.ErrorIs(t, err, edapp.ErrInvalidInput)
	_, err = countOf(a.AllUserSlideStatistics(ctx, " ", nil))
	assert.ErrorIs(t, err, edapp.ErrInvalidInput)
}

func lenOf[T any](p *edapp.Page[T], err error) (int, error) {
	if err != nil {
		return 0, err
	}
	return len(p.Items), nil
}

func TestAnalyticsReadsARecordLeniently(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/analytics/v1/lessons/attempts", 200, `[{"id":"a1","userId":"u1","score":"high","success":true,"startedDateTime":"2024-03-04T09:15:02Z","device":"ios"},{"id":"a2","score":75.5}]`)
	var resp edapp.Response
	page, err := w.client(t).Analytics.ListLessonAttempts(ctx, nil, edapp.WithResponseInto(&resp))
	require.NoError(t, err)
	require.Len(t, page.Items, 2)
	assert.True(t, page.Items[0].Success)
	assert.Equal(t, 75.5, page.Items[1].Score)
	assert.JSONEq(t, `"ios"`, string(page.Items[0].Extra["device"]))
	assert.Equal(t, []string{"[0].score"}, resp.Dropped)
	_, ok := page.Total()
	assert.False(t, ok)
}
