package export

import (
	"context"
	"slices"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/dbschema"
)

// Kind is one kind of record the export fetches. A destination reads its
// fields; the engine alone fetches it.
type Kind struct {
	Name    string   // the table, file (mirrored kinds) or directory (incremental kinds)
	Columns []string // CSV columns, in order: the record's JSON field names (its table's Fields)
	PerUser bool     // costs one request per user; only with Options.PerUser
	// PerParent kinds are fetched with one list per parent (group, course,
	// collection, user), or read from another kind's walk (group_members,
	// from the users'), so no single total count drives their progress.
	PerParent bool

	// Incremental kinds have a date filter: a run fetches them from the
	// cursor minus Overlap and upserts. The other kinds are fetched in full
	// and mirrored. DateField is the record field the filter bounds; empty
	// when the filter bounds a time the records do not show (course
	// progress: the time of the last change). KeyFields identify a record
	// in the files destination, which keeps every version of a record.
	Incremental bool
	DateField   string
	KeyFields   []string
	// OpenField, when set, is a date field that is empty while a record is
	// open (an attempt not yet completed): such records are fetched again
	// while younger than Options.OpenWindow.
	OpenField string
	// Overlap, when above 0, replaces the package's Overlap for the kind:
	// a service whose records arrive late needs more. Options.Overlap
	// replaces it for a run.
	Overlap time.Duration
	// Remirror marks an incremental kind whose filter cannot show a
	// deletion (a course progress reset leaves no row to fetch): a walk
	// from no lower bound (Plan.From zero) is a full one, after which a
	// destination that can drops the rows the walk did not see, as for a
	// mirrored kind, and records the walk as its Plan.Fetched; an
	// incremental walk moves the cursor only. The engine plans a full walk
	// when the last one is older than Options.MaxAge (DefaultMirrorAge
	// when 0), or when the service does not honour the filter.
	Remirror bool

	// fetch sends every record to s, from p.
	fetch func(ctx context.Context, x *fetcher, p Plan, s *stream) error
	// probe, for a Remirror kind, asks the service whether it honours
	// the kind's filter; false: every walk is a full one. waited is the
	// time its request waited for the budget, which counts as the kind's.
	probe func(ctx context.Context, x *fetcher, now time.Time) (honoured bool, waited time.Duration, err error)
}

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

// kinds lists every kind, in the order the export runs them.
var kinds = []Kind{
	{
		Name:    "users",
		Columns: fieldsOf("users"),
		fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
			var refs []userRef
			err := listAll(ctx, x, s, func(o []edapp.RequestOption) seqOf[edapp.User] {
				return x.c.Users.All(ctx, &edapp.UserListOptions{ListOptions: x.listOptions(p)}, o...)
			}, func(u edapp.User) { refs = append(refs, userRef{u.ID, u.ExternalID, u.UserGroups}) })
			x.users.set(refs, err == nil && p.Page <= 1)
			return err
		},
	},
	{
		Name:    "groups",
		Columns: fieldsOf("groups"),
		fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
			var refs []groupRef
			err := listAll(ctx, x, s, func(o []edapp.RequestOption) seqOf[edapp.UserGroup] {
				return x.c.UserGroups.All(ctx, x.listFrom(p), o...)
			}, func(g edapp.UserGroup) { refs = append(refs, groupRef{g.ID, g.HasChildren}) })
			x.groups.set(refs, err == nil && p.Page <= 1)
			return err
		},
	},
	{
		// group_members is read from each user's userGroups: the users walk
		// of the run, or one of its own when users is not exported.
		Name:      "group_members",
		PerParent: true,
		Columns:   fieldsOf("group_members"),
		fetch: func(ctx context.Context, x *fetcher, _ Plan, s *stream) error {
			users, err := x.usersOf(ctx, s)
			if err != nil {
				return err
			}
			for _, u := range users {
				for i, g := range u.groups {
					if g == "" || slices.Contains(u.groups[:i], g) {
						continue
					}
					if err := s.emit(memberRow{g, u.id, u.externalID}); err != nil {
						return err
					}
				}
			}
			return nil
		},
	},
	{
		Name:      "group_children",
		PerParent: true,
		Columns:   fieldsOf("group_children"),
		fetch: func(ctx context.Context, x *fetcher, _ Plan, s *stream) error {
			groups, err := x.groupsOf(ctx, s)
			if err != nil {
				return err
			}
			var parents []string
			for _, g := range groups {
				if g.hasChildren {
					parents = append(parents, g.id)
				}
			}
			return x.fanOut(ctx, s, parents, func(ctx context.Context, id string) error {
				w, err := x.walker(ctx, s)
				if err != nil {
					return err
				}
				return each(w, x.c.UserGroups.AllChildren(ctx, id, x.listOpts(), w.opts...), func(g edapp.UserGroup) error { return s.emit(childRow{id, g.ID}) })
			})
		},
	},
	{
		Name:    "collections",
		Columns: fieldsOf("collections"),
		fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
			var ids []string
			err := listAll(ctx, x, s, func(o []edapp.RequestOption) seqOf[edapp.CourseCollection] {
				return x.c.Catalog.AllCollections(ctx, x.listFrom(p), o...)
			}, func(c edapp.CourseCollection) { ids = append(ids, c.ID) })
			x.collections.set(ids, err == nil && p.Page <= 1)
			return err
		},
	},
	{
		Name:      "collection_courses",
		PerParent: true,
		Columns:   fieldsOf("collection_courses"),
		fetch: func(ctx context.Context, x *fetcher, _ Plan, s *stream) error {
			cols, err := x.collectionsOf(ctx, s)
			if err != nil {
				return err
			}
			return x.fanOut(ctx, s, cols, func(ctx context.Context, colID string) error {
				w, err := x.walker(ctx, s)
				if err != nil {
					return err
				}
				return each(w, x.c.Catalog.AllCollectionCourses(ctx, colID, x.listOpts(), w.opts...), func(c edapp.Course) error {
					return s.emit(collectionCourseRow{colID, c.ID})
				})
			})
		},
	},
	{
		Name:    "courses",
		Columns: fieldsOf("courses"),
		fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
			var ids []string
			err := listAll(ctx, x, s, func(o []edapp.RequestOption) seqOf[edapp.Course] {
				return x.c.Catalog.AllCourses(ctx, x.listFrom(p), o...)
			}, func(c edapp.Course) { ids = append(ids, c.ID) })
			x.courses.set(ids, err == nil && p.Page <= 1)
			return err
		},
	},
	{
		Name:      "lessons",
		PerParent: true,
		Columns:   fieldsOf("lessons"),
		fetch: func(ctx context.Context, x *fetcher, _ Plan, s *stream) error {
			courses, err := x.coursesOf(ctx, s)
			if err != nil {
				return err
			}
			return oneEach(ctx, x, s, courses, x.c.Catalog.Lessons, func(_ string, l edapp.Lesson) any { return l })
		},
	},
	{
		Name:    "course_statistics",
		Columns: fieldsOf("course_statistics"),
		fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
			w, err := x.walker(ctx, s)
			if err != nil {
				return err
			}
			return each(w, x.c.Analytics.AllCourseStatistics(ctx, &edapp.CourseStatisticsListOptions{ListOptions: x.listOptions(p)}, w.opts...), nil)
		},
	},
	{
		Name:    "lesson_statistics",
		Columns: fieldsOf("lesson_statistics"),
		fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
			w, err := x.walker(ctx, s)
			if err != nil {
				return err
			}
			return each(w, x.c.Analytics.AllLessonStatistics(ctx, &edapp.LessonStatisticsListOptions{ListOptions: x.listOptions(p)}, w.opts...), nil)
		},
	},
	{
		Name:    "survey_questions",
		Columns: fieldsOf("survey_questions"),
		fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
			w, err := x.walker(ctx, s)
			if err != nil {
				return err
			}
			return each(w, x.c.Analytics.AllSurveyQuestionDefinitions(ctx, &edapp.SurveyQuestionDefinitionListOptions{ListOptions: x.listOptions(p)}, w.opts...), nil)
		},
	},
	{
		Name:        "attempts",
		Columns:     attemptColumns,
		Incremental: true,
		DateField:   "startedDateTime",
		OpenField:   "completedDateTime",
		KeyFields:   []string{"id", "completedDateTime"},
		fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
			w, err := x.walker(ctx, s)
			if err != nil {
				return err
			}
			return each(w, x.c.Analytics.AllAttempts(ctx, &edapp.AttemptListOptions{ListOptions: x.listOptions(p), StartDateTime: p.From}, w.opts...), nil)
		},
	},
	{
		Name:        "course_progress",
		Columns:     courseProgressColumns,
		Incremental: true,
		KeyFields:   courseProgressColumns,
		fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
			w, err := x.walker(ctx, s)
			if err != nil {
				return err
			}
			return each(w, x.c.Analytics.AllCourseProgress(ctx, &edapp.CourseProgressListOptions{ListOptions: x.listOptions(p), ModifiedSinceDateTime: p.From}, w.opts...), nil)
		},
	},
	{
		Name:        "lesson_progress_events",
		Columns:     progressEventColumns,
		Incremental: true,
		DateField:   "eventDateTime",
		KeyFields:   progressEventKey,
		fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
			w, err := x.walker(ctx, s)
			if err != nil {
				return err
			}
			return each(w, x.c.Analytics.AllLessonProgressEvents(ctx, &edapp.LessonProgressEventListOptions{ListOptions: x.listOptions(p), MinEventDateTime: p.From}, w.opts...), nil)
		},
	},
	{
		Name:        "survey_answers",
		Columns:     fieldsOf("survey_answers"),
		Incremental: true,
		DateField:   "answeredDateTime",
		KeyFields:   []string{"id"},
		fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
			w, err := x.walker(ctx, s)
			if err != nil {
				return err
			}
			return each(w, x.c.Analytics.AllSurveyAnswers(ctx, &edapp.SurveyAnswerListOptions{ListOptions: x.listOptions(p), StartDateTime: p.From}, w.opts...), nil)
		},
	},
	{
		Name:      "user_lesson_progress",
		Columns:   fieldsOf("user_lesson_progress"),
		PerUser:   true,
		PerParent: true,
		fetch: func(ctx context.Context, x *fetcher, _ Plan, s *stream) error {
			return x.perUser(ctx, s, func(ctx context.Context, userID string) error {
				w, err := x.walker(ctx, s)
				if err != nil {
					return err
				}
				return each(w, x.c.Analytics.AllUserLessonProgress(ctx, userID, &edapp.UserLessonProgressListOptions{ListOptions: x.listOptions(Plan{})}, w.opts...), nil)
			})
		},
	},
	{
		Name:        "user_lesson_progress_events",
		Columns:     progressEventColumns,
		PerUser:     true,
		PerParent:   true,
		Incremental: true,
		DateField:   "eventDateTime",
		KeyFields:   progressEventKey,
		fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
			return x.perUser(ctx, s, func(ctx context.Context, userID string) error {
				w, err := x.walker(ctx, s)
				if err != nil {
					return err
				}
				return each(w, x.c.Analytics.AllUserLessonProgressEvents(ctx, userID, &edapp.UserLessonProgressEventListOptions{ListOptions: x.listOptions(Plan{}), MinEventDateTime: p.From}, w.opts...), nil)
			})
		},
	},
}

// Kinds returns every kind, in the order an export runs them.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// overlap is how far before its cursor the kind is fetched again.
func (k *Kind) overlap() time.Duration {
	if k.Overlap > 0 {
		return k.Overlap
	}
	return Overlap
}
