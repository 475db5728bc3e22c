package sctest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

func TestAnalyticsRowsArriveAfterTheLag(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s, _, users := progressFixture(t, sctest.WithClock(clk.Now), sctest.WithAnalyticsLag(time.Hour))
	const attempts = "/training/analytics/v1/lessons/attempts"
	if a := get(t, s, attempts); a.body["totalCount"] != float64(0) {
		t.Fatalf("attempts before the lag: %s", a.raw)
	}
	if a := get(t, s, "/training/analytics/v1/courses/statistics"); a.items()[0]["completedCount"] != float64(0) {
		t.Errorf("statistics before the lag: %s", a.raw)
	}
	clk.Add(time.Hour)
	a := get(t, s, attempts+"?userId="+users[0])
	if a.body["totalCount"] != float64(2) {
		t.Fatalf("attempts after the lag: %s", a.raw)
	}
	at := a.items()[0]
	if at["score"] != float64(80) || at["success"] != true || at["earnedStars"] != float64(2) || at["startedDateTime"] != "2026-09-30T23:50:00.000Z" {
		t.Errorf("attempt = %v", at)
	}
	stats := get(t, s, "/training/analytics/v1/courses/statistics").items()[0]
	if stats["totalUsers"] != float64(3) || stats["openedCount"] != float64(3) || stats["completedCount"] != float64(2) {
		t.Errorf("course statistics = %v", stats)
	}
}

func TestAnalyticsReadsFilter(t *testing.T) {
	t.Parallel()
	s, course, users := progressFixture(t)
	for path, want := range map[string]float64{
		"/training/analytics/v1/lessons/attempts?startDateTime=2026-10-02T00:00:00Z":           2,
		"/training/analytics/v1/lessons/attempts?endDateTime=2026-10-02T00:00:00Z":             2,
		"/training/analytics/v1/lessons/progress/events?courseId=" + course:                    9,
		"/training/analytics/v1/users/" + users[1] + "/lessons/progress/events":                1,
		"/training/analytics/v1/users/" + users[0] + "/lessons/progress":                       2,
		"/training/analytics/v1/lessons/statistics":                                            2,
		"/training/analytics/v1/lessons/progress/events?minEventDateTime=2026-10-02T23:00:00Z": 4,
	} {
		if a := get(t, s, path); a.status != http.StatusOK || a.body["totalCount"] != want {
			t.Errorf("%s: %d totalCount=%v, want %v", path, a.status, a.body["totalCount"], want)
		}
	}
}

func TestAnalyticsSurveysAndGenericReports(t *testing.T) {
	t.Parallel()
	s, course, users := progressFixture(t)
	lessons := get(t, s, "/training/courses/v1/"+course+"/lessons").body["lessons"].([]any)
	lesson := lessons[0].(map[string]any)["id"].(string)
	q, answers, err := s.AddSurveyQuestion(sctest.SurveyQuestionSpec{CourseID: course, LessonID: lesson, Content: "How was it?", Answers: []string{"Good", "Bad"}})
	noErr(t, err)
	must[string](t)(s.AddSurveyAnswer(sctest.SurveyAnswerSpec{QuestionID: q, UserID: users[0], AnswerID: answers[0], Content: "Good"}))
	noErr(t, s.AddAnalyticsRow(sctest.ReportUserSlideStatistics, map[string]any{"userId": users[0], "slideId": "s1", "views": 3}))
	if err := s.AddAnalyticsRow("nope", nil); err == nil {
		t.Error("AddAnalyticsRow with an unknown report: no error")
	}
	defs := get(t, s, "/training/analytics/v1/surveys/questionDefinitions").items()
	if len(defs) != 1 || len(defs[0]["answers"].([]any)) != 2 {
		t.Errorf("question definitions = %v", defs)
	}
	if got := get(t, s, "/training/analytics/v1/surveys/answers?userId="+users[0]).items(); len(got) != 1 || got[0]["answerContent"] != "Good" {
		t.Errorf("survey answers = %v", got)
	}
	if got := get(t, s, "/training/analytics/v1/users/"+users[1]+"/slides/statistics").items(); len(got) != 0 {
		t.Errorf("another user's slide statistics = %v", got)
	}
	if got := get(t, s, "/training/analytics/v1/users/"+users[0]+"/slides/statistics").items(); len(got) != 1 || got[0]["views"] != float64(3) {
		t.Errorf("slide statistics = %v", got)
	}
	if a := get(t, s, "/training/analytics/v1/rapidRefresh/answers"); a.status != http.StatusOK || a.body["totalCount"] != float64(0) {
		t.Errorf("rapid refresh answers: %s", a.raw)
	}
}
