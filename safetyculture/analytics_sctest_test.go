package safetyculture

import (
	"context"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// analyticsFake holds two learners of a two-lesson course: ana completed
// both lessons, ben opened the first one; ana answered a survey.
type analyticsFake struct {
	fake           *sctest.Server
	ana, ben, cid  string
	lids           []string
	question, refr string
}

func newAnalyticsFake(t *testing.T) analyticsFake {
	t.Helper()
	f := analyticsFake{fake: sctest.New(t)}
	var err error
	f.ana, _ = f.fake.AddUser(sctest.UserSpec{Email: "ana@example.com", FirstName: "Ana"})
	f.ben, _ = f.fake.AddUser(sctest.UserSpec{Email: "ben@example.com", FirstName: "Ben"})
	f.cid, f.lids, err = f.fake.AddCourse(sctest.CourseSpec{Title: "Induction", Lessons: []sctest.LessonSpec{{Title: "Welcome"}, {Title: "Safety"}}})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Hour)
	for _, lid := range f.lids {
		must(t, f.fake.CompleteLesson(f.ana, lid, 80, at))
	}
	must(t, f.fake.OpenLesson(f.ben, f.lids[0], at))
	var answers []string
	f.question, answers, err = f.fake.AddSurveyQuestion(sctest.SurveyQuestionSpec{CourseID: f.cid, LessonID: f.lids[0], SlideID: "s1", Type: "multiple-choice", Content: "How was it?", Answers: []string{"Good", "Bad"}})
	must(t, err)
	_, err = f.fake.AddSurveyAnswer(sctest.SurveyAnswerSpec{QuestionID: f.question, UserID: f.ana, AnswerID: answers[0], Content: "Good"})
	must(t, err)
	f.refr, err = f.fake.AddRapidRefresh("Weekly", f.cid, true)
	must(t, err)
	must(t, f.fake.AddAnalyticsRow(sctest.ReportSlideStatistics, map[string]any{"slideId": "s1", "lessonId": f.lids[0], "courseId": f.cid, "views": 3}))
	must(t, f.fake.AddAnalyticsRow(sctest.ReportUserSlideStatistics, map[string]any{"slideId": "s1", "lessonId": f.lids[0], "courseId": f.cid, "userId": f.ana}))
	must(t, f.fake.AddAnalyticsRow(sctest.ReportRapidRefreshAnswers, map[string]any{"id": "rra1", "userId": f.ana, "rapidRefreshId": f.refr, "correct": true}))
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// count drains an analytics iterator into its length and its first row.
func count[T any](t *testing.T, seq func(func(T, error) bool)) (int, T) {
	t.Helper()
	rows := mustCollect(t, seq)
	var first T
	if len(rows) > 0 {
		first = rows[0]
	}
	return len(rows), first
}

// TestAnalyticsAgainstSctest reads all eleven analytics reads from sctest,
// each filtered as its EdApp analogue is, page by page.
func TestAnalyticsAgainstSctest(t *testing.T) {
	t.Parallel()
	f := newAnalyticsFake(t)
	a := clientOf(t, f.fake).Analytics
	ctx := testCtx(t)
	byCourse := &AnalyticsOptions{CourseID: f.cid, ListOptions: edapp.ListOptions{PageSize: 1}}
	byAna := &AnalyticsOptions{UserID: f.ana, ListOptions: edapp.ListOptions{PageSize: 1}}

	checks := []struct {
		name     string
		run      func(context.Context) (n int, ok bool)
		wantRows int
	}{
		{"CourseStatistics", func(ctx context.Context) (int, bool) {
			n, r := count(t, a.AllCourseStatistics(ctx, byCourse))
			return n, r.CourseID == f.cid && r.CompletedCount == 1 && r.OpenedCount == 2
		}, 1},
		{"LessonStatistics", func(ctx context.Context) (int, bool) {
			n, r := count(t, a.AllLessonStatistics(ctx, byCourse))
			return n, r.CourseID == f.cid && r.LessonTitle != ""
		}, 2},
		{"LessonAttempts", func(ctx context.Context) (int, bool) {
			n, r := count(t, a.AllLessonAttempts(ctx, byAna))
			return n, r.UserID == f.ana && r.CourseID == f.cid && r.ID != ""
		}, 2},
		{"LessonProgressEvents", func(ctx context.Context) (int, bool) {
			n, r := count(t, a.AllLessonProgressEvents(ctx, &AnalyticsOptions{UserID: f.ben}))
			return n, r.UserID == f.ben && r.UserEmail == "ben@example.com"
		}, 1},
		{"UserLessonProgress", func(ctx context.Context) (int, bool) {
			n, r := count(t, a.AllUserLessonProgress(ctx, f.ana, byCourse))
			return n, r.UserID == f.ana && r.Completed
		}, 2},
		{"UserLessonProgressEvents", func(ctx context.Context) (int, bool) {
			n, r := count(t, a.AllUserLessonProgressEvents(ctx, f.ben, nil))
			return n, r.LessonID == f.lids[0]
		}, 1},
		{"SlideStatistics", func(ctx context.Context) (int, bool) {
			n, r := count(t, a.AllSlideStatistics(ctx, byCourse))
			return n, r.SlideID == "s1" && r.Extra != nil
		}, 1},
		{"UserSlideStatistics", func(ctx context.Context) (int, bool) {
			n, r := count(t, a.AllUserSlideStatistics(ctx, f.ana, nil))
			return n, r.UserID == f.ana
		}, 1},
		{"SurveyQuestionDefinitions", func(ctx context.Context) (int, bool) {
			n, r := count(t, a.AllSurveyQuestionDefinitions(ctx, byCourse))
			return n, r.ID == f.question && len(r.Answers) == 2
		}, 1},
		{"SurveyAnswers", func(ctx context.Context) (int, bool) {
			n, r := count(t, a.AllSurveyAnswers(ctx, byAna))
			return n, r.QuestionID == f.question && r.AnswerContent == "Good"
		}, 1},
		{"RapidRefreshAnswers", func(ctx context.Context) (int, bool) {
			n, r := count(t, a.AllRapidRefreshAnswers(ctx, byAna))
			return n, r.RapidRefreshID == f.refr
		}, 1},
	}
	for _, c := range checks {
		if n, ok := c.run(ctx); n != c.wantRows || !ok {
			t.Errorf("%s: %d rows (want %d), first row as expected: %v", c.name, n, c.wantRows, ok)
		}
	}
}

// TestAllReportsTheTotal: a walk's WithResponseInto holds the list's
// total count, as an EdApp walk's does, so that a progress bar can show it.
func TestAllReportsTheTotal(t *testing.T) {
	t.Parallel()
	f := newAnalyticsFake(t)
	c := clientOf(t, f.fake)
	var resp edapp.Response
	n := 0
	for _, err := range c.Analytics.AllLessonAttempts(context.Background(), &AnalyticsOptions{ListOptions: edapp.ListOptions{PageSize: 1}}, edapp.WithResponseInto(&resp)) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if total, ok := resp.Total(); !ok || total != 2 {
			t.Errorf("item %d: Total() = %d, %v; want 2", n, total, ok)
		}
	}
	if n != 2 {
		t.Errorf("%d attempts, want 2", n)
	}
}
