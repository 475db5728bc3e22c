package export

import (
	"context"
	"iter"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/safetyculture"
)

// SafetyCulture's analytics kinds, its learning paths and its per-user
// reads. The analytics mirror EdApp's and write EdApp's tables, as sent:
// their shapes are inferred, so a column whose field the SDK does not
// decode is read from the fields it kept. The date-filtered ones are
// incremental, fetched again from the cursor minus SafetyCultureOverlap.

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
func analyticsFrom(x *fetcher, p Plan, since func(*safetyculture.AnalyticsOptions, time.Time)) *safetyculture.AnalyticsOptions {
	o := &safetyculture.AnalyticsOptions{ListOptions: edapp.ListOptions{Page: max(p.Page, 1), PageSize: x.pageSize}}
	if since != nil {
		since(o, p.From)
	}
	return o
}

func fromStart(o *safetyculture.AnalyticsOptions, t time.Time) { o.StartDateTime = t }
func fromEvent(o *safetyculture.AnalyticsOptions, t time.Time) { o.MinEventDateTime = t }

// scAnalytics is k, whose columns are its table's, read account-wide.
func scAnalytics[T any](k Kind, read analyticsRead[T], since func(*safetyculture.AnalyticsOptions, time.Time)) Kind {
	k.Columns = scFieldsOf(k.Name)
	if k.Incremental {
		k.Overlap = SafetyCultureOverlap
	}
	k.fetch = func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
		w, err := x.walker(ctx, s)
		if err != nil {
			return err
		}
		return each(w, read(x.sc.Analytics, ctx, analyticsFrom(x, p, since), w.opts...), nil)
	}
	return k
}

// scPerUser is k, read one user at a time (only with Options.PerUser).
func scPerUser[T any](k Kind, read userAnalyticsRead[T], since func(*safetyculture.AnalyticsOptions, time.Time)) Kind {
	k.Columns, k.PerUser, k.PerParent = scFieldsOf(k.Name), true, true
	if k.Incremental {
		k.Overlap = SafetyCultureOverlap
	}
	k.fetch = func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
		users, err := scUserIDs(ctx, x, s)
		if err != nil {
			return err
		}
		return x.fanOut(ctx, s, users, func(ctx context.Context, userID string) error {
			w, err := x.walker(ctx, s)
			if err != nil {
				return err
			}
			return each(w, read(x.sc.Analytics, ctx, userID, analyticsFrom(x, Plan{From: p.From}, since), w.opts...), nil)
		})
	}
	return k
}

// scUsersKind is the users feed, deactivated users too (their history
// stays theirs); the per-user kinds read its ids.
var scUsersKind = Kind{Name: "users", Columns: jsonFields[scUserRow](), fetch: func(ctx context.Context, x *fetcher, _ Plan, s *stream) error {
	var refs []userRef
	err := listAll(ctx, x, s, scUsers(ctx, x), func(u scUserRow) { refs = append(refs, userRef{id: u.ID}) })
	x.users.set(refs, err == nil)
	return err
}}

func scUsers(ctx context.Context, x *fetcher) func(o []edapp.RequestOption) seqOf[scUserRow] {
	return func(o []edapp.RequestOption) seqOf[scUserRow] {
		return mapSeq(safetyculture.WalkFeed(ctx, x.sc.Feeds.ListUsers, &safetyculture.FeedOptions{IncludeInactive: true}, o...), userRowOf)
	}
}

// scUserIDs lists the users for the per-user kinds: the users kind's walk
// of the run, or one of its own.
func scUserIDs(ctx context.Context, x *fetcher, s *stream) ([]string, error) {
	refs, err := parents(ctx, x, s, x.users, scUsers(ctx, x), func(u scUserRow) userRef { return userRef{id: u.ID} })
	ids := make([]string, len(refs))
	for i, u := range refs {
		ids[i] = u.id
	}
	return ids, err
}

// scLearningPathsKind is the learning paths, mirrored.
var scLearningPathsKind = Kind{Name: "learning_paths", Columns: scFieldsOf("learning_paths"), fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
	return listAll(ctx, x, s, func(o []edapp.RequestOption) seqOf[safetyculture.LearningPath] {
		return x.sc.Paths.All(ctx, &edapp.ListOptions{Page: max(p.Page, 1), PageSize: x.pageSize}, o...)
	}, nil)
}}

type sa = safetyculture.AnalyticsService

// The analytics kinds, then the per-user ones (scKinds lists them).
var (
	scCourseStatisticsKind = scAnalytics(Kind{Name: "course_statistics"}, (*sa).AllCourseStatistics, nil)
	scLessonStatisticsKind = scAnalytics(Kind{Name: "lesson_statistics"}, (*sa).AllLessonStatistics, nil)
	scSlideStatisticsKind  = scAnalytics(Kind{Name: "slide_statistics"}, (*sa).AllSlideStatistics, nil)
	scSurveyQuestionsKind  = scAnalytics(Kind{Name: "survey_questions"}, (*sa).AllSurveyQuestionDefinitions, nil)
	scRapidRefreshKind     = scAnalytics(Kind{Name: "rapid_refresh_answers"}, (*sa).AllRapidRefreshAnswers, nil)
	scProgressEventsKind   = scAnalytics(Kind{Name: "lesson_progress_events", Incremental: true, DateField: "eventDateTime", KeyFields: progressEventKey},
		(*sa).AllLessonProgressEvents, fromEvent)
	scSurveyAnswersKind = scAnalytics(Kind{Name: "survey_answers", Incremental: true, DateField: "answeredDateTime", KeyFields: []string{"id"}},
		(*sa).AllSurveyAnswers, fromStart)
	scUserLessonProgressKind = scPerUser(Kind{Name: "user_lesson_progress"}, (*sa).AllUserLessonProgress, nil)
	scUserProgressEventsKind = scPerUser(Kind{Name: "user_lesson_progress_events", Incremental: true, DateField: "eventDateTime", KeyFields: progressEventKey},
		(*sa).AllUserLessonProgressEvents, fromEvent)
	scUserSlideStatisticsKind = scPerUser(Kind{Name: "user_slide_statistics"}, (*sa).AllUserSlideStatistics, nil)
)
