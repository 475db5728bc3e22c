package edapptest

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// analyticsFixture records a known history:
//
//	T0      u1 opens L1                 (att_1)
//	T0+1m   u1 completes L1 with 65     (fails: minimum 70)
//	T0+2m   u1 opens L1                 (att_2)
//	T0+3m   u1 completes L1 with 90
//	T0+10m  u1 completes L2 with 100    (att_3, implicit open) -> course C completed
//	T0+1h   u2 opens L1                 (att_4)
//	T0+2h   u3 opens D1 without access  (att_5)
type analyticsFixture struct {
	harness
	clock      *fakeClock
	t0         time.Time
	c, d       string
	l, dl      []string
	u1, u2, u3 string
}

func newAnalyticsFixture(t *testing.T) analyticsFixture {
	clock := newFakeClock()
	h := newHarness(t, WithClock(clock.Now))
	f := analyticsFixture{harness: h, clock: clock, t0: clock.Now()}
	f.c, f.l = h.mustCourse(CourseSpec{Title: "Course C", ExternalID: "C-EXT", Lessons: []LessonSpec{
		{Title: "L1", ExternalID: "L1-EXT", MinimumScore: 70},
		{Title: "L2", ExternalID: "L2-EXT", MinimumScore: 50},
		{Title: "L3", ExternalID: "L3-EXT", Status: "unpublished"},
	}})
	f.d, f.dl = h.mustCourse(CourseSpec{Title: "Course D", ExternalID: "D-EXT", Lessons: lessonSpecs("D1")})
	g := h.mustGroup("G", "", "")
	require.NoError(t, h.AssignCourse(g, f.c))
	f.u1 = h.mustUser(UserSpec{Username: "u1", Email: "u1@example.com", FirstName: "Una", LastName: "One", ExternalID: "U1", Groups: []string{g}})
	f.u2 = h.mustUser(UserSpec{Username: "u2", ExternalID: "U2", Groups: []string{g}})
	f.u3 = h.mustUser(UserSpec{Username: "u3", ExternalID: "U3"})

	step := func(d time.Duration, fn func() error) {
		t.Helper()
		clock.Set(f.t0.Add(d))
		require.NoError(t, fn())
	}
	open := func(u, l string) func() error {
		return func() error { _, err := h.OpenLesson(u, l); return err }
	}
	step(0, open(f.u1, f.l[0]))
	step(time.Minute, func() error { return h.CompleteLesson(f.u1, f.l[0], 65) })
	step(2*time.Minute, open(f.u1, f.l[0]))
	step(3*time.Minute, func() error { return h.CompleteLesson(f.u1, f.l[0], 90) })
	step(10*time.Minute, func() error { return h.CompleteLesson(f.u1, f.l[1], 100) })
	step(time.Hour, open(f.u2, f.l[0]))
	step(2*time.Hour, open(f.u3, f.dl[0]))
	clock.Set(f.t0.Add(3 * time.Hour))
	return f
}

func (f analyticsFixture) at(d time.Duration) string {
	return url.QueryEscape(f.t0.Add(d).Format(time.RFC3339Nano))
}

func attemptIDs(p page[wireAttempt]) []string {
	return ids(p.Items, func(a wireAttempt) string { return a.ID })
}

func TestAnalyticsAttempts(t *testing.T) {
	f := newAnalyticsFixture(t)
	r := f.do("GET", "/v2/analytics/attempts", nil)
	require.Equal(t, 200, r.status)
	var raw page[map[string]any]
	r.json(t, &raw)
	require.Equal(t, 5, raw.TotalCount)
	assert.Equal(t, map[string]any{
		"id": "att_1", "userId": f.u1, "userExternalId": "U1", "courseId": f.c, "courseExternalId": "C-EXT",
		"lessonId": f.l[0], "lessonExternalId": "L1-EXT", "startedDateTime": "2024-03-07T05:10:36.187Z",
		"completedDateTime": "2024-03-07T05:11:36.187Z", "score": float64(65), "success": false, "earnedStars": float64(2),
	}, raw.Items[0])
	assert.Equal(t, []string{"id", "userId", "userExternalId", "courseId", "courseExternalId", "lessonId",
		"lessonExternalId", "startedDateTime", "completedDateTime", "score", "success", "earnedStars"},
		keys(t, rawItem(t, r.body, 0)))

	var p page[wireAttempt]
	f.get("/v2/analytics/attempts", &p)
	assert.True(t, p.Items[1].Success, "90 reaches the minimum of 70")
	assert.Equal(t, 3, p.Items[1].EarnedStars)
	assert.Equal(t, 100, p.Items[2].Score)
	assert.Equal(t, p.Items[2].StartedDateTime, p.Items[2].CompletedDateTime, "a completion without an open opens and closes")
	assert.True(t, p.Items[3].CompletedDateTime.IsZero(), "u2's attempt is still open")
	assert.False(t, p.Items[3].Success)
	assert.Equal(t, 0, p.Items[3].Score)

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"userId=" + f.u1, []string{"att_1", "att_2", "att_3"}},
		{"courseId=" + f.d, []string{"att_5"}},
		{"courseExternalId=C-EXT", []string{"att_1", "att_2", "att_3", "att_4"}},
		{"startDateTime=" + f.at(90*time.Second), []string{"att_2", "att_3", "att_4", "att_5"}},
		{"STARTDATETIME=" + f.at(2*time.Hour), []string{"att_5"}},
		{"userId=" + f.u1 + "&courseId=" + f.d, []string{}},
		{"userId=nobody", []string{}},
		{"startDateTime=2024-03-08T00:00:00Z", []string{}},
		{"pageSize=2&page=2", []string{"att_3", "att_4"}},
	} {
		f.get("/v2/analytics/attempts?"+tc.query, &p)
		assert.Equal(t, tc.want, attemptIDs(p), tc.query)
	}

	for _, q := range []string{"startDateTime=yesterday", "startDateTime=2024-13-01T00:00:00Z", "startDateTime=1709788236"} {
		r := f.do("GET", "/v2/analytics/attempts?"+q, nil)
		assert.Equal(t, 400, r.status, q)
		assert.Contains(t, r.message(t), "DateTime", q)
	}
}

// rawItem returns item i of a paged body as raw JSON, keys in order.
func rawItem(t *testing.T, body []byte, i int) []byte {
	t.Helper()
	var p page[json.RawMessage]
	require.NoError(t, json.Unmarshal(body, &p))
	require.Greater(t, len(p.Items), i)
	return p.Items[i]
}

func TestAnalyticsCourseProgress(t *testing.T) {
	f := newAnalyticsFixture(t)
	r := f.do("GET", "/v2/analytics/courseprogress", nil)
	require.Equal(t, 200, r.status)
	var p page[wireCourseProgress]
	r.json(t, &p)
	require.Equal(t, 3, p.TotalCount)

	u1 := p.Items[0]
	assert.Equal(t, wireCourseProgress{
		UserID: f.u1, UserExternalID: "U1", UserName: "u1", UserFirstName: "Una", UserLastName: "One",
		CourseID: f.c, CourseExternalID: "C-EXT", CourseTitle: "Course C",
		Unlocked: true, UnlockedDateTime: wt(f.t0),
		Opened: true, OpenedDateTime: wt(f.t0),
		Completed: true, CompletedDateTime: wt(f.t0.Add(10 * time.Minute)),
		LessonsTotal: 2, LessonsUnlocked: 2, LessonsCompleted: 2,
		PercentageCompleted: 100, Score: 95,
	}, u1)

	u2 := p.Items[1]
	assert.Equal(t, f.u2, u2.UserID)
	assert.True(t, u2.Opened)
	assert.False(t, u2.Completed)
	assert.True(t, u2.CompletedDateTime.IsZero())
	assert.Equal(t, 0.0, u2.PercentageCompleted)

	u3 := p.Items[2]
	assert.Equal(t, f.d, u3.CourseID)
	assert.False(t, u3.Unlocked, "progress without access still shows")
	assert.Equal(t, 0, u3.LessonsUnlocked)
	assert.True(t, u3.Opened)

	var raw page[map[string]any]
	r.json(t, &raw)
	assert.Equal(t, []string{"userId", "userExternalId", "userName", "userFirstName", "userLastName", "courseId",
		"courseExternalId", "courseTitle", "unlocked", "unlockedDateTime", "opened", "openedDateTime", "completed",
		"completedDateTime", "lessonsTotal", "lessonsUnlocked", "lessonsCompleted", "archived", "percentageCompleted", "score"},
		keys(t, rawItem(t, r.body, 0)))
	assert.Nil(t, raw.Items[1]["completedDateTime"])

	users := func(q string) []string {
		f.get("/v2/analytics/courseprogress?"+q, &p)
		return ids(p.Items, func(w wireCourseProgress) string { return w.UserID })
	}
	assert.Equal(t, []string{f.u1, f.u2}, users("courseId="+f.c))
	assert.Equal(t, []string{f.u3}, users("courseExternalId=D-EXT"))
	assert.Equal(t, []string{f.u1}, users("userId="+f.u1))
	assert.Equal(t, []string{f.u2, f.u3}, users("modifiedSinceDateTime="+f.at(30*time.Minute)))
	assert.Equal(t, []string{f.u1, f.u2, f.u3}, users("modifiedSinceDateTime="+f.at(10*time.Minute)))
	assert.Equal(t, 400, f.do("GET", "/v2/analytics/courseprogress?modifiedSinceDateTime=soon", nil).status)

	// Half done: percentage 50.
	require.NoError(t, f.CompleteLesson(f.u2, f.l[0], 80))
	f.get("/v2/analytics/courseprogress?userId="+f.u2, &p)
	assert.Equal(t, 50.0, p.Items[0].PercentageCompleted)
	assert.Equal(t, 1, p.Items[0].LessonsCompleted)
	assert.Equal(t, 80.0, p.Items[0].Score)

	// The same numbers on the user's course list.
	var uc page[v2UserCourse]
	f.get("/v2/users/"+f.u2+"/courses", &uc)
	require.Len(t, uc.Items, 1)
	assert.Equal(t, 50.0, uc.Items[0].PercentageCompleted)
	assert.True(t, uc.Items[0].Opened)
	assert.False(t, uc.Items[0].Completed)
	f.get("/v2/users/"+f.u1+"/courses", &uc)
	assert.True(t, uc.Items[0].Completed)
	assert.Equal(t, 100.0, uc.Items[0].PercentageCompleted)
}

func TestAnalyticsStatistics(t *testing.T) {
	f := newAnalyticsFixture(t)
	var cs page[wireCourseStatistics]
	f.get("/v2/analytics/coursestatistics", &cs)
	assert.Equal(t, []wireCourseStatistics{
		{CourseID: f.c, TotalUsers: 2, CompletedCount: 1, OpenedCount: 2},
		{CourseID: f.d, TotalUsers: 0, CompletedCount: 0, OpenedCount: 1},
	}, cs.Items)

	var ls page[wireLessonStatistics]
	f.get("/v2/analytics/lessonstatistics", &ls)
	assert.Equal(t, []wireLessonStatistics{
		{LessonID: f.l[0], CourseID: f.c, LessonTitle: "L1", TotalUsers: 2, OpenedCount: 2, CompletedCount: 1},
		{LessonID: f.l[1], CourseID: f.c, LessonTitle: "L2", TotalUsers: 2, OpenedCount: 1, CompletedCount: 1},
		{LessonID: f.l[2], CourseID: f.c, LessonTitle: "L3", TotalUsers: 2},
		{LessonID: f.dl[0], CourseID: f.d, LessonTitle: "D1", TotalUsers: 0, OpenedCount: 1},
	}, ls.Items)
}

func TestAnalyticsLessonProgressEvents(t *testing.T) {
	f := newAnalyticsFixture(t)
	r := f.do("GET", "/v2/analytics/lesson-progress/events", nil)
	var raw page[map[string]any]
	r.json(t, &raw)
	require.Equal(t, 8, raw.TotalCount)
	assert.Equal(t, map[string]any{
		"userId": f.u1, "userEmail": "u1@example.com", "userFirstName": "Una", "userLastName": "One",
		"courseId": f.c, "courseTitle": "Course C", "courseExternalId": "C-EXT",
		"lessonId": f.l[0], "lessonTitle": "L1", "lessonExternalId": "L1-EXT",
		"eventName": "LessonCompleted", "eventDateTime": "2024-03-07T05:11:36.187Z", "lessonScore": float64(65),
	}, raw.Items[1])
	assert.Equal(t, "LessonOpened", raw.Items[0]["eventName"])
	assert.Nil(t, raw.Items[0]["lessonScore"])

	names := func(q string) []string {
		var p page[wireProgressEvent]
		f.get("/v2/analytics/lesson-progress/events?"+q, &p)
		return ids(p.Items, func(e wireProgressEvent) string { return e.EventName + "@" + e.EventDateTime.Time.Sub(f.t0).String() })
	}
	assert.Equal(t, []string{"LessonOpened@1h0m0s", "LessonOpened@2h0m0s"}, names("minEventDateTime="+f.at(time.Hour)))
	assert.Equal(t, []string{"LessonOpened@1h0m0s"}, names("userId="+f.u2))
	assert.Equal(t, []string{"LessonOpened@2h0m0s"}, names("courseId="+f.d))
	assert.Equal(t, 400, f.do("GET", "/v2/analytics/lesson-progress/events?minEventDateTime=x", nil).status)

	var mine page[wireProgressEvent]
	f.get("/v2/analytics/users/"+f.u1+"/lesson-progress/events", &mine)
	assert.Equal(t, 6, mine.TotalCount)
	f.get("/v2/analytics/users/"+f.u1+"/lesson-progress/events?minEventDateTime="+f.at(3*time.Minute)+"&userId="+f.u2, &mine)
	assert.Equal(t, 3, mine.TotalCount, "the path's user wins over a userId filter")
	f.get("/v2/analytics/users/"+f.u3+"/lesson-progress/events", &mine)
	assert.Equal(t, 1, mine.TotalCount)
}

func TestAnalyticsUserLessonProgress(t *testing.T) {
	f := newAnalyticsFixture(t)
	r := f.do("GET", "/v2/analytics/users/"+f.u1+"/lesson-progress", nil)
	var p page[wireLessonProgress]
	r.json(t, &p)
	assert.Equal(t, []wireLessonProgress{
		{UserID: f.u1, CourseID: f.c, LessonID: f.l[0], LessonTitle: "L1", Opened: true, OpenedDateTime: wt(f.t0),
			Completed: true, CompletedDateTime: wt(f.t0.Add(time.Minute)), Score: 90, Attempts: 2},
		{UserID: f.u1, CourseID: f.c, LessonID: f.l[1], LessonTitle: "L2", Opened: true, OpenedDateTime: wt(f.t0.Add(10 * time.Minute)),
			Completed: true, CompletedDateTime: wt(f.t0.Add(10 * time.Minute)), Score: 100, Attempts: 1},
	}, p.Items)
	var raw page[map[string]any]
	r.json(t, &raw)
	assert.Equal(t, []string{"userId", "courseId", "lessonId", "lessonTitle", "opened", "openedDateTime", "completed",
		"completedDateTime", "score", "attempts"}, keys(t, rawItem(t, r.body, 0)))

	f.get("/v2/analytics/users/"+f.u2+"/lesson-progress", &p)
	require.Len(t, p.Items, 2, "every published lesson the user can reach")
	assert.True(t, p.Items[0].Opened)
	assert.False(t, p.Items[1].Opened)
	assert.Equal(t, 0, p.Items[1].Attempts)

	f.get("/v2/analytics/users/"+f.u3+"/lesson-progress", &p)
	assert.Equal(t, []string{f.dl[0]}, ids(p.Items, func(w wireLessonProgress) string { return w.LessonID }))
}

func TestAnalyticsSurveys(t *testing.T) {
	f := newAnalyticsFixture(t)
	mc, mcAnswers, err := f.AddSurveyQuestion(SurveyQuestionSpec{LessonID: f.l[0], SlideID: "slide-7", Type: "multiple-choice",
		Content: "<p>Did it help?</p>", Answers: []string{"Yes", "No"}})
	require.NoError(t, err)
	open, openAnswers, err := f.AddSurveyQuestion(SurveyQuestionSpec{LessonID: f.l[1], Content: "Comments?"})
	require.NoError(t, err)
	assert.Empty(t, openAnswers)
	rating, ratingAnswers, err := f.AddSurveyQuestion(SurveyQuestionSpec{LessonID: f.dl[0], Type: "rating"})
	require.NoError(t, err)
	assert.Len(t, ratingAnswers, 5)
	_, _, err = f.AddSurveyQuestion(SurveyQuestionSpec{LessonID: f.l[0], Type: "multiple-choice"})
	assert.ErrorIs(t, err, ErrInvalid)
	_, _, err = f.AddSurveyQuestion(SurveyQuestionSpec{LessonID: f.l[0], Type: "essay"})
	assert.ErrorIs(t, err, ErrInvalid)

	var qs page[map[string]any]
	f.get("/v2/analytics/surveyquestiondefinitions", &qs)
	require.Equal(t, 3, qs.TotalCount)
	assert.Equal(t, map[string]any{
		"id": mc, "courseId": f.c, "lessonId": f.l[0], "slideId": "slide-7", "questionType": "multiple-choice",
		"questionContent": "<p>Did it help?</p>",
		"answers":         []any{map[string]any{"id": mcAnswers[0], "content": "Yes"}, map[string]any{"id": mcAnswers[1], "content": "No"}},
	}, qs.Items[0])
	assert.Equal(t, []any{}, qs.Items[1]["answers"])
	assert.Equal(t, []string{mc, open, rating}, ids(qs.Items, func(m map[string]any) string { return m["id"].(string) }))

	a1, err := f.AddSurveyAnswer(SurveyAnswerSpec{UserID: f.u1, QuestionID: mc, Answer: "Yes"})
	require.NoError(t, err)
	f.clock.Advance(time.Hour)
	_, err = f.AddSurveyAnswer(SurveyAnswerSpec{UserID: f.u1, QuestionID: open, Answer: "More examples, please"})
	require.NoError(t, err)
	_, err = f.AddSurveyAnswer(SurveyAnswerSpec{UserID: f.u3, QuestionID: rating, Answer: ratingAnswers[3]})
	require.NoError(t, err)
	_, err = f.AddSurveyAnswer(SurveyAnswerSpec{UserID: f.u2, QuestionID: mc, Answer: "Maybe"})
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = f.AddSurveyAnswer(SurveyAnswerSpec{UserID: "usr_404", QuestionID: mc, Answer: "Yes"})
	assert.ErrorIs(t, err, ErrNotFound)

	r := f.do("GET", "/v2/analytics/surveyanswers", nil)
	var raw page[map[string]any]
	r.json(t, &raw)
	require.Equal(t, 3, raw.TotalCount)
	assert.Equal(t, map[string]any{
		"id": a1, "courseId": f.c, "courseExternalId": "C-EXT", "lessonId": f.l[0], "lessonExternalId": "L1-EXT",
		"slideId": "slide-7", "userId": f.u1, "userExternalId": "U1", "attemptId": "att_2", "questionId": mc,
		"questionContent": "<p>Did it help?</p>", "answerDefinitionId": mcAnswers[0], "answerContent": "Yes",
		"answeredDateTime": "2024-03-07T08:10:36.187Z",
	}, raw.Items[0])
	assert.Equal(t, "", raw.Items[1]["answerDefinitionId"])
	assert.Equal(t, "More examples, please", raw.Items[1]["answerContent"])
	assert.Equal(t, "4", raw.Items[2]["answerContent"])
	assert.Equal(t, "att_5", raw.Items[2]["attemptId"])

	count := func(q string) int {
		var p page[wireSurveyAnswer]
		f.get("/v2/analytics/surveyanswers?"+q, &p)
		return p.TotalCount
	}
	assert.Equal(t, 2, count("userId="+f.u1))
	assert.Equal(t, 1, count("userId="+f.u3))
	assert.Equal(t, 2, count("courseId="+f.c))
	assert.Equal(t, 1, count("courseExternalId=D-EXT"))
	assert.Equal(t, 2, count("startDateTime="+f.at(3*time.Hour+time.Minute)))
	assert.Equal(t, 400, f.do("GET", "/v2/analytics/surveyanswers?startDateTime=never", nil).status)
}

func TestDeleteUserRemovesAnalytics(t *testing.T) {
	f := newAnalyticsFixture(t)
	f.ok("DELETE", "/v2/users/"+f.u1, nil, nil)
	var p page[wireAttempt]
	f.get("/v2/analytics/attempts", &p)
	assert.Equal(t, []string{"att_4", "att_5"}, attemptIDs(p))
	var cs page[wireCourseStatistics]
	f.get("/v2/analytics/coursestatistics", &cs)
	assert.Equal(t, wireCourseStatistics{CourseID: f.c, TotalUsers: 1, OpenedCount: 1}, cs.Items[0])
}

func TestLastActiveDate(t *testing.T) {
	f := newAnalyticsFixture(t)
	var u v2User
	f.get("/v2/users/"+f.u1, &u)
	assert.Equal(t, f.t0.Add(10*time.Minute), u.LastActiveDate.Time)
	f.get("/v2/users/"+f.u3, &u)
	assert.Equal(t, f.t0.Add(2*time.Hour), u.LastActiveDate.Time)
}

func TestQueryDatetimeForms(t *testing.T) {
	clock := newFakeClock()
	clock.Set(time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC))
	h := newHarness(t, WithClock(clock.Now))
	u := h.mustUser(UserSpec{Username: "u"})
	_, ls := h.mustCourse(CourseSpec{Title: "C", Lessons: lessonSpecs("L")})
	require.NoError(t, h.CompleteLesson(u, ls[0], 80)) // 01:00
	clock.Advance(time.Hour)
	require.NoError(t, h.CompleteLesson(u, ls[0], 90)) // 02:00

	count := func(param, v string) int {
		t.Helper()
		r := h.do("GET", "/v2/analytics/attempts?"+param+"="+v, nil)
		require.Equal(t, 200, r.status, "%s=%s: %s", param, v, r.body)
		var p page[wireAttempt]
		r.json(t, &p)
		return p.TotalCount
	}
	for _, v := range []string{
		"2026-11-22T01:35:07Z",
		"2026-11-22T01:35:07.123Z",
		"2026-11-22T03:35:07%2B02:00", // another zone, same instant
	} {
		assert.Equal(t, 1, count("startDateTime", v), "startDateTime=%s", v)
	}
	for _, bad := range []string{"yesterday", "2026-11-22 01:35:07", "2026-11-22T01:35:07+0000", "2026-11-22"} {
		assert.Equal(t, 400, h.do("GET", "/v2/analytics/attempts?startDateTime="+url.QueryEscape(bad), nil).status, bad)
	}
}
