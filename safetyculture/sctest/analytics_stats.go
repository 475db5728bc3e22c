package sctest

import (
	"net/http"
	"time"
)

type wireCourseStatistics struct {
	CourseID       string `json:"courseId"`
	TotalUsers     int    `json:"totalUsers"`
	CompletedCount int    `json:"completedCount"`
	OpenedCount    int    `json:"openedCount"`
}

type wireLessonStatistics struct {
	LessonID       string `json:"lessonId"`
	CourseID       string `json:"courseId"`
	LessonTitle    string `json:"lessonTitle"`
	TotalUsers     int    `json:"totalUsers"`
	OpenedCount    int    `json:"openedCount"`
	CompletedCount int    `json:"completedCount"`
}

// lessonCounts counts, per lesson, the users whose published lesson
// progress opened and completed it.
type lessonCounts struct{ opened, completed map[string]int }

func (s analyticsAPI) countLessons(st *store, now time.Time) lessonCounts {
	lc := lessonCounts{opened: map[string]int{}, completed: map[string]int{}}
	for k, lp := range st.analytics.lessonProgress {
		if !s.visible(lp.recorded, now) {
			continue
		}
		if !lp.opened.IsZero() || !lp.completed.IsZero() {
			lc.opened[k.lessonID]++
		}
		if !lp.completed.IsZero() {
			lc.completed[k.lessonID]++
		}
	}
	return lc
}

// usersPerCourse counts the users with a course-progress row per course.
func (st *store) usersPerCourse() map[string]int {
	n := map[string]int{}
	for _, k := range st.progressKeys {
		n[k.courseID]++
	}
	return n
}

// courseStatistics answers .../courses/statistics: per course, the users
// with progress in it, and of them those who opened any lesson and those
// who completed it, from the published lesson progress.
func (s analyticsAPI) courseStatistics(w http.ResponseWriter, r *http.Request) {
	s.analyticsRead(w, r, "", "", func(st *store, f analyticsFilter, now time.Time) []any {
		totals := st.usersPerCourse()
		opened, completed := map[string]int{}, map[string]int{}
		for _, k := range st.progressKeys {
			state := s.courseStateOf(st, k, now)
			if state.opened {
				opened[k.courseID]++
			}
			if state.completed {
				completed[k.courseID]++
			}
		}
		var out []any
		for _, c := range st.courses.All() {
			if f.match("", c.id, "", time.Time{}) {
				out = append(out, wireCourseStatistics{CourseID: c.id, TotalUsers: totals[c.id], OpenedCount: opened[c.id], CompletedCount: completed[c.id]})
			}
		}
		return out
	})
}

type courseState struct{ opened, completed bool }

// courseStateOf reads a user's course state from their published lesson
// progress: opened when any lesson is, completed when every published
// lesson is completed.
func (s analyticsAPI) courseStateOf(st *store, k ucKey, now time.Time) courseState {
	lessons := st.publishedLessons(st.courses.Get(k.courseID))
	var cs courseState
	done := 0
	for _, l := range lessons {
		lp := st.analytics.lessonProgress[ulKey{k.userID, l.id}]
		if lp == nil || !s.visible(lp.recorded, now) {
			continue
		}
		cs.opened = cs.opened || !lp.opened.IsZero() || !lp.completed.IsZero()
		if !lp.completed.IsZero() {
			done++
		}
	}
	cs.completed = len(lessons) > 0 && done == len(lessons)
	return cs
}

// lessonStatistics answers .../lessons/statistics.
func (s analyticsAPI) lessonStatistics(w http.ResponseWriter, r *http.Request) {
	s.analyticsRead(w, r, "", "", func(st *store, f analyticsFilter, now time.Time) []any {
		totals, lc := st.usersPerCourse(), s.countLessons(st, now)
		var out []any
		for _, c := range st.courses.All() {
			for _, lid := range c.lessonIDs {
				if !f.match("", c.id, lid, time.Time{}) {
					continue
				}
				out = append(out, wireLessonStatistics{LessonID: lid, CourseID: c.id, LessonTitle: st.lessons.Get(lid).title,
					TotalUsers: totals[c.id], OpenedCount: lc.opened[lid], CompletedCount: lc.completed[lid]})
			}
		}
		return out
	})
}

type wireSurveyQuestion struct {
	ID              string          `json:"id"`
	CourseID        string          `json:"courseId"`
	LessonID        string          `json:"lessonId"`
	SlideID         string          `json:"slideId"`
	QuestionType    string          `json:"questionType"`
	QuestionContent string          `json:"questionContent"`
	Answers         []wireAnswerDef `json:"answers"`
}

type wireAnswerDef struct {
	ID      string `json:"id"`
	Content string `json:"content"`
}

// surveyQuestions answers .../surveys/questionDefinitions (no lag: they
// are definitions, not activity).
func (s analyticsAPI) surveyQuestions(w http.ResponseWriter, r *http.Request) {
	s.analyticsRead(w, r, "", "", func(st *store, f analyticsFilter, _ time.Time) []any {
		var out []any
		for _, q := range st.analytics.questions {
			if !f.match("", q.courseID, q.lessonID, time.Time{}) {
				continue
			}
			wq := wireSurveyQuestion{ID: q.id, CourseID: q.courseID, LessonID: q.lessonID, SlideID: q.slideID,
				QuestionType: q.qtype, QuestionContent: q.content, Answers: []wireAnswerDef{}}
			for _, a := range q.answers {
				wq.Answers = append(wq.Answers, wireAnswerDef{ID: a.id, Content: a.content})
			}
			out = append(out, wq)
		}
		return out
	})
}

type wireSurveyAnswer struct {
	ID                 string  `json:"id"`
	CourseID           string  `json:"courseId"`
	LessonID           string  `json:"lessonId"`
	SlideID            string  `json:"slideId"`
	UserID             string  `json:"userId"`
	UserExternalID     string  `json:"userExternalId"`
	QuestionID         string  `json:"questionId"`
	QuestionContent    string  `json:"questionContent"`
	AnswerDefinitionID string  `json:"answerDefinitionId"`
	AnswerContent      string  `json:"answerContent"`
	AnsweredDateTime   *string `json:"answeredDateTime"`
}

// surveyAnswers answers .../surveys/answers; startDateTime and
// endDateTime bound the answer's time.
func (s analyticsAPI) surveyAnswers(w http.ResponseWriter, r *http.Request) {
	s.analyticsRead(w, r, "startDateTime", "endDateTime", func(st *store, f analyticsFilter, now time.Time) []any {
		var out []any
		for _, a := range st.analytics.answers {
			q := st.question(a.questionID)
			if !s.visible(a.recorded, now) || !f.match(a.userID, q.courseID, q.lessonID, a.at) {
				continue
			}
			out = append(out, wireSurveyAnswer{ID: a.id, CourseID: q.courseID, LessonID: q.lessonID, SlideID: q.slideID,
				UserID: a.userID, UserExternalID: st.users.Get(a.userID).externalID, QuestionID: q.id,
				QuestionContent: q.content, AnswerDefinitionID: a.answerDefID, AnswerContent: a.content, AnsweredDateTime: wtp(a.at)})
		}
		return out
	})
}

// genericReport answers a read whose rows AddAnalyticsRow gave, filtered
// on their userId, courseId and lessonId fields.
func (s analyticsAPI) genericReport(report string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.analyticsRead(w, r, "", "", func(st *store, f analyticsFilter, now time.Time) []any {
			var out []any
			for _, row := range st.analytics.rows[report] {
				str := func(k string) string { v, _ := row.fields[k].(string); return v }
				if s.visible(row.recorded, now) && f.match(str("userId"), str("courseId"), str("lessonId"), time.Time{}) {
					out = append(out, row.fields)
				}
			}
			return out
		})
	}
}
