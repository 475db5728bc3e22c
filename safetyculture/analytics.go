package safetyculture

import (
	"context"
	"iter"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/ids"
)

// AnalyticsService holds the eleven Training analytics reads.
//
// The answers come from a warehouse refreshed every 30 minutes to 2
// hours, so they lag that much behind what happened; under heavy load a
// read can queue and time out (a 5xx, retried). Their parameters and
// fields are not published: the shapes here are inferred from the EdApp
// analytics each read mirrors, the filters are those EdApp's take, paging
// is page/pageSize with {"totalCount", "items"} (a bare array is read
// too), and every field the SDK does not know is kept in Extra.
type AnalyticsService service

// AnalyticsOptions filter and page an analytics read. Each read takes the
// filters its EdApp analogue takes; unset filters are not sent. Times are
// sent in UTC, RFC 3339.
type AnalyticsOptions struct {
	edapp.ListOptions
	CourseID         string    `url:"courseId,omitempty"`
	CourseExternalID string    `url:"courseExternalId,omitempty"`
	LessonID         string    `url:"lessonId,omitempty"`
	LessonExternalID string    `url:"lessonExternalId,omitempty"`
	UserID           string    `url:"userId,omitempty"`
	UserExternalID   string    `url:"userExternalId,omitempty"`
	StartDateTime    time.Time `url:"startDateTime,omitempty"`    // attempts, statistics, answers, user progress
	EndDateTime      time.Time `url:"endDateTime,omitempty"`      // as StartDateTime
	MinEventDateTime time.Time `url:"minEventDateTime,omitempty"` // progress events
	MaxEventDateTime time.Time `url:"maxEventDateTime,omitempty"` // progress events
}

// utc returns a copy of o with its times in UTC; nil stays nil.
func (o *AnalyticsOptions) utc() *AnalyticsOptions {
	if o == nil {
		return nil
	}
	c := *o
	for _, t := range []*time.Time{&c.StartDateTime, &c.EndDateTime, &c.MinEventDateTime, &c.MaxEventDateTime} {
		if !t.IsZero() {
			*t = t.UTC()
		}
	}
	return &c
}

// LessonAttempt is one attempt at a lesson.
type LessonAttempt struct {
	ID                string          `json:"id"`
	UserID            string          `json:"userId"`
	UserExternalID    string          `json:"userExternalId"`
	CourseID          string          `json:"courseId"`
	CourseExternalID  string          `json:"courseExternalId"`
	LessonID          string          `json:"lessonId"`
	LessonExternalID  string          `json:"lessonExternalId"`
	StartedDateTime   edapp.Time      `json:"startedDateTime"`
	CompletedDateTime edapp.Time      `json:"completedDateTime"`
	Score             float64         `json:"score"`
	Success           bool            `json:"success"`
	EarnedStars       int             `json:"earnedStars"`
	Extra             edapp.RawFields `json:"-"`
}

// CourseStatistics are a course's counts of learners.
type CourseStatistics struct {
	CourseID       string          `json:"courseId"`
	TotalUsers     int             `json:"totalUsers"`
	CompletedCount int             `json:"completedCount"`
	OpenedCount    int             `json:"openedCount"`
	Extra          edapp.RawFields `json:"-"`
}

// LessonStatistics are a lesson's counts of learners.
type LessonStatistics struct {
	LessonID       string          `json:"lessonId"`
	CourseID       string          `json:"courseId"`
	LessonTitle    string          `json:"lessonTitle"`
	TotalUsers     int             `json:"totalUsers"`
	OpenedCount    int             `json:"openedCount"`
	CompletedCount int             `json:"completedCount"`
	Extra          edapp.RawFields `json:"-"`
}

// LessonProgressEvent is one event of a learner's progress in a lesson
// (opened, completed, ...).
type LessonProgressEvent struct {
	UserID           string          `json:"userId"`
	UserEmail        string          `json:"userEmail"`
	UserFirstName    string          `json:"userFirstName"`
	UserLastName     string          `json:"userLastName"`
	CourseID         string          `json:"courseId"`
	CourseTitle      string          `json:"courseTitle"`
	CourseExternalID string          `json:"courseExternalId"`
	LessonID         string          `json:"lessonId"`
	LessonTitle      string          `json:"lessonTitle"`
	LessonExternalID string          `json:"lessonExternalId"`
	EventName        string          `json:"eventName"`
	EventDateTime    edapp.Time      `json:"eventDateTime"`
	LessonScore      *float64        `json:"lessonScore"` // nil: not scored
	Extra            edapp.RawFields `json:"-"`
}

// UserLessonProgress is one learner's progress in one lesson.
type UserLessonProgress struct {
	UserID            string          `json:"userId"`
	CourseID          string          `json:"courseId"`
	LessonID          string          `json:"lessonId"`
	LessonTitle       string          `json:"lessonTitle"`
	Opened            bool            `json:"opened"`
	OpenedDateTime    edapp.Time      `json:"openedDateTime"`
	Completed         bool            `json:"completed"`
	CompletedDateTime edapp.Time      `json:"completedDateTime"`
	Score             float64         `json:"score"`
	Attempts          int             `json:"attempts"`
	Extra             edapp.RawFields `json:"-"`
}

// SlideStatistics are a slide's statistics. EdApp has no analogue: the SDK
// reads the ids, and everything else is in Extra.
type SlideStatistics struct {
	SlideID  string          `json:"slideId"`
	LessonID string          `json:"lessonId"`
	CourseID string          `json:"courseId"`
	UserID   string          `json:"userId"` // per-user statistics only
	Extra    edapp.RawFields `json:"-"`
}

// SurveyQuestionDefinition is a survey question and its answers.
type SurveyQuestionDefinition struct {
	ID              string          `json:"id"`
	CourseID        string          `json:"courseId"`
	LessonID        string          `json:"lessonId"`
	SlideID         string          `json:"slideId"`
	QuestionType    string          `json:"questionType"`
	QuestionContent string          `json:"questionContent"`
	Answers         []SurveyOption  `json:"answers"`
	Extra           edapp.RawFields `json:"-"`
}

// SurveyOption is one answer a survey question offers.
type SurveyOption struct {
	ID      string          `json:"id"`
	Content string          `json:"content"`
	Extra   edapp.RawFields `json:"-"`
}

// SurveyAnswer is one learner's answer to a survey question.
type SurveyAnswer struct {
	ID                 string          `json:"id"`
	UserID             string          `json:"userId"`
	QuestionID         string          `json:"questionId"`
	AnswerDefinitionID string          `json:"answerDefinitionId"`
	AnswerContent      string          `json:"answerContent"`
	AnsweredDateTime   edapp.Time      `json:"answeredDateTime"`
	AttemptID          string          `json:"attemptId"`
	Extra              edapp.RawFields `json:"-"`
}

// RapidRefreshAnswer is one answer in a rapid refresh. EdApp has no
// analogue: the SDK reads the ids, and everything else is in Extra.
type RapidRefreshAnswer struct {
	ID             string          `json:"id"`
	UserID         string          `json:"userId"`
	RapidRefreshID string          `json:"rapidRefreshId"`
	Extra          edapp.RawFields `json:"-"`
}

func attemptKey(a LessonAttempt) string             { return a.ID }
func questionKey(q SurveyQuestionDefinition) string { return q.ID }
func answerKey(a SurveyAnswer) string               { return a.ID }

// analyticsList and analyticsAll are the two forms of every read.
func analyticsList[T any](ctx context.Context, s *AnalyticsService, p ids.Path, opts *AnalyticsOptions, reqOpts []edapp.RequestOption) (*edapp.Page[T], error) {
	return listPage[T](ctx, s.client, p, opts.utc(), reqOpts)
}

func analyticsAll[T any](ctx context.Context, s *AnalyticsService, p ids.Path, opts *AnalyticsOptions, reqOpts []edapp.RequestOption, key func(T) string) iter.Seq2[T, error] {
	return all(ctx, s.client, p, opts.utc(), reqOpts, key)
}

// userPath fills a per-user route, refusing an empty userID.
func userPath(route, userID string) (ids.Path, error) {
	if err := ids.Require("userID", userID); err != nil {
		return ids.Path{}, err
	}
	return ids.Fill(route, userID), nil
}

// ListCourseStatistics returns one page of course statistics.
//
// SafetyCulture API: GET /training/analytics/v1/courses/statistics
func (s *AnalyticsService) ListCourseStatistics(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[CourseStatistics], error) {
	return analyticsList[CourseStatistics](ctx, s, ids.Fill(routeCourseStatistics), opts, reqOpts)
}

// AllCourseStatistics iterates over every page of course statistics.
//
// SafetyCulture API: GET /training/analytics/v1/courses/statistics
func (s *AnalyticsService) AllCourseStatistics(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) iter.Seq2[CourseStatistics, error] {
	return analyticsAll[CourseStatistics](ctx, s, ids.Fill(routeCourseStatistics), opts, reqOpts, nil)
}

// ListLessonStatistics returns one page of lesson statistics.
//
// SafetyCulture API: GET /training/analytics/v1/lessons/statistics
func (s *AnalyticsService) ListLessonStatistics(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[LessonStatistics], error) {
	return analyticsList[LessonStatistics](ctx, s, ids.Fill(routeLessonStatistics), opts, reqOpts)
}

// AllLessonStatistics iterates over every page of lesson statistics.
//
// SafetyCulture API: GET /training/analytics/v1/lessons/statistics
func (s *AnalyticsService) AllLessonStatistics(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) iter.Seq2[LessonStatistics, error] {
	return analyticsAll[LessonStatistics](ctx, s, ids.Fill(routeLessonStatistics), opts, reqOpts, nil)
}

// ListLessonAttempts returns one page of lesson attempts.
//
// SafetyCulture API: GET /training/analytics/v1/lessons/attempts
func (s *AnalyticsService) ListLessonAttempts(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[LessonAttempt], error) {
	return analyticsList[LessonAttempt](ctx, s, ids.Fill(routeLessonAttempts), opts, reqOpts)
}

// AllLessonAttempts iterates over every page of lesson attempts.
//
// SafetyCulture API: GET /training/analytics/v1/lessons/attempts
func (s *AnalyticsService) AllLessonAttempts(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) iter.Seq2[LessonAttempt, error] {
	return analyticsAll[LessonAttempt](ctx, s, ids.Fill(routeLessonAttempts), opts, reqOpts, attemptKey)
}

// ListLessonProgressEvents returns one page of lesson progress events.
//
// SafetyCulture API: GET /training/analytics/v1/lessons/progress/events
func (s *AnalyticsService) ListLessonProgressEvents(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[LessonProgressEvent], error) {
	return analyticsList[LessonProgressEvent](ctx, s, ids.Fill(routeLessonProgressEvents), opts, reqOpts)
}

// AllLessonProgressEvents iterates over every page of lesson progress events.
//
// SafetyCulture API: GET /training/analytics/v1/lessons/progress/events
func (s *AnalyticsService) AllLessonProgressEvents(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) iter.Seq2[LessonProgressEvent, error] {
	return analyticsAll[LessonProgressEvent](ctx, s, ids.Fill(routeLessonProgressEvents), opts, reqOpts, nil)
}

// ListUserLessonProgress returns one page of a user's progress in each lesson.
//
// SafetyCulture API: GET /training/analytics/v1/users/{userId}/lessons/progress
func (s *AnalyticsService) ListUserLessonProgress(ctx context.Context, userID string, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[UserLessonProgress], error) {
	p, err := userPath(routeUserLessonProgress, userID)
	if err != nil {
		return nil, err
	}
	return analyticsList[UserLessonProgress](ctx, s, p, opts, reqOpts)
}

// AllUserLessonProgress iterates over every page of a user's progress in each lesson.
//
// SafetyCulture API: GET /training/analytics/v1/users/{userId}/lessons/progress
func (s *AnalyticsService) AllUserLessonProgress(ctx context.Context, userID string, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) iter.Seq2[UserLessonProgress, error] {
	p, err := userPath(routeUserLessonProgress, userID)
	if err != nil {
		return failed[UserLessonProgress](err)
	}
	return analyticsAll[UserLessonProgress](ctx, s, p, opts, reqOpts, nil)
}

// ListUserLessonProgressEvents returns one page of a user's lesson progress events.
//
// SafetyCulture API: GET /training/analytics/v1/users/{userId}/lessons/progress/events
func (s *AnalyticsService) ListUserLessonProgressEvents(ctx context.Context, userID string, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[LessonProgressEvent], error) {
	p, err := userPath(routeUserLessonProgressEvents, userID)
	if err != nil {
		return nil, err
	}
	return analyticsList[LessonProgressEvent](ctx, s, p, opts, reqOpts)
}

// AllUserLessonProgressEvents iterates over every page of a user's lesson progress events.
//
// SafetyCulture API: GET /training/analytics/v1/users/{userId}/lessons/progress/events
func (s *AnalyticsService) AllUserLessonProgressEvents(ctx context.Context, userID string, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) iter.Seq2[LessonProgressEvent, error] {
	p, err := userPath(routeUserLessonProgressEvents, userID)
	if err != nil {
		return failed[LessonProgressEvent](err)
	}
	return analyticsAll[LessonProgressEvent](ctx, s, p, opts, reqOpts, nil)
}

// ListSlideStatistics returns one page of slide statistics.
//
// SafetyCulture API: GET /training/analytics/v1/slides/statistics
func (s *AnalyticsService) ListSlideStatistics(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[SlideStatistics], error) {
	return analyticsList[SlideStatistics](ctx, s, ids.Fill(routeSlideStatistics), opts, reqOpts)
}

// AllSlideStatistics iterates over every page of slide statistics.
//
// SafetyCulture API: GET /training/analytics/v1/slides/statistics
func (s *AnalyticsService) AllSlideStatistics(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) iter.Seq2[SlideStatistics, error] {
	return analyticsAll[SlideStatistics](ctx, s, ids.Fill(routeSlideStatistics), opts, reqOpts, nil)
}

// ListUserSlideStatistics returns one page of a user's slide statistics.
//
// SafetyCulture API: GET /training/analytics/v1/users/{userId}/slides/statistics
func (s *AnalyticsService) ListUserSlideStatistics(ctx context.Context, userID string, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[SlideStatistics], error) {
	p, err := userPath(routeUserSlideStatistics, userID)
	if err != nil {
		return nil, err
	}
	return analyticsList[SlideStatistics](ctx, s, p, opts, reqOpts)
}

// AllUserSlideStatistics iterates over every page of a user's slide statistics.
//
// SafetyCulture API: GET /training/analytics/v1/users/{userId}/slides/statistics
func (s *AnalyticsService) AllUserSlideStatistics(ctx context.Context, userID string, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) iter.Seq2[SlideStatistics, error] {
	p, err := userPath(routeUserSlideStatistics, userID)
	if err != nil {
		return failed[SlideStatistics](err)
	}
	return analyticsAll[SlideStatistics](ctx, s, p, opts, reqOpts, nil)
}

// ListSurveyQuestionDefinitions returns one page of survey question definitions.
//
// SafetyCulture API: GET /training/analytics/v1/surveys/questionDefinitions
func (s *AnalyticsService) ListSurveyQuestionDefinitions(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[SurveyQuestionDefinition], error) {
	return analyticsList[SurveyQuestionDefinition](ctx, s, ids.Fill(routeSurveyQuestions), opts, reqOpts)
}

// AllSurveyQuestionDefinitions iterates over every page of survey question definitions.
//
// SafetyCulture API: GET /training/analytics/v1/surveys/questionDefinitions
func (s *AnalyticsService) AllSurveyQuestionDefinitions(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) iter.Seq2[SurveyQuestionDefinition, error] {
	return analyticsAll[SurveyQuestionDefinition](ctx, s, ids.Fill(routeSurveyQuestions), opts, reqOpts, questionKey)
}

// ListSurveyAnswers returns one page of survey answers.
//
// SafetyCulture API: GET /training/analytics/v1/surveys/answers
func (s *AnalyticsService) ListSurveyAnswers(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[SurveyAnswer], error) {
	return analyticsList[SurveyAnswer](ctx, s, ids.Fill(routeSurveyAnswers), opts, reqOpts)
}

// AllSurveyAnswers iterates over every page of survey answers.
//
// SafetyCulture API: GET /training/analytics/v1/surveys/answers
func (s *AnalyticsService) AllSurveyAnswers(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) iter.Seq2[SurveyAnswer, error] {
	return analyticsAll[SurveyAnswer](ctx, s, ids.Fill(routeSurveyAnswers), opts, reqOpts, answerKey)
}

// ListRapidRefreshAnswers returns one page of rapid refresh answers.
//
// SafetyCulture API: GET /training/analytics/v1/rapidRefresh/answers
func (s *AnalyticsService) ListRapidRefreshAnswers(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[RapidRefreshAnswer], error) {
	return analyticsList[RapidRefreshAnswer](ctx, s, ids.Fill(routeRapidRefreshAnswers), opts, reqOpts)
}

// AllRapidRefreshAnswers iterates over every page of rapid refresh answers.
//
// SafetyCulture API: GET /training/analytics/v1/rapidRefresh/answers
func (s *AnalyticsService) AllRapidRefreshAnswers(ctx context.Context, opts *AnalyticsOptions, reqOpts ...edapp.RequestOption) iter.Seq2[RapidRefreshAnswer, error] {
	return analyticsAll[RapidRefreshAnswer](ctx, s, ids.Fill(routeRapidRefreshAnswers), opts, reqOpts, nil)
}
