package scsrc

import (
	"context"
	"iter"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/internal/sdkwalk"
	"github.com/edapp-go/edapp/safetyculture"
)

// SafetyCulture's analytics kinds, its learning paths and its per-user
// reads. The analytics mirror EdApp's and write EdApp's tables, as sent:
// their shapes are inferred, so a column whose field the SDK does not
// decode is read from the fields it kept. The date-filtered ones are
// incremental, fetched again from the cursor minus Overlap.

// scFieldsOf is the record fields of the table's columns that
// SafetyCulture fills, in column order: the columns of a kind whose
// records are written as sent.
func scFieldsOf(table string) []string {
	t, _ := dbschema.Lookup(table)
	var out []string
	for _, c := range t.Columns {
		if c.Field != "" && c.Origin&dbschema.FromSafetyCulture != 0 {
			out = append(out, c.Field)
		}
	}
	return out
}

// analyticsRead is one of the account-wide analytics reads, as a method
// expression: (*safetyculture.AnalyticsService).AllCourseStatistics.
type analyticsRead[T any] func(*safetyculture.AnalyticsService, context.Context, *safetyculture.AnalyticsOptions, ...edapp.RequestOption) iter.Seq2[T, error]

// userAnalyticsRead is one of the per-user analytics reads.
type userAnalyticsRead[T any] func(*safetyculture.AnalyticsService, context.Context, string, *safetyculture.AnalyticsOptions, ...edapp.RequestOption) iter.Seq2[T, error]

// analyticsFrom is the options of a read from p: its page, and, through
// since, the date filter of an incremental kind (nil for the others).
func analyticsFrom(f *export.Fetch, p export.Plan, since func(*safetyculture.AnalyticsOptions, time.Time)) *safetyculture.AnalyticsOptions {
	o := &safetyculture.AnalyticsOptions{ListOptions: edapp.ListOptions{Page: max(p.Page, 1), PageSize: f.PageSize()}}
	if since != nil {
		since(o, p.From)
	}
	return o
}

func fromStart(o *safetyculture.AnalyticsOptions, t time.Time) { o.StartDateTime = t }
func fromEvent(o *safetyculture.AnalyticsOptions, t time.Time) { o.MinEventDateTime = t }

// scAnalytics is k, whose columns are its table's, read account-wide.
func scAnalytics[T any](k export.Kind, read analyticsRead[T], since func(*safetyculture.AnalyticsOptions, time.Time)) kind {
	k.Columns = scFieldsOf(k.Name)
	if k.Incremental {
		k.Overlap = Overlap
	}
	return kind{Kind: k, fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
		w, err := sdkwalk.Start(ctx, f)
		if err != nil {
			return err
		}
		return sdkwalk.Each(w, read(src.c.Analytics, ctx, analyticsFrom(f, f.Plan(), since), w.Opts...), nil)
	}}
}

// scPerUser is k, read one user at a time (only with Options.PerUser).
func scPerUser[T any](k export.Kind, read userAnalyticsRead[T], since func(*safetyculture.AnalyticsOptions, time.Time)) kind {
	k.Columns, k.PerUser, k.PerParent, k.Needs = scFieldsOf(k.Name), true, true, []string{"users"}
	if k.Incremental {
		k.Overlap = Overlap
	}
	return kind{Kind: k, fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
		users, err := scUserIDs(ctx, src, f)
		if err != nil {
			return err
		}
		return sdkwalk.PerParent(ctx, f, users, func(ctx context.Context, userID string, o []edapp.RequestOption) sdkwalk.Seq[T] {
			return read(src.c.Analytics, ctx, userID, analyticsFrom(f, export.Plan{From: f.Plan().From}, since), o...)
		}, func(_ string, v T) T { return v })
	}}
}

// scUsersKind is the users feed, deactivated users too (their history
// stays theirs); the per-user kinds read its ids.
var scUsersKind = kind{Kind: export.Kind{Name: "users", Columns: jsonFields[scUserRow]()}, fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
	var ids []string
	err := sdkwalk.List(ctx, f, scUsers(ctx, src), func(u scUserRow) { ids = append(ids, u.ID) })
	export.Share(f, ids, err == nil)
	return err
}}

func scUsers(ctx context.Context, src *Source) func(o []edapp.RequestOption) sdkwalk.Seq[scUserRow] {
	return func(o []edapp.RequestOption) sdkwalk.Seq[scUserRow] {
		return mapSeq(safetyculture.WalkFeed(ctx, src.c.Feeds.ListUsers, &safetyculture.FeedOptions{IncludeInactive: true}, o...), userRowOf)
	}
}

// scUserIDs lists the users for the per-user kinds: the users kind's walk
// of the run, or one of its own.
func scUserIDs(ctx context.Context, src *Source, f *export.Fetch) ([]string, error) {
	return sdkwalk.Parents(ctx, f, "users", scUsers(ctx, src), func(u scUserRow) string { return u.ID })
}

// scLearningPathsKind is the learning paths, mirrored.
var scLearningPathsKind = kind{Kind: export.Kind{Name: "learning_paths", Columns: scFieldsOf("learning_paths")}, fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
	return sdkwalk.List(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[safetyculture.LearningPath] {
		return src.c.Paths.All(ctx, &edapp.ListOptions{Page: max(f.Plan().Page, 1), PageSize: f.PageSize()}, o...)
	}, nil)
}}

type sa = safetyculture.AnalyticsService

// The analytics kinds, then the per-user ones (scKinds lists them).
var (
	scCourseStatisticsKind = scAnalytics(export.Kind{Name: "course_statistics"}, (*sa).AllCourseStatistics, nil)
	scLessonStatisticsKind = scAnalytics(export.Kind{Name: "lesson_statistics"}, (*sa).AllLessonStatistics, nil)
	scSlideStatisticsKind  = scAnalytics(export.Kind{Name: "slide_statistics"}, (*sa).AllSlideStatistics, nil)
	scSurveyQuestionsKind  = scAnalytics(export.Kind{Name: "survey_questions"}, (*sa).AllSurveyQuestionDefinitions, nil)
	scRapidRefreshKind     = scAnalytics(export.Kind{Name: "rapid_refresh_answers"}, (*sa).AllRapidRefreshAnswers, nil)
	scProgressEventsKind   = scAnalytics(export.Kind{Name: "lesson_progress_events", Incremental: true, DateField: "eventDateTime", KeyFields: progressEventKey},
		(*sa).AllLessonProgressEvents, fromEvent)
	scSurveyAnswersKind = scAnalytics(export.Kind{Name: "survey_answers", Incremental: true, DateField: "answeredDateTime", KeyFields: []string{"id"}},
		(*sa).AllSurveyAnswers, fromStart)
	scUserLessonProgressKind = scPerUser(export.Kind{Name: "user_lesson_progress"}, (*sa).AllUserLessonProgress, nil)
	scUserProgressEventsKind = scPerUser(export.Kind{Name: "user_lesson_progress_events", Incremental: true, DateField: "eventDateTime", KeyFields: progressEventKey},
		(*sa).AllUserLessonProgressEvents, fromEvent)
	scUserSlideStatisticsKind = scPerUser(export.Kind{Name: "user_slide_statistics"}, (*sa).AllUserSlideStatistics, nil)
)

// progressEventKey identifies a lesson progress event.
var progressEventKey = []string{"userId", "lessonId", "eventName", "eventDateTime"}
