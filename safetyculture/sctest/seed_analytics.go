package sctest

import (
	"fmt"
	"time"
)

// analyticsStore holds the warehouse's rows. Each carries when the fake
// recorded it; a read shows it only once the analytics lag has passed.
type analyticsStore struct {
	attempts       []*attempt
	events         []*progressEvent
	lessonProgress map[ulKey]*lessonProgress
	lpKeys         []ulKey
	questions      []*surveyQuestion
	answers        []*surveyAnswer
	rows           map[string][]genericRow // by report, for the reads whose shape nothing shows
}

type attempt struct {
	id, userID, lessonID, courseID string
	started, completed, recorded   time.Time
	score                          float64
	success                        bool
}

type progressEvent struct {
	userID, lessonID, courseID, name string
	at, recorded                     time.Time
	score                            float64
	hasScore                         bool
}

type lessonProgress struct {
	courseID                    string
	opened, completed, recorded time.Time
	score                       float64
	hasScore                    bool
	attempts                    int
}

type surveyQuestion struct {
	id, courseID, lessonID, slideID, qtype, content string
	answers                                         []answerDef
}

type answerDef struct{ id, content string }

type surveyAnswer struct {
	id, questionID, userID, answerDefID, content string
	at, recorded                                 time.Time
}

type genericRow struct {
	fields   map[string]any
	recorded time.Time
}

func (a *analyticsStore) addAttempt(at *attempt) { a.attempts = append(a.attempts, at) }

func (a *analyticsStore) addEvent(e progressEvent, now time.Time) {
	e.recorded = now
	a.events = append(a.events, &e)
}

func (a *analyticsStore) lessonProgressOf(k ulKey, courseID string, now time.Time) *lessonProgress {
	lp := a.lessonProgress[k]
	if lp == nil {
		lp = &lessonProgress{courseID: courseID, recorded: now}
		a.lessonProgress[k] = lp
		a.lpKeys = append(a.lpKeys, k)
	}
	return lp
}

// SurveyQuestionSpec describes a survey question on a lesson's slide.
type SurveyQuestionSpec struct {
	CourseID, LessonID, SlideID, Type, Content string
	Answers                                    []string // the answer options' texts
}

// AddSurveyQuestion adds a survey question and returns its id and its
// answer options' ids.
func (s Seeding) AddSurveyQuestion(spec SurveyQuestionSpec) (string, []string, error) {
	var q *surveyQuestion
	err := s.write(func(st *store, _ time.Time) error {
		if st.courses.Get(spec.CourseID) == nil || st.lessons.Get(spec.LessonID) == nil {
			return fmt.Errorf("%w: course %q or lesson %q", ErrNotFound, spec.CourseID, spec.LessonID)
		}
		q = &surveyQuestion{id: uuidOf(st.hexID("question", 32)), courseID: spec.CourseID, lessonID: spec.LessonID,
			slideID: spec.SlideID, qtype: orDefault(spec.Type, "rating"), content: spec.Content}
		for _, text := range spec.Answers {
			q.answers = append(q.answers, answerDef{id: uuidOf(st.hexID("answer", 32)), content: text})
		}
		st.analytics.questions = append(st.analytics.questions, q)
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	ids := make([]string, 0, len(q.answers))
	for _, a := range q.answers {
		ids = append(ids, a.id)
	}
	return q.id, ids, nil
}

// SurveyAnswerSpec is a user's answer to a survey question.
type SurveyAnswerSpec struct {
	QuestionID, UserID, AnswerID, Content string
	At                                    time.Time // now when zero
}

// AddSurveyAnswer records a survey answer and returns its id.
func (s Seeding) AddSurveyAnswer(spec SurveyAnswerSpec) (string, error) {
	var id string
	err := s.write(func(st *store, now time.Time) error {
		if st.users.Get(spec.UserID) == nil || st.question(spec.QuestionID) == nil {
			return fmt.Errorf("%w: user %q or question %q", ErrNotFound, spec.UserID, spec.QuestionID)
		}
		id = uuidOf(st.hexID("surveyanswer", 32))
		st.analytics.answers = append(st.analytics.answers, &surveyAnswer{id: id, questionID: spec.QuestionID,
			userID: spec.UserID, answerDefID: spec.AnswerID, content: spec.Content, at: orNow(spec.At, now), recorded: now})
		return nil
	})
	return id, err
}

func (st *store) question(id string) *surveyQuestion {
	for _, q := range st.analytics.questions {
		if q.id == id {
			return q
		}
	}
	return nil
}

// Reports whose rows nothing public shows; AddAnalyticsRow fills them.
const (
	ReportSlideStatistics     = "slides/statistics"
	ReportUserSlideStatistics = "users/slides/statistics" // filtered by the userId field
	ReportRapidRefreshAnswers = "rapidRefresh/answers"
)

// AddAnalyticsRow adds a row, as given, to one of the reports whose shape
// nothing public shows (the Report constants). A row's userId, courseId
// and lessonId fields, when present, are what the report's filters match.
func (s Seeding) AddAnalyticsRow(report string, row map[string]any) error {
	switch report {
	case ReportSlideStatistics, ReportUserSlideStatistics, ReportRapidRefreshAnswers:
	default:
		return fmt.Errorf("%w: report %q", ErrInvalid, report)
	}
	return s.write(func(st *store, now time.Time) error {
		if st.analytics.rows == nil {
			st.analytics.rows = map[string][]genericRow{}
		}
		st.analytics.rows[report] = append(st.analytics.rows[report], genericRow{fields: row, recorded: now})
		return nil
	})
}
