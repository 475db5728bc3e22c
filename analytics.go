package edapp

import (
	"context"
	"iter"
	"time"

	"github.com/edapp-go/edapp/internal/ids"
)

// AnalyticsService covers the v2 analytics operations (/v2/analytics/...).
//
// Inferred: the vendor documents neither the records nor the query
// parameters of these operations. The records follow the vendor's SDK, and
// each keeps every field it does not decode in Extra. The filters are those
// the vendor's SDK sends: courseId, courseExternalId, lessonId,
// lessonExternalId, userId, userExternalId and a datetime window, whose
// bounds are sent as RFC 3339 in UTC ("2024-05-01T00:00:00Z"). A zero
// time.Time or an empty string is not sent. Each options struct carries the
// filters that make sense for its operation.
type AnalyticsService service

// Attempt is one attempt of a user at a lesson (GET /v2/analytics/attempts).
// A learner may attempt a lesson many times; each attempt is a record.
type Attempt struct {
	ID                string `json:"id"`
	UserID            string `json:"userId"`
	UserExternalID    string `json:"userExternalId"`
	CourseID          string `json:"courseId"`
	CourseExternalID  string `json:"courseExternalId"`
	LessonID          string `json:"lessonId"`
	LessonExternalID  string `json:"lessonExternalId"`
	StartedDateTime   Time   `json:"startedDateTime"`
	CompletedDateTime Time   `json:"completedDateTime"`
	// Score is the attempt's score; nil when the answer carries none (or
	// one that is not a number). The vendor's SDK reads an integer; a
	// float64 takes decimals too.
	Score       *float64  `json:"score"`
	Success     bool      `json:"success"`
	EarnedStars int       `json:"earnedStars"`
	Extra       RawFields `json:"-"`
}

// AttemptListOptions filters and pages ListAttempts and AllAttempts.
// StartDateTime and EndDateTime bound the attempts' time.
type AttemptListOptions struct {
	ListOptions
	CourseID         string    `url:"courseId,omitempty"`
	CourseExternalID string    `url:"courseExternalId,omitempty"`
	LessonID         string    `url:"lessonId,omitempty"`
	LessonExternalID string    `url:"lessonExternalId,omitempty"`
	UserID           string    `url:"userId,omitempty"`
	UserExternalID   string    `url:"userExternalId,omitempty"`
	StartDateTime    time.Time `url:"startDateTime,omitempty"`
	EndDateTime      time.Time `url:"endDateTime,omitempty"`
}

// CourseProgress is one user's progress in one course (GET
// /v2/analytics/courseprogress): the percentage of the course's lessons
// completed, with the unlocked, opened and completed flags and their dates.
type CourseProgress struct {
	UserID              string   `json:"userId"`
	UserExternalID      string   `json:"userExternalId"`
	UserName            string   `json:"userName"`
	UserFirstName       string   `json:"userFirstName"`
	UserLastName        string   `json:"userLastName"`
	CourseID            string   `json:"courseId"`
	CourseExternalID    string   `json:"courseExternalId"`
	CourseTitle         string   `json:"courseTitle"`
	Unlocked            bool     `json:"unlocked"`
	UnlockedDateTime    Time     `json:"unlockedDateTime"`
	Opened              bool     `json:"opened"`
	OpenedDateTime      Time     `json:"openedDateTime"`
	Completed           bool     `json:"completed"`
	CompletedDateTime   Time     `json:"completedDateTime"`
	LessonsTotal        int      `json:"lessonsTotal"`
	LessonsUnlocked     int      `json:"lessonsUnlocked"`
	LessonsCompleted    int      `json:"lessonsCompleted"`
	Archived            bool     `json:"archived"`
	PercentageCompleted float64  `json:"percentageCompleted"`
	Score               *float64 `json:"score"` // nil: none sent

	Extra RawFields `json:"-"`
}

// CourseProgressListOptions filters and pages ListCourseProgress and
// AllCourseProgress. ModifiedSinceDateTime takes the place that
// startDateTime has in the other operations.
type CourseProgressListOptions struct {
	ListOptions
	CourseID              string    `url:"courseId,omitempty"`
	CourseExternalID      string    `url:"courseExternalId,omitempty"`
	UserID                string    `url:"userId,omitempty"`
	UserExternalID        string    `url:"userExternalId,omitempty"`
	ModifiedSinceDateTime time.Time `url:"modifiedSinceDateTime,omitempty"`
	EndDateTime           time.Time `url:"endDateTime,omitempty"`
}

// CourseStatistics holds the high-level statistics (opens, completions) of
// one course (GET /v2/analytics/coursestatistics).
type CourseStatistics struct {
	CourseID       string    `json:"courseId"`
	TotalUsers     int       `json:"totalUsers"`
	CompletedCount int       `json:"completedCount"`
	OpenedCount    int       `json:"openedCount"`
	Extra          RawFields `json:"-"`
}

// CourseStatisticsListOptions filters and pages ListCourseStatistics and
// AllCourseStatistics.
type CourseStatisticsListOptions struct {
	ListOptions
	CourseID         string    `url:"courseId,omitempty"`
	CourseExternalID string    `url:"courseExternalId,omitempty"`
	StartDateTime    time.Time `url:"startDateTime,omitempty"`
	EndDateTime      time.Time `url:"endDateTime,omitempty"`
}

// LessonProgressEvent is one lesson progress event of a user (GET
// /v2/analytics/lesson-progress/events and its per-user form), such as a
// lesson opened or completed. EventName is the kind of progress, as the
// service names it.
type LessonProgressEvent struct {
	UserID           string `json:"userId"`
	UserEmail        string `json:"userEmail"`
	UserFirstName    string `json:"userFirstName"`
	UserLastName     string `json:"userLastName"`
	CourseID         string `json:"courseId"`
	CourseTitle      string `json:"courseTitle"`
	CourseExternalID string `json:"courseExternalId"`
	LessonID         string `json:"lessonId"`
	LessonTitle      string `json:"lessonTitle"`
	LessonExternalID string `json:"lessonExternalId"`
	EventName        string `json:"eventName"`
	EventDateTime    Time   `json:"eventDateTime"`
	// LessonScore is nil when the event carries no score (null or absent).
	LessonScore *float64  `json:"lessonScore"`
	Extra       RawFields `json:"-"`
}

// LessonProgressEventListOptions filters and pages ListLessonProgressEvents
// and AllLessonProgressEvents. MinEventDateTime and MaxEventDateTime bound
// the events' time; the vendor's SDK asks for 7-day windows at a time.
type LessonProgressEventListOptions struct {
	ListOptions
	CourseID         string    `url:"courseId,omitempty"`
	CourseExternalID string    `url:"courseExternalId,omitempty"`
	LessonID         string    `url:"lessonId,omitempty"`
	LessonExternalID string    `url:"lessonExternalId,omitempty"`
	UserID           string    `url:"userId,omitempty"`
	UserExternalID   string    `url:"userExternalId,omitempty"`
	MinEventDateTime time.Time `url:"minEventDateTime,omitempty"`
	MaxEventDateTime time.Time `url:"maxEventDateTime,omitempty"`
}

// UserLessonProgress is one user's progress in one lesson (GET
// /v2/analytics/users/{userId}/lesson-progress). Inferred: neither the
// vendor nor its SDK names these fields; they are a best guess.
type UserLessonProgress struct {
	UserID            string   `json:"userId"`
	CourseID          string   `json:"courseId"`
	LessonID          string   `json:"lessonId"`
	LessonTitle       string   `json:"lessonTitle"`
	Opened            bool     `json:"opened"`
	OpenedDateTime    Time     `json:"openedDateTime"`
	Completed         bool     `json:"completed"`
	CompletedDateTime Time     `json:"completedDateTime"`
	Score             *float64 `json:"score"` // nil: none sent
	// Attempts is the number of the user's attempts at the lesson.
	Attempts int       `json:"attempts"`
	Extra    RawFields `json:"-"`
}

// UserLessonProgressListOptions filters and pages ListUserLessonProgress and
// AllUserLessonProgress. The user is the path's userId.
type UserLessonProgressListOptions struct {
	ListOptions
	CourseID         string    `url:"courseId,omitempty"`
	CourseExternalID string    `url:"courseExternalId,omitempty"`
	LessonID         string    `url:"lessonId,omitempty"`
	LessonExternalID string    `url:"lessonExternalId,omitempty"`
	StartDateTime    time.Time `url:"startDateTime,omitempty"`
	EndDateTime      time.Time `url:"endDateTime,omitempty"`
}

// UserLessonProgressEventListOptions filters and pages
// ListUserLessonProgressEvents and AllUserLessonProgressEvents. The user is
// the path's userId; MinEventDateTime and MaxEventDateTime bound the events'
// time.
type UserLessonProgressEventListOptions struct {
	ListOptions
	CourseID         string    `url:"courseId,omitempty"`
	CourseExternalID string    `url:"courseExternalId,omitempty"`
	LessonID         string    `url:"lessonId,omitempty"`
	LessonExternalID string    `url:"lessonExternalId,omitempty"`
	MinEventDateTime time.Time `url:"minEventDateTime,omitempty"`
	MaxEventDateTime time.Time `url:"maxEventDateTime,omitempty"`
}

// LessonStatistics holds the high-level statistics (opens, completions) of
// one lesson (GET /v2/analytics/lessonstatistics). Inferred: neither the
// vendor nor its SDK names these fields; they are a best guess.
type LessonStatistics struct {
	LessonID       string    `json:"lessonId"`
	CourseID       string    `json:"courseId"`
	LessonTitle    string    `json:"lessonTitle"`
	TotalUsers     int       `json:"totalUsers"`
	OpenedCount    int       `json:"openedCount"`
	CompletedCount int       `json:"completedCount"`
	Extra          RawFields `json:"-"`
}

// LessonStatisticsListOptions filters and pages ListLessonStatistics and
// AllLessonStatistics.
type LessonStatisticsListOptions struct {
	ListOptions
	CourseID         string    `url:"courseId,omitempty"`
	CourseExternalID string    `url:"courseExternalId,omitempty"`
	LessonID         string    `url:"lessonId,omitempty"`
	LessonExternalID string    `url:"lessonExternalId,omitempty"`
	StartDateTime    time.Time `url:"startDateTime,omitempty"`
	EndDateTime      time.Time `url:"endDateTime,omitempty"`
}

// SurveyQuestionDefinition is a survey question (GET
// /v2/analytics/surveyquestiondefinitions). Survey questions are open
// answer, rating or multiple choice, and have no correct answer. Inferred:
// neither the vendor nor its SDK names these fields; they are a best guess.
type SurveyQuestionDefinition struct {
	ID       string `json:"id"`
	CourseID string `json:"courseId"`
	LessonID string `json:"lessonId"`
	SlideID  string `json:"slideId"`
	// QuestionType is the kind of question, as the service names it.
	QuestionType string `json:"questionType"`
	// QuestionContent is the question's text (HTML).
	QuestionContent string `json:"questionContent"`
	// Answers are the answers offered, for questions that offer some.
	Answers []SurveyAnswerDefinition `json:"answers"`
	Extra   RawFields                `json:"-"`
}

// SurveyAnswerDefinition is an answer a survey question offers. Its ID is
// what [SurveyAnswer.AnswerDefinitionID] refers to.
type SurveyAnswerDefinition struct {
	ID      string    `json:"id"`
	Content string    `json:"content"`
	Extra   RawFields `json:"-"`
}

// SurveyQuestionDefinitionListOptions filters and pages
// ListSurveyQuestionDefinitions and AllSurveyQuestionDefinitions.
type SurveyQuestionDefinitionListOptions struct {
	ListOptions
	CourseID         string `url:"courseId,omitempty"`
	CourseExternalID string `url:"courseExternalId,omitempty"`
	LessonID         string `url:"lessonId,omitempty"`
	LessonExternalID string `url:"lessonExternalId,omitempty"`
}

// SurveyAnswer is one user's answer to one survey question (GET
// /v2/analytics/surveyanswers).
type SurveyAnswer struct {
	ID               string `json:"id"`
	CourseID         string `json:"courseId"`
	CourseExternalID string `json:"courseExternalId"`
	LessonID         string `json:"lessonId"`
	LessonExternalID string `json:"lessonExternalId"`
	SlideID          string `json:"slideId"`
	UserID           string `json:"userId"`
	UserExternalID   string `json:"userExternalId"`
	AttemptID        string `json:"attemptId"`
	QuestionID       string `json:"questionId"`
	// QuestionContent is the question's text (HTML).
	QuestionContent string `json:"questionContent"`
	// AnswerDefinitionID is the offered answer chosen, when the question
	// offers answers (see SurveyAnswerDefinition).
	AnswerDefinitionID string    `json:"answerDefinitionId"`
	AnswerContent      string    `json:"answerContent"`
	AnsweredDateTime   Time      `json:"answeredDateTime"`
	Extra              RawFields `json:"-"`
}

// SurveyAnswerListOptions filters and pages ListSurveyAnswers and
// AllSurveyAnswers.
type SurveyAnswerListOptions struct {
	ListOptions
	CourseID         string    `url:"courseId,omitempty"`
	CourseExternalID string    `url:"courseExternalId,omitempty"`
	LessonID         string    `url:"lessonId,omitempty"`
	LessonExternalID string    `url:"lessonExternalId,omitempty"`
	UserID           string    `url:"userId,omitempty"`
	UserExternalID   string    `url:"userExternalId,omitempty"`
	StartDateTime    time.Time `url:"startDateTime,omitempty"`
	EndDateTime      time.Time `url:"endDateTime,omitempty"`
}

// ListAttempts lists one page of lesson attempts: GET /v2/analytics/attempts.
//
// EdApp API: GET /v2/analytics/attempts
func (s *AnalyticsService) ListAttempts(ctx context.Context, opts *AttemptListOptions, reqOpts ...RequestOption) (*Page[Attempt], error) {
	return listPage[Attempt](ctx, s.client, ids.Fill("/v2/analytics/attempts"), utcQuery(opts), reqOpts...)
}

// AllAttempts iterates over every lesson attempt (see ListAttempts).
//
// EdApp API: GET /v2/analytics/attempts (every page)
func (s *AnalyticsService) AllAttempts(ctx context.Context, opts *AttemptListOptions, reqOpts ...RequestOption) iter.Seq2[Attempt, error] {
	return all(ctx, opts, s.ListAttempts, reqOpts)
}

// ListCourseProgress lists one page of course progress, one record per user
// and course: GET /v2/analytics/courseprogress.
//
// EdApp API: GET /v2/analytics/courseprogress
func (s *AnalyticsService) ListCourseProgress(ctx context.Context, opts *CourseProgressListOptions, reqOpts ...RequestOption) (*Page[CourseProgress], error) {
	return listPage[CourseProgress](ctx, s.client, ids.Fill("/v2/analytics/courseprogress"), utcQuery(opts), reqOpts...)
}

// AllCourseProgress iterates over every course progress record (see
// ListCourseProgress).
//
// EdApp API: GET /v2/analytics/courseprogress (every page)
func (s *AnalyticsService) AllCourseProgress(ctx context.Context, opts *CourseProgressListOptions, reqOpts ...RequestOption) iter.Seq2[CourseProgress, error] {
	return all(ctx, opts, s.ListCourseProgress, reqOpts)
}

// ListCourseStatistics lists one page of per-course statistics: GET
// /v2/analytics/coursestatistics.
//
// EdApp API: GET /v2/analytics/coursestatistics
func (s *AnalyticsService) ListCourseStatistics(ctx context.Context, opts *CourseStatisticsListOptions, reqOpts ...RequestOption) (*Page[CourseStatistics], error) {
	return listPage[CourseStatistics](ctx, s.client, ids.Fill("/v2/analytics/coursestatistics"), utcQuery(opts), reqOpts...)
}

// AllCourseStatistics iterates over the statistics of every course (see
// ListCourseStatistics).
//
// EdApp API: GET /v2/analytics/coursestatistics (every page)
func (s *AnalyticsService) AllCourseStatistics(ctx context.Context, opts *CourseStatisticsListOptions, reqOpts ...RequestOption) iter.Seq2[CourseStatistics, error] {
	return all(ctx, opts, s.ListCourseStatistics, reqOpts)
}

// ListLessonProgressEvents lists one page of the lesson progress events of
// all users: GET /v2/analytics/lesson-progress/events.
//
// EdApp API: GET /v2/analytics/lesson-progress/events
func (s *AnalyticsService) ListLessonProgressEvents(ctx context.Context, opts *LessonProgressEventListOptions, reqOpts ...RequestOption) (*Page[LessonProgressEvent], error) {
	return listPage[LessonProgressEvent](ctx, s.client, ids.Fill("/v2/analytics/lesson-progress/events"), utcQuery(opts), reqOpts...)
}

// AllLessonProgressEvents iterates over the lesson progress events of all
// users (see ListLessonProgressEvents).
//
// EdApp API: GET /v2/analytics/lesson-progress/events (every page)
func (s *AnalyticsService) AllLessonProgressEvents(ctx context.Context, opts *LessonProgressEventListOptions, reqOpts ...RequestOption) iter.Seq2[LessonProgressEvent, error] {
	return all(ctx, opts, s.ListLessonProgressEvents, reqOpts)
}

// ListUserLessonProgress lists one page of one user's lesson progress: GET
// /v2/analytics/users/{userId}/lesson-progress.
//
// EdApp API: GET /v2/analytics/users/{userId}/lesson-progress
func (s *AnalyticsService) ListUserLessonProgress(ctx context.Context, userID string, opts *UserLessonProgressListOptions, reqOpts ...RequestOption) (*Page[UserLessonProgress], error) {
	if err := ids.Require("userID", userID); err != nil {
		return nil, err
	}
	return listPage[UserLessonProgress](ctx, s.client, ids.Fill("/v2/analytics/users/{userId}/lesson-progress", userID), utcQuery(opts), reqOpts...)
}

// AllUserLessonProgress iterates over one user's lesson progress (see
// ListUserLessonProgress). An empty userID yields [ErrInvalidInput] once.
//
// EdApp API: GET /v2/analytics/users/{userId}/lesson-progress (every page)
func (s *AnalyticsService) AllUserLessonProgress(ctx context.Context, userID string, opts *UserLessonProgressListOptions, reqOpts ...RequestOption) iter.Seq2[UserLessonProgress, error] {
	return all(ctx, opts, func(ctx context.Context, o *UserLessonProgressListOptions, ro ...RequestOption) (*Page[UserLessonProgress], error) {
		return s.ListUserLessonProgress(ctx, userID, o, ro...)
	}, reqOpts)
}

// ListUserLessonProgressEvents lists one page of one user's lesson progress
// events: GET /v2/analytics/users/{userId}/lesson-progress/events.
//
// EdApp API: GET /v2/analytics/users/{userId}/lesson-progress/events
func (s *AnalyticsService) ListUserLessonProgressEvents(ctx context.Context, userID string, opts *UserLessonProgressEventListOptions, reqOpts ...RequestOption) (*Page[LessonProgressEvent], error) {
	if err := ids.Require("userID", userID); err != nil {
		return nil, err
	}
	return listPage[LessonProgressEvent](ctx, s.client, ids.Fill("/v2/analytics/users/{userId}/lesson-progress/events", userID), utcQuery(opts), reqOpts...)
}

// AllUserLessonProgressEvents iterates over one user's lesson progress
// events (see ListUserLessonProgressEvents). An empty userID yields
// [ErrInvalidInput] once.
//
// EdApp API: GET /v2/analytics/users/{userId}/lesson-progress/events (every page)
func (s *AnalyticsService) AllUserLessonProgressEvents(ctx context.Context, userID string, opts *UserLessonProgressEventListOptions, reqOpts ...RequestOption) iter.Seq2[LessonProgressEvent, error] {
	return all(ctx, opts, func(ctx context.Context, o *UserLessonProgressEventListOptions, ro ...RequestOption) (*Page[LessonProgressEvent], error) {
		return s.ListUserLessonProgressEvents(ctx, userID, o, ro...)
	}, reqOpts)
}

// ListLessonStatistics lists one page of per-lesson statistics: GET
// /v2/analytics/lessonstatistics.
//
// EdApp API: GET /v2/analytics/lessonstatistics
func (s *AnalyticsService) ListLessonStatistics(ctx context.Context, opts *LessonStatisticsListOptions, reqOpts ...RequestOption) (*Page[LessonStatistics], error) {
	return listPage[LessonStatistics](ctx, s.client, ids.Fill("/v2/analytics/lessonstatistics"), utcQuery(opts), reqOpts...)
}

// AllLessonStatistics iterates over the statistics of every lesson (see
// ListLessonStatistics).
//
// EdApp API: GET /v2/analytics/lessonstatistics (every page)
func (s *AnalyticsService) AllLessonStatistics(ctx context.Context, opts *LessonStatisticsListOptions, reqOpts ...RequestOption) iter.Seq2[LessonStatistics, error] {
	return all(ctx, opts, s.ListLessonStatistics, reqOpts)
}

// ListSurveyQuestionDefinitions lists one page of survey question
// definitions: GET /v2/analytics/surveyquestiondefinitions.
//
// EdApp API: GET /v2/analytics/surveyquestiondefinitions
func (s *AnalyticsService) ListSurveyQuestionDefinitions(ctx context.Context, opts *SurveyQuestionDefinitionListOptions, reqOpts ...RequestOption) (*Page[SurveyQuestionDefinition], error) {
	return listPage[SurveyQuestionDefinition](ctx, s.client, ids.Fill("/v2/analytics/surveyquestiondefinitions"), opts, reqOpts...)
}

// AllSurveyQuestionDefinitions iterates over every survey question
// definition (see ListSurveyQuestionDefinitions).
//
// EdApp API: GET /v2/analytics/surveyquestiondefinitions (every page)
func (s *AnalyticsService) AllSurveyQuestionDefinitions(ctx context.Context, opts *SurveyQuestionDefinitionListOptions, reqOpts ...RequestOption) iter.Seq2[SurveyQuestionDefinition, error] {
	return all(ctx, opts, s.ListSurveyQuestionDefinitions, reqOpts)
}

// ListSurveyAnswers lists one page of survey answers: GET
// /v2/analytics/surveyanswers.
//
// EdApp API: GET /v2/analytics/surveyanswers
func (s *AnalyticsService) ListSurveyAnswers(ctx context.Context, opts *SurveyAnswerListOptions, reqOpts ...RequestOption) (*Page[SurveyAnswer], error) {
	return listPage[SurveyAnswer](ctx, s.client, ids.Fill("/v2/analytics/surveyanswers"), utcQuery(opts), reqOpts...)
}

// AllSurveyAnswers iterates over every survey answer (see ListSurveyAnswers).
//
// EdApp API: GET /v2/analytics/surveyanswers (every page)
func (s *AnalyticsService) AllSurveyAnswers(ctx context.Context, opts *SurveyAnswerListOptions, reqOpts ...RequestOption) iter.Seq2[SurveyAnswer, error] {
	return all(ctx, opts, s.ListSurveyAnswers, reqOpts)
}
