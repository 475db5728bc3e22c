package sctest

import (
	"fmt"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

// The analytics reads' parameters and fields are inferred from the EdApp
// reads they mirror (nothing public shows them): camelCase, page and
// pageSize, {totalCount, items}, filters courseId, lessonId and userId,
// and a time range where the EdApp read has one.

// analyticsStore holds the warehouse's rows, each shown once the
// analytics lag has passed since the fake recorded it.
type analyticsStore struct {
	rows           map[string][]*analyticsRow       // by report
	lessonProgress fakeserver.Table[lessonProgress] // by pair(user, lesson)
	questions      map[string]map[string]any
}

type analyticsRow struct {
	at, recorded time.Time
	fields       map[string]any
}

const (
	reportAttempts  = "lessons/attempts"
	reportEvents    = "lessons/progress/events"
	reportQuestions = "surveys/questionDefinitions"
	reportAnswers   = "surveys/answers"
)

// Reports whose rows nothing public shows; AddAnalyticsRow fills them.
const (
	ReportSlideStatistics     = "slides/statistics"
	ReportUserSlideStatistics = "users/slides/statistics" // filtered by the userId field
	ReportRapidRefreshAnswers = "rapidRefresh/answers"
)

type lessonProgress struct {
	LessonProgressSpec
	courseID string
	recorded time.Time
	attempts int
}

func (st *store) addRow(report string, at, now time.Time, fields map[string]any) {
	st.analytics.rows[report] = append(st.analytics.rows[report], &analyticsRow{at: at, recorded: now, fields: fields})
}

func (st *store) addEvent(u *user, l *lesson, name string, score *float64, at, now time.Time) {
	c := st.courses.Get(l.CourseID)
	st.addRow(reportEvents, at, now, map[string]any{"userId": u.ID, "userEmail": u.Email, "userFirstName": u.Firstname,
		"userLastName": u.Lastname, "courseId": c.ID, "courseTitle": c.Title, "courseExternalId": c.ExternalID,
		"lessonId": l.ID, "lessonTitle": l.Title, "lessonExternalId": l.ExternalID, "eventName": name,
		"eventDateTime": wtp(at), "lessonScore": score})
}

func (st *store) lessonProgressOf(userID string, l *lesson, now time.Time) *lessonProgress {
	lp := st.analytics.lessonProgress.Get(pair(userID, l.ID))
	if lp == nil {
		lp = &lessonProgress{LessonProgressSpec{UserID: userID, LessonID: l.ID}, l.CourseID, now, 0}
		st.analytics.lessonProgress.Add(pair(userID, l.ID), lp)
	}
	return lp
}

// SurveyQuestionSpec describes a survey question on a lesson's slide.
type SurveyQuestionSpec struct {
	CourseID, LessonID, SlideID, Type, Content string
	Answers                                    []string // the answer options' texts
}

// AddSurveyQuestion adds a survey question and returns its id and its
// answer options' ids. Definitions are not activity: no lag.
func (s Seeding) AddSurveyQuestion(spec SurveyQuestionSpec) (id string, answerIDs []string, err error) {
	err = s.write(func(st *store, _ time.Time) error {
		if st.courses.Get(spec.CourseID) == nil || st.lessons.Get(spec.LessonID) == nil {
			return fmt.Errorf("%w: course %q or lesson %q", ErrNotFound, spec.CourseID, spec.LessonID)
		}
		id = st.uuid("question")
		answers := []map[string]any{}
		for _, text := range spec.Answers {
			answerIDs = append(answerIDs, st.uuid("answer"))
			answers = append(answers, map[string]any{"id": answerIDs[len(answerIDs)-1], "content": text})
		}
		q := map[string]any{"id": id, "courseId": spec.CourseID, "lessonId": spec.LessonID, "slideId": spec.SlideID,
			"questionType": fakeserver.OrDefault(spec.Type, "rating"), "questionContent": spec.Content, "answers": answers}
		st.analytics.questions[id] = q
		st.addRow(reportQuestions, time.Time{}, time.Time{}, q)
		return nil
	})
	return id, answerIDs, err
}

// SurveyAnswerSpec is a user's answer to a survey question.
type SurveyAnswerSpec struct {
	QuestionID, UserID, AnswerID, Content string
	At                                    time.Time // now when zero
}

// AddSurveyAnswer records a survey answer and returns its id.
func (s Seeding) AddSurveyAnswer(spec SurveyAnswerSpec) (string, error) {
	return update(s.server, func(st *store, now time.Time) (string, error) {
		u, q := st.users.Get(spec.UserID), st.analytics.questions[spec.QuestionID]
		if u == nil || q == nil {
			return "", fmt.Errorf("%w: user %q or question %q", ErrNotFound, spec.UserID, spec.QuestionID)
		}
		id, at := st.uuid("surveyanswer"), fakeserver.OrTime(spec.At, now)
		st.addRow(reportAnswers, at, now, map[string]any{"id": id, "courseId": q["courseId"], "lessonId": q["lessonId"],
			"slideId": q["slideId"], "userId": u.ID, "userExternalId": u.externalID, "questionId": q["id"],
			"questionContent": q["questionContent"], "answerDefinitionId": spec.AnswerID, "answerContent": spec.Content,
			"answeredDateTime": wtp(at)})
		return id, nil
	})
}

// AddAnalyticsRow adds a row, as given, to a Report whose shape nothing
// public shows; its userId, courseId and lessonId fields are filtered on.
func (s Seeding) AddAnalyticsRow(report string, row map[string]any) error {
	if report != ReportSlideStatistics && report != ReportUserSlideStatistics && report != ReportRapidRefreshAnswers {
		return fmt.Errorf("%w: report %q", ErrInvalid, report)
	}
	return s.write(func(st *store, now time.Time) error {
		st.addRow(report, time.Time{}, now, row)
		return nil
	})
}

type analyticsFilter struct {
	ids      map[string]string
	from, to time.Time
}

func readAnalyticsFilter(c *call, fromName, toName string) analyticsFilter {
	f := analyticsFilter{ids: map[string]string{}, from: c.timeParam(fromName), to: c.timeParam(toName)}
	for _, k := range []string{"userId", "courseId", "lessonId"} {
		if v := fakeserver.OrDefault(c.PathValue(k), c.URL.Query().Get(k)); v != "" {
			f.ids[k] = v
		}
	}
	return f
}

func (f analyticsFilter) match(fields map[string]any, at time.Time) bool {
	for k, v := range f.ids {
		if fields[k] != v {
			return false
		}
	}
	return (f.from.IsZero() || !at.Before(f.from)) && (f.to.IsZero() || !at.After(f.to))
}

func (c *call) visible(recorded time.Time) bool { return !c.now.Before(recorded.Add(c.cfg.lag)) }

func analyticsRows(report, from, to string) handler {
	return func(c *call) any {
		f := readAnalyticsFilter(c, from, to)
		var out []any
		for _, row := range c.st.analytics.rows[report] {
			if c.visible(row.recorded) && f.match(row.fields, row.at) {
				out = append(out, row.fields)
			}
		}
		return page(c, out)
	}
}

func userLessonProgress(c *call) any {
	f := readAnalyticsFilter(c, "", "")
	var out []map[string]any
	for _, lp := range c.st.analytics.lessonProgress.All() {
		var score *float64
		if lp.Scored {
			score = &lp.Score
		}
		row := map[string]any{"userId": lp.UserID, "courseId": lp.courseID, "lessonId": lp.LessonID,
			"lessonTitle": c.st.lessons.Get(lp.LessonID).Title, "opened": !lp.OpenedAt.IsZero(), "openedDateTime": wtp(lp.OpenedAt),
			"completed": !lp.CompletedAt.IsZero(), "completedDateTime": wtp(lp.CompletedAt), "score": score, "attempts": lp.attempts}
		if c.visible(lp.recorded) && f.match(row, time.Time{}) {
			out = append(out, row)
		}
	}
	return page(c, out)
}

// courseStatistics counts per course the users with progress in it, and
// of them those whose published lesson progress opened any lesson, and
// completed every published one.
func courseStatistics(c *call) any {
	f := readAnalyticsFilter(c, "", "")
	stats := map[string]*wireCourseStatistics{}
	var out []*wireCourseStatistics
	for _, co := range c.st.courses.All() {
		stats[co.ID] = &wireCourseStatistics{CourseID: co.ID}
		if f.match(map[string]any{"courseId": co.ID}, time.Time{}) {
			out = append(out, stats[co.ID])
		}
	}
	for _, p := range c.st.progress.All() {
		cs := stats[p.CourseID]
		lessons := c.st.publishedLessons(c.st.courses.Get(p.CourseID))
		opened, done := false, 0
		for _, l := range lessons {
			if lp := c.st.analytics.lessonProgress.Get(pair(p.UserID, l.ID)); lp != nil && c.visible(lp.recorded) {
				opened = opened || !lp.OpenedAt.IsZero() || !lp.CompletedAt.IsZero()
				done += fakeserver.Btoi(!lp.CompletedAt.IsZero())
			}
		}
		cs.TotalUsers++
		cs.OpenedCount += fakeserver.Btoi(opened)
		cs.CompletedCount += fakeserver.Btoi(len(lessons) > 0 && done == len(lessons))
	}
	return page(c, out)
}

// lessonStatistics counts per lesson its course's users, and those whose
// published progress opened and completed it.
func lessonStatistics(c *call) any {
	f := readAnalyticsFilter(c, "", "")
	users := map[string]int{}
	for _, p := range c.st.progress.All() {
		users[p.CourseID]++
	}
	opened, completed := map[string]int{}, map[string]int{}
	for _, lp := range c.st.analytics.lessonProgress.All() {
		if c.visible(lp.recorded) {
			opened[lp.LessonID] += fakeserver.Btoi(!lp.OpenedAt.IsZero() || !lp.CompletedAt.IsZero())
			completed[lp.LessonID] += fakeserver.Btoi(!lp.CompletedAt.IsZero())
		}
	}
	var out []wireLessonStatistics
	for _, co := range c.st.courses.All() {
		for _, lid := range co.lessonIDs {
			if f.match(map[string]any{"courseId": co.ID, "lessonId": lid}, time.Time{}) {
				out = append(out, wireLessonStatistics{LessonID: lid, CourseID: co.ID, LessonTitle: c.st.lessons.Get(lid).Title,
					TotalUsers: users[co.ID], OpenedCount: opened[lid], CompletedCount: completed[lid]})
			}
		}
	}
	return page(c, out)
}
