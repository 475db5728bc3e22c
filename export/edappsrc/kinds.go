package edappsrc

import (
	"context"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/internal/sdkwalk"
)

// memberRow is one user's membership of one group.
type memberRow struct {
	GroupID        string `json:"groupId"`
	UserID         string `json:"userId"`
	UserExternalID string `json:"userExternalId"`
}

// childRow is one group's place under its parent.
type childRow struct {
	ParentID string `json:"parentId"`
	ChildID  string `json:"childId"`
}

// collectionCourseRow is one course's place in one collection.
type collectionCourseRow struct {
	CollectionID string `json:"collectionId"`
	CourseID     string `json:"courseId"`
}

var (
	attemptColumns        = fieldsOf("attempts")
	courseProgressColumns = fieldsOf("course_progress")
	progressEventColumns  = fieldsOf("lesson_progress_events")
	progressEventKey      = []string{"userId", "lessonId", "eventName", "eventDateTime"}
)

// fieldsOf is the record fields the schema's table holds, in column
// order: a kind's columns are its table's, declared once in dbschema. A
// kind without a table has none, which TestKindsColumnsAreTheirTables
// reports.
func fieldsOf(table string) []string {
	t, _ := dbschema.Lookup(table)
	var out []string
	for _, c := range t.Columns {
		if c.Field != "" && c.Origin&dbschema.FromEdApp != 0 {
			out = append(out, c.Field) // SafetyCulture's own columns are NULL in EdApp's rows
		}
	}
	return out
}

// kind is one of EdApp's kinds, and how it is fetched with a Source's
// client.
type kind struct {
	export.Kind
	fetch func(ctx context.Context, src *Source, f *export.Fetch) error
}

// list is the list options of a walk from p's page.
func list(f *export.Fetch, p export.Plan) edapp.ListOptions {
	return edapp.ListOptions{PageSize: f.PageSize(), Page: max(p.Page, 1)}
}

// fromStart is the list options of a walk from its first page: a
// per-parent list, or one that lists another kind's records.
func fromStart(f *export.Fetch) *edapp.ListOptions {
	o := list(f, export.Plan{})
	return &o
}

// kinds lists every kind, in the order the export runs them.
var kinds = []kind{
	{Kind: export.Kind{Name: "users", Columns: fieldsOf("users")}, fetch: fetchUsers},
	{Kind: export.Kind{Name: "groups", Columns: fieldsOf("groups")}, fetch: fetchGroups},
	// group_members is read from each user's userGroups: the users walk
	// of the run, or one of its own when users is not exported.
	{Kind: export.Kind{Name: "group_members", PerParent: true, Columns: fieldsOf("group_members"), Needs: []string{"users"}}, fetch: fetchGroupMembers},
	{Kind: export.Kind{Name: "group_children", PerParent: true, Columns: fieldsOf("group_children"), Needs: []string{"groups"}}, fetch: fetchGroupChildren},
	{Kind: export.Kind{Name: "collections", Columns: fieldsOf("collections")}, fetch: fetchCollections},
	{Kind: export.Kind{Name: "collection_courses", PerParent: true, Columns: fieldsOf("collection_courses"), Needs: []string{"collections"}}, fetch: fetchCollectionCourses},
	{Kind: export.Kind{Name: "courses", Columns: fieldsOf("courses")}, fetch: fetchCourses},
	{Kind: export.Kind{Name: "lessons", PerParent: true, Columns: fieldsOf("lessons"), Needs: []string{"courses"}}, fetch: fetchLessons},
	{Kind: export.Kind{Name: "course_statistics", Columns: fieldsOf("course_statistics")}, fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
		return walk(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[edapp.CourseStatistics] {
			return src.c.Analytics.AllCourseStatistics(ctx, &edapp.CourseStatisticsListOptions{ListOptions: list(f, f.Plan())}, o...)
		})
	}},
	{Kind: export.Kind{Name: "lesson_statistics", Columns: fieldsOf("lesson_statistics")}, fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
		return walk(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[edapp.LessonStatistics] {
			return src.c.Analytics.AllLessonStatistics(ctx, &edapp.LessonStatisticsListOptions{ListOptions: list(f, f.Plan())}, o...)
		})
	}},
	{Kind: export.Kind{Name: "survey_questions", Columns: fieldsOf("survey_questions")}, fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
		return walk(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[edapp.SurveyQuestionDefinition] {
			return src.c.Analytics.AllSurveyQuestionDefinitions(ctx, &edapp.SurveyQuestionDefinitionListOptions{ListOptions: list(f, f.Plan())}, o...)
		})
	}},
	{Kind: export.Kind{Name: "attempts", Columns: attemptColumns, Incremental: true, DateField: "startedDateTime", OpenField: "completedDateTime",
		KeyFields: []string{"id", "completedDateTime"}}, fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
		return walk(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[edapp.Attempt] {
			return src.c.Analytics.AllAttempts(ctx, &edapp.AttemptListOptions{ListOptions: list(f, f.Plan()), StartDateTime: f.Plan().From}, o...)
		})
	}},
	{Kind: export.Kind{Name: "course_progress", Columns: courseProgressColumns, Incremental: true, KeyFields: courseProgressColumns},
		fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
			return walk(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[edapp.CourseProgress] {
				return src.c.Analytics.AllCourseProgress(ctx, &edapp.CourseProgressListOptions{ListOptions: list(f, f.Plan()), ModifiedSinceDateTime: f.Plan().From}, o...)
			})
		}},
	{Kind: export.Kind{Name: "lesson_progress_events", Columns: progressEventColumns, Incremental: true, DateField: "eventDateTime", KeyFields: progressEventKey},
		fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
			return walk(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[edapp.LessonProgressEvent] {
				return src.c.Analytics.AllLessonProgressEvents(ctx, &edapp.LessonProgressEventListOptions{ListOptions: list(f, f.Plan()), MinEventDateTime: f.Plan().From}, o...)
			})
		}},
	{Kind: export.Kind{Name: "survey_answers", Columns: fieldsOf("survey_answers"), Incremental: true, DateField: "answeredDateTime", KeyFields: []string{"id"}},
		fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
			return walk(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[edapp.SurveyAnswer] {
				return src.c.Analytics.AllSurveyAnswers(ctx, &edapp.SurveyAnswerListOptions{ListOptions: list(f, f.Plan()), StartDateTime: f.Plan().From}, o...)
			})
		}},
	{Kind: export.Kind{Name: "user_lesson_progress", Columns: fieldsOf("user_lesson_progress"), PerUser: true, PerParent: true, Needs: []string{"users"}},
		fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
			return perUser(ctx, src, f, func(ctx context.Context, userID string, o []edapp.RequestOption) sdkwalk.Seq[edapp.UserLessonProgress] {
				return src.c.Analytics.AllUserLessonProgress(ctx, userID, &edapp.UserLessonProgressListOptions{ListOptions: *fromStart(f)}, o...)
			})
		}},
	{Kind: export.Kind{Name: "user_lesson_progress_events", Columns: progressEventColumns, PerUser: true, PerParent: true, Incremental: true,
		DateField: "eventDateTime", KeyFields: progressEventKey, Needs: []string{"users"}},
		fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
			return perUser(ctx, src, f, func(ctx context.Context, userID string, o []edapp.RequestOption) sdkwalk.Seq[edapp.LessonProgressEvent] {
				return src.c.Analytics.AllUserLessonProgressEvents(ctx, userID, &edapp.UserLessonProgressEventListOptions{ListOptions: *fromStart(f), MinEventDateTime: f.Plan().From}, o...)
			})
		}},
}
