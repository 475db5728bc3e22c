package edapp

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sydney is a zone east of UTC, so a window given in it must be converted.
var sydney = time.FixedZone("AEDT", 11*3600)

// Window bounds as a caller in Sydney gives them, and as they must go out.
var (
	windowFrom = time.Date(2024, 3, 1, 11, 0, 0, 0, sydney) // 2024-03-01T00:00:00Z
	windowTo   = time.Date(2024, 3, 8, 10, 59, 59, 0, sydney)
)

const (
	windowFromQ = "2024-03-01T00%3A00%3A00Z"
	windowToQ   = "2024-03-07T23%3A59%3A59Z"
)

func TestAnalyticsListAttempts(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/analytics/attempts", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/analytics/attempts",
			"courseExternalId=LMS-SAFE-1&courseId=crs-safety&endDateTime="+windowToQ+
				"&lessonExternalId=LMS-SAFE-1-L1&lessonId=les-hazards&page=1&pageSize=1000"+
				"&startDateTime="+windowFromQ+"&userExternalId=HR-1042&userId=u-1", "")
		serveFixture(t, w, "analytics/attempts.json")
	})

	opts := &AttemptListOptions{
		ListOptions: ListOptions{Page: 1, PageSize: 1000},
		CourseID:    "crs-safety", CourseExternalID: "LMS-SAFE-1",
		LessonID: "les-hazards", LessonExternalID: "LMS-SAFE-1-L1",
		UserID: "u-1", UserExternalID: "HR-1042",
		StartDateTime: windowFrom, EndDateTime: windowTo,
	}
	page, err := client.Analytics.ListAttempts(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, sydney, opts.StartDateTime.Location(), "caller's options untouched")
	assertPage(t, &Page[Attempt]{Response: counted(2), Items: []Attempt{
		{
			ID: "att-1", UserID: "u-1", UserExternalID: "HR-1042", CourseID: "crs-safety", CourseExternalID: "LMS-SAFE-1",
			LessonID: "les-hazards", LessonExternalID: "LMS-SAFE-1-L1",
			StartedDateTime:   Time{time.Date(2024, 3, 7, 5, 10, 36, 187e6, time.UTC)},
			CompletedDateTime: Time{time.Date(2024, 3, 7, 5, 14, 2, 0, time.UTC)},
			Score:             Ptr(85.0), Success: true, EarnedStars: 3,
		},
		{
			ID: "att-2", UserID: "u-1", UserExternalID: "HR-1042", CourseID: "crs-safety", CourseExternalID: "LMS-SAFE-1",
			LessonID: "les-hazards", LessonExternalID: "LMS-SAFE-1-L1",
			StartedDateTime: Time{time.Date(2024, 3, 8, 1, 0, 0, 0, time.UTC)},
			Score:           Ptr(42.5),
		},
	}}, page)
}

func TestAnalyticsZeroWindowIsNotSent(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/analytics/attempts", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/analytics/attempts", "endDateTime=2024-03-07T23%3A59%3A59Z&userId=u-1", "")
		_, _ = w.Write([]byte(`{"totalCount":0,"items":[]}`))
	})
	_, err := client.Analytics.ListAttempts(context.Background(), &AttemptListOptions{UserID: "u-1", EndDateTime: windowTo})
	require.NoError(t, err)
}

// The Attempt record stays a plain struct, so a page decodes at
// encoding/json's speed.
func TestAttemptHasNoCustomDecoder(t *testing.T) {
	t.Parallel()
	_, ok := any(new(Attempt)).(json.Unmarshaler)
	assert.False(t, ok)
	_, ok = any(new(Attempt)).(json.Marshaler)
	assert.False(t, ok)
}

func TestAnalyticsListCourseProgress(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/analytics/courseprogress", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/analytics/courseprogress",
			"courseExternalId=LMS-SAFE-1&courseId=crs-safety&endDateTime="+windowToQ+
				"&modifiedSinceDateTime="+windowFromQ+"&pageSize=100&userExternalId=HR-1042&userId=u-1", "")
		serveFixture(t, w, "analytics/courseprogress.json")
	})

	page, err := client.Analytics.ListCourseProgress(context.Background(), &CourseProgressListOptions{
		ListOptions: ListOptions{PageSize: 100},
		CourseID:    "crs-safety", CourseExternalID: "LMS-SAFE-1", UserID: "u-1", UserExternalID: "HR-1042",
		ModifiedSinceDateTime: windowFrom, EndDateTime: windowTo,
	})
	require.NoError(t, err)
	assertPage(t, &Page[CourseProgress]{Response: counted(1), Items: []CourseProgress{{
		UserID: "u-1", UserExternalID: "HR-1042", UserName: "jane.doe@example.com", UserFirstName: "Jane", UserLastName: "Doe",
		CourseID: "crs-safety", CourseExternalID: "LMS-SAFE-1", CourseTitle: "Workplace Safety Basics",
		Unlocked: true, UnlockedDateTime: Time{time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)},
		Opened: true, OpenedDateTime: Time{time.Date(2024, 3, 7, 5, 10, 36, 187e6, time.UTC)},
		LessonsTotal: 3, LessonsUnlocked: 3, LessonsCompleted: 1,
		PercentageCompleted: 33.33, Score: Ptr(85.0),
	}}}, page)
}

func TestAnalyticsListCourseStatistics(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/analytics/coursestatistics", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/analytics/coursestatistics",
			"courseExternalId=LMS-SAFE-1&courseId=crs-safety&endDateTime="+windowToQ+"&startDateTime="+windowFromQ, "")
		serveFixture(t, w, "analytics/coursestatistics.json")
	})

	page, err := client.Analytics.ListCourseStatistics(context.Background(), &CourseStatisticsListOptions{
		CourseID: "crs-safety", CourseExternalID: "LMS-SAFE-1", StartDateTime: windowFrom, EndDateTime: windowTo,
	})
	require.NoError(t, err)
	assertPage(t, &Page[CourseStatistics]{Response: counted(2), Items: []CourseStatistics{
		{CourseID: "crs-safety", TotalUsers: 120, CompletedCount: 87, OpenedCount: 110},
		{CourseID: "crs-forklift", TotalUsers: 14, OpenedCount: 3},
	}}, page)
}

func wantProgressEvents() []LessonProgressEvent {
	base := LessonProgressEvent{
		UserID: "u-1", UserEmail: "jane.doe@example.com", UserFirstName: "Jane", UserLastName: "Doe",
		CourseID: "crs-safety", CourseTitle: "Workplace Safety Basics", CourseExternalID: "LMS-SAFE-1",
		LessonID: "les-hazards", LessonTitle: "Spotting hazards", LessonExternalID: "LMS-SAFE-1-L1",
	}
	opened, completed := base, base
	opened.EventName = "LessonOpened"
	opened.EventDateTime = Time{time.Date(2024, 3, 7, 5, 10, 36, 187e6, time.UTC)}
	completed.EventName = "LessonCompleted"
	completed.EventDateTime = Time{time.Date(2024, 3, 7, 5, 14, 2, 0, time.UTC)}
	completed.LessonScore = Ptr(85.0)
	return []LessonProgressEvent{opened, completed}
}

func TestAnalyticsListLessonProgressEvents(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/analytics/lesson-progress/events", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/analytics/lesson-progress/events",
			"courseExternalId=LMS-SAFE-1&courseId=crs-safety&lessonExternalId=LMS-SAFE-1-L1&lessonId=les-hazards"+
				"&maxEventDateTime="+windowToQ+"&minEventDateTime="+windowFromQ+"&page=2&userExternalId=HR-1042&userId=u-1", "")
		serveFixture(t, w, "analytics/lesson-progress-events.json")
	})

	page, err := client.Analytics.ListLessonProgressEvents(context.Background(), &LessonProgressEventListOptions{
		ListOptions: ListOptions{Page: 2},
		CourseID:    "crs-safety", CourseExternalID: "LMS-SAFE-1", LessonID: "les-hazards", LessonExternalID: "LMS-SAFE-1-L1",
		UserID: "u-1", UserExternalID: "HR-1042", MinEventDateTime: windowFrom, MaxEventDateTime: windowTo,
	})
	require.NoError(t, err)
	assertPage(t, &Page[LessonProgressEvent]{Response: counted(2), Items: wantProgressEvents()}, page)
	assert.Nil(t, page.Items[0].LessonScore, "null score")
}

func TestAnalyticsListUserLessonProgress(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/analytics/users/u-1/lesson-progress", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/analytics/users/u-1/lesson-progress",
			"courseExternalId=LMS-SAFE-1&courseId=crs-safety&endDateTime="+windowToQ+
				"&lessonExternalId=LMS-SAFE-1-L1&lessonId=les-hazards&startDateTime="+windowFromQ, "")
		serveFixture(t, w, "analytics/user-lesson-progress.json")
	})

	page, err := client.Analytics.ListUserLessonProgress(context.Background(), "u-1", &UserLessonProgressListOptions{
		CourseID: "crs-safety", CourseExternalID: "LMS-SAFE-1", LessonID: "les-hazards", LessonExternalID: "LMS-SAFE-1-L1",
		StartDateTime: windowFrom, EndDateTime: windowTo,
	})
	require.NoError(t, err)
	assertPage(t, &Page[UserLessonProgress]{Response: counted(1), Items: []UserLessonProgress{{
		UserID: "u-1", CourseID: "crs-safety", LessonID: "les-hazards", LessonTitle: "Spotting hazards",
		Opened: true, OpenedDateTime: Time{time.Date(2024, 3, 7, 5, 10, 36, 187e6, time.UTC)},
		Completed: true, CompletedDateTime: Time{time.Date(2024, 3, 7, 5, 14, 2, 0, time.UTC)},
		Score: Ptr(85.0), Attempts: 2,
		Extra: map[string]json.RawMessage{
			"lessonExternalId": json.RawMessage(`"LMS-SAFE-1-L1"`),
			"timeSpentSeconds": json.RawMessage(`206.5`),
		},
	}}}, page)
}

func TestAnalyticsListUserLessonProgressEvents(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/analytics/users/u-1/lesson-progress/events", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/analytics/users/u-1/lesson-progress/events",
			"courseId=crs-safety&maxEventDateTime="+windowToQ+"&minEventDateTime="+windowFromQ, "")
		serveFixture(t, w, "analytics/lesson-progress-events.json")
	})

	page, err := client.Analytics.ListUserLessonProgressEvents(context.Background(), "u-1", &UserLessonProgressEventListOptions{
		CourseID: "crs-safety", MinEventDateTime: windowFrom, MaxEventDateTime: windowTo,
	})
	require.NoError(t, err)
	assertPage(t, &Page[LessonProgressEvent]{Response: counted(2), Items: wantProgressEvents()}, page)
}

func TestAnalyticsListLessonStatistics(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/analytics/lessonstatistics", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/analytics/lessonstatistics",
			"courseExternalId=X&courseId=crs-safety&endDateTime="+windowToQ+"&lessonExternalId=Y&lessonId=les-hazards&startDateTime="+windowFromQ, "")
		serveFixture(t, w, "analytics/lessonstatistics.json")
	})

	page, err := client.Analytics.ListLessonStatistics(context.Background(), &LessonStatisticsListOptions{
		CourseID: "crs-safety", CourseExternalID: "X", LessonID: "les-hazards", LessonExternalID: "Y",
		StartDateTime: windowFrom, EndDateTime: windowTo,
	})
	require.NoError(t, err)
	assertPage(t, &Page[LessonStatistics]{Response: counted(1), Items: []LessonStatistics{{
		LessonID: "les-hazards", CourseID: "crs-safety", LessonTitle: "Spotting hazards",
		TotalUsers: 120, OpenedCount: 110, CompletedCount: 87,
		Extra: map[string]json.RawMessage{
			"averageScore": json.RawMessage(`78.4`),
			"breakdown":    json.RawMessage(`{"passed": 80, "failed": 7}`),
		},
	}}}, page)
}

func TestAnalyticsListSurveyQuestionDefinitions(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/analytics/surveyquestiondefinitions", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/analytics/surveyquestiondefinitions",
			"courseExternalId=X&courseId=crs-safety&lessonExternalId=Y&lessonId=les-survey", "")
		serveFixture(t, w, "analytics/surveyquestiondefinitions.json")
	})

	page, err := client.Analytics.ListSurveyQuestionDefinitions(context.Background(), &SurveyQuestionDefinitionListOptions{
		CourseID: "crs-safety", CourseExternalID: "X", LessonID: "les-survey", LessonExternalID: "Y",
	})
	require.NoError(t, err)
	assertPage(t, &Page[SurveyQuestionDefinition]{Response: counted(2), Items: []SurveyQuestionDefinition{
		{
			ID: "q-1", CourseID: "crs-safety", LessonID: "les-survey", SlideID: "sl-4", QuestionType: "multiple-choice",
			QuestionContent: "<p>How confident are you reporting a hazard?</p>",
			Answers: []SurveyAnswerDefinition{
				{ID: "a-1", Content: "Very confident", Extra: map[string]json.RawMessage{"order": json.RawMessage(`1`)}},
				{ID: "a-2", Content: "Not sure"},
			},
			Extra: map[string]json.RawMessage{"allowMultiple": json.RawMessage(`false`)},
		},
		{
			ID: "q-2", CourseID: "crs-safety", LessonID: "les-survey", SlideID: "sl-5", QuestionType: "open-answer",
			QuestionContent: "<p>What would you improve?</p>", Answers: []SurveyAnswerDefinition{},
		},
	}}, page)
}

func TestAnalyticsListSurveyAnswers(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/analytics/surveyanswers", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/analytics/surveyanswers",
			"courseExternalId=LMS-SAFE-1&courseId=crs-safety&endDateTime="+windowToQ+
				"&lessonExternalId=Y&lessonId=les-survey&startDateTime="+windowFromQ+"&userExternalId=HR-1042&userId=u-1", "")
		serveFixture(t, w, "analytics/surveyanswers.json")
	})

	page, err := client.Analytics.ListSurveyAnswers(context.Background(), &SurveyAnswerListOptions{
		CourseID: "crs-safety", CourseExternalID: "LMS-SAFE-1", LessonID: "les-survey", LessonExternalID: "Y",
		UserID: "u-1", UserExternalID: "HR-1042", StartDateTime: windowFrom, EndDateTime: windowTo,
	})
	require.NoError(t, err)
	assertPage(t, &Page[SurveyAnswer]{Response: counted(1), Items: []SurveyAnswer{{
		ID: "ans-1", CourseID: "crs-safety", CourseExternalID: "LMS-SAFE-1", LessonID: "les-survey", SlideID: "sl-4",
		UserID: "u-1", UserExternalID: "HR-1042", AttemptID: "att-9", QuestionID: "q-1",
		QuestionContent:    "<p>How confident are you reporting a hazard?</p>",
		AnswerDefinitionID: "a-1", AnswerContent: "Very confident",
		AnsweredDateTime: Time{time.Date(2024, 3, 9, 8, 0, 0, 0, time.UTC)},
	}}}, page)
}

func TestAnalyticsExtraIsNilWhenEverythingIsKnown(t *testing.T) {
	t.Parallel()
	var s LessonStatistics
	require.NoError(t, json.Unmarshal([]byte(`{"lessonId":"l","LessonTitle":"matched without regard to case"}`), &s))
	assert.Equal(t, LessonStatistics{LessonID: "l", LessonTitle: "matched without regard to case"}, s)
	require.NoError(t, json.Unmarshal([]byte(`null`), &s))
}

func TestAnalyticsAll(t *testing.T) {
	t.Parallel()
	// Every options type carries its filters through every page.
	tests := []struct {
		name, path, filters string
		run                 func(ctx context.Context, c *Client) ([]string, error)
	}{
		{"AllAttempts", "/v2/analytics/attempts", "courseId=c&startDateTime=" + windowFromQ,
			func(ctx context.Context, c *Client) ([]string, error) {
				return collectKeys(c.Analytics.AllAttempts(ctx, &AttemptListOptions{ListOptions: ListOptions{PageSize: 2}, CourseID: "c", StartDateTime: windowFrom}),
					func(a Attempt) string { return a.ID })
			}},
		{"AllCourseProgress", "/v2/analytics/courseprogress", "modifiedSinceDateTime=" + windowFromQ,
			func(ctx context.Context, c *Client) ([]string, error) {
				return collectKeys(c.Analytics.AllCourseProgress(ctx, &CourseProgressListOptions{ListOptions: ListOptions{PageSize: 2}, ModifiedSinceDateTime: windowFrom}),
					func(p CourseProgress) string { return p.UserID })
			}},
		{"AllCourseStatistics", "/v2/analytics/coursestatistics", "courseExternalId=x",
			func(ctx context.Context, c *Client) ([]string, error) {
				return collectKeys(c.Analytics.AllCourseStatistics(ctx, &CourseStatisticsListOptions{ListOptions: ListOptions{PageSize: 2}, CourseExternalID: "x"}),
					func(s CourseStatistics) string { return s.CourseID })
			}},
		{"AllLessonProgressEvents", "/v2/analytics/lesson-progress/events", "maxEventDateTime=" + windowToQ,
			func(ctx context.Context, c *Client) ([]string, error) {
				return collectKeys(c.Analytics.AllLessonProgressEvents(ctx, &LessonProgressEventListOptions{ListOptions: ListOptions{PageSize: 2}, MaxEventDateTime: windowTo}),
					func(e LessonProgressEvent) string { return e.LessonID })
			}},
		{"AllUserLessonProgress", "/v2/analytics/users/u-1/lesson-progress", "lessonId=l",
			func(ctx context.Context, c *Client) ([]string, error) {
				return collectKeys(c.Analytics.AllUserLessonProgress(ctx, "u-1", &UserLessonProgressListOptions{ListOptions: ListOptions{PageSize: 2}, LessonID: "l"}),
					func(p UserLessonProgress) string { return p.LessonID })
			}},
		{"AllUserLessonProgressEvents", "/v2/analytics/users/u-1/lesson-progress/events", "minEventDateTime=" + windowFromQ,
			func(ctx context.Context, c *Client) ([]string, error) {
				return collectKeys(c.Analytics.AllUserLessonProgressEvents(ctx, "u-1", &UserLessonProgressEventListOptions{ListOptions: ListOptions{PageSize: 2}, MinEventDateTime: windowFrom}),
					func(e LessonProgressEvent) string { return e.LessonID })
			}},
		{"AllLessonStatistics", "/v2/analytics/lessonstatistics", "courseId=c",
			func(ctx context.Context, c *Client) ([]string, error) {
				return collectKeys(c.Analytics.AllLessonStatistics(ctx, &LessonStatisticsListOptions{ListOptions: ListOptions{PageSize: 2}, CourseID: "c"}),
					func(s LessonStatistics) string { return s.LessonID })
			}},
		{"AllSurveyQuestionDefinitions", "/v2/analytics/surveyquestiondefinitions", "lessonExternalId=y",
			func(ctx context.Context, c *Client) ([]string, error) {
				return collectKeys(c.Analytics.AllSurveyQuestionDefinitions(ctx, &SurveyQuestionDefinitionListOptions{ListOptions: ListOptions{PageSize: 2}, LessonExternalID: "y"}),
					func(d SurveyQuestionDefinition) string { return d.ID })
			}},
		{"AllSurveyAnswers", "/v2/analytics/surveyanswers", "userExternalId=e&endDateTime=" + windowToQ,
			func(ctx context.Context, c *Client) ([]string, error) {
				return collectKeys(c.Analytics.AllSurveyAnswers(ctx, &SurveyAnswerListOptions{ListOptions: ListOptions{PageSize: 2}, UserExternalID: "e", EndDateTime: windowTo}),
					func(a SurveyAnswer) string { return a.ID })
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkAllPages(t, tt.path, tt.filters, tt.run) })
	}
}

func TestAnalyticsOptionsEmbedListOptions(t *testing.T) {
	t.Parallel()
	for _, o := range []any{
		AttemptListOptions{}, CourseProgressListOptions{}, CourseStatisticsListOptions{},
		LessonProgressEventListOptions{}, UserLessonProgressListOptions{}, UserLessonProgressEventListOptions{},
		LessonStatisticsListOptions{}, SurveyQuestionDefinitionListOptions{}, SurveyAnswerListOptions{},
	} {
		f, ok := reflect.TypeOf(o).FieldByName("ListOptions")
		assert.True(t, ok && f.Anonymous, "%T", o)
	}
}

func TestAnalyticsEscapesIDs(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	var paths []string
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.EscapedPath())
		_, _ = w.Write([]byte(`[]`))
	})
	ctx := context.Background()
	_, err := client.Analytics.ListUserLessonProgress(ctx, "u/1", nil)
	require.NoError(t, err)
	_, err = client.Analytics.ListUserLessonProgressEvents(ctx, "u 1", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"/v2/analytics/users/u%2F1/lesson-progress",
		"/v2/analytics/users/u%201/lesson-progress/events",
	}, paths)
}

func TestAnalyticsEmptyIDsAreRefused(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	refuseRequests(t, mux)
	ctx := context.Background()
	_, err := client.Analytics.ListUserLessonProgress(ctx, "", nil)
	checkRefused(t, err)
	_, err = firstErr(client.Analytics.AllUserLessonProgress(ctx, "", nil))
	checkRefused(t, err)
	_, err = client.Analytics.ListUserLessonProgressEvents(ctx, "", nil)
	checkRefused(t, err)
	_, err = firstErr(client.Analytics.AllUserLessonProgressEvents(ctx, "", nil))
	checkRefused(t, err)
}

// TestAttemptScoreAbsentIsNil: a score not sent, or not a number a float64
// holds, is nil, never 0; a score of 0 that was sent is kept.
func TestAttemptScoreAbsentIsNil(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]*float64{
		`{"id":"a"}`:               nil,
		`{"id":"a","score":1e400}`: nil,
		`{"id":"a","score":null}`:  nil,
		`{"id":"a","score":0}`:     Ptr(0.0),
		`{"id":"a","score":72.5}`:  Ptr(72.5),
	} {
		var a Attempt
		if _, err := lenient.Decode([]byte(body), &a); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		var p CourseProgress
		if _, err := lenient.Decode([]byte(body), &p); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		for _, got := range []*float64{a.Score, p.Score} {
			if (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Errorf("%s: score %v, want %v", body, got, want)
			}
		}
	}
}
