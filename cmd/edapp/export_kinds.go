package main

import (
	"context"
	"time"

	"github.com/edapp-go/edapp"
)

// kind is one kind of record the export writes.
type kind struct {
	name    string   // the file (full kinds) or directory (incremental kinds)
	columns []string // CSV columns, in order: the record's JSON field names
	perUser bool     // costs one request per user; only with --per-user
	// perParent kinds are fetched with one list per parent (group, course,
	// collection, user), so no single total count drives their bar.
	perParent bool

	// Incremental kinds have a date filter. keyFields identify a record
	// for removing duplicates; dateField is the record field the filter
	// bounds, whose latest value becomes the next cursor. An empty
	// dateField means the filter bounds a time the records do not show
	// (course progress: the time of the last change); the cursor is then
	// the time the run started, by this machine's clock.
	incremental bool
	keyFields   []string
	dateField   string

	// fetch sends every record to s. from is the lower date bound of an
	// incremental kind (zero: everything).
	fetch func(ctx context.Context, x *exporter, from time.Time, s *stream) error
}

// memberRow is one user's membership of one group.
type memberRow struct {
	GroupID        string `json:"groupId"`
	UserID         string `json:"userId"`
	UserExternalID string `json:"userExternalId"`
}

// collectionCourseRow is one course's place in one collection.
type collectionCourseRow struct {
	CollectionID string `json:"collectionId"`
	CourseID     string `json:"courseId"`
}

var (
	attemptColumns = []string{"id", "userId", "userExternalId", "courseId", "courseExternalId", "lessonId", "lessonExternalId",
		"startedDateTime", "completedDateTime", "score", "success", "earnedStars"}
	courseProgressColumns = []string{"userId", "userExternalId", "userName", "userFirstName", "userLastName",
		"courseId", "courseExternalId", "courseTitle", "unlocked", "unlockedDateTime", "opened", "openedDateTime",
		"completed", "completedDateTime", "lessonsTotal", "lessonsUnlocked", "lessonsCompleted", "archived",
		"percentageCompleted", "score"}
	progressEventColumns = []string{"userId", "userEmail", "userFirstName", "userLastName", "courseId", "courseTitle",
		"courseExternalId", "lessonId", "lessonTitle", "lessonExternalId", "eventName", "eventDateTime", "lessonScore"}
	progressEventKey = []string{"userId", "lessonId", "eventName", "eventDateTime"}
)

// kinds lists every kind, in the order the export runs them.
var kinds = []kind{
	{
		name:    "users",
		columns: []string{"id", "name", "email", "firstName", "lastName", "externalId", "timeZone", "roles", "userGroups", "managedUserGroups", "customFields", "lastActiveDate"},
		fetch: func(ctx context.Context, x *exporter, _ time.Time, s *stream) error {
			var ids []string
			r := new(edapp.Response)
			err := each(s, r, x.c.Users.All(ctx, &edapp.UserListOptions{ListOptions: x.pageSize()}, x.opts(r)...), func(u edapp.User) { ids = append(ids, u.ID) })
			if err == nil {
				x.userIDs = ids
			}
			return err
		},
	},
	{
		name:    "groups",
		columns: []string{"id", "name", "inviteCode", "hasChildren"},
		fetch: func(ctx context.Context, x *exporter, _ time.Time, s *stream) error {
			var ids []string
			r := new(edapp.Response)
			err := each(s, r, x.c.UserGroups.All(ctx, x.listOpts(), x.opts(r)...), func(g edapp.UserGroup) { ids = append(ids, g.ID) })
			if err == nil {
				x.groupIDs = ids
			}
			return err
		},
	},
	{
		name:      "group_members",
		perParent: true,
		columns:   []string{"groupId", "userId", "userExternalId"},
		fetch: func(ctx context.Context, x *exporter, _ time.Time, s *stream) error {
			groups, err := x.ids(ctx, &x.groupIDs, func(ctx context.Context) ([]string, error) {
				return idsOf(x.c.UserGroups.All(ctx, x.listOpts(), x.opts(nil)...), func(g edapp.UserGroup) string { return g.ID })
			})
			if err != nil {
				return err
			}
			return x.fanOut(ctx, s, groups, func(ctx context.Context, groupID string) error {
				r := new(edapp.Response)
				for u, err := range x.c.UserGroups.AllUsers(ctx, groupID, x.listOpts(), x.opts(r)...) {
					if err != nil {
						return err
					}
					s.page(r)
					if err := s.emit(memberRow{groupID, u.ID, u.ExternalID}); err != nil {
						return err
					}
				}
				return nil
			})
		},
	},
	{
		name:    "collections",
		columns: []string{"id", "title", "description"},
		fetch: func(ctx context.Context, x *exporter, _ time.Time, s *stream) error {
			var ids []string
			r := new(edapp.Response)
			err := each(s, r, x.c.Catalog.AllCollections(ctx, x.listOpts(), x.opts(r)...), func(c edapp.CourseCollection) { ids = append(ids, c.ID) })
			if err == nil {
				x.collectionIDs = ids
			}
			return err
		},
	},
	{
		name:      "collection_courses",
		perParent: true,
		columns:   []string{"collectionId", "courseId"},
		fetch: func(ctx context.Context, x *exporter, _ time.Time, s *stream) error {
			cols, err := x.ids(ctx, &x.collectionIDs, func(ctx context.Context) ([]string, error) {
				return idsOf(x.c.Catalog.AllCollections(ctx, x.listOpts(), x.opts(nil)...), func(c edapp.CourseCollection) string { return c.ID })
			})
			if err != nil {
				return err
			}
			return x.fanOut(ctx, s, cols, func(ctx context.Context, colID string) error {
				r := new(edapp.Response)
				for c, err := range x.c.Catalog.AllCollectionCourses(ctx, colID, x.listOpts(), x.opts(r)...) {
					if err != nil {
						return err
					}
					s.page(r)
					if err := s.emit(collectionCourseRow{colID, c.ID}); err != nil {
						return err
					}
				}
				return nil
			})
		},
	},
	{
		name:    "courses",
		columns: []string{"id", "externalId", "title", "description", "status", "locale", "duration", "thumbnailUrl", "createdDateTime", "modifiedDateTime"},
		fetch: func(ctx context.Context, x *exporter, _ time.Time, s *stream) error {
			var ids []string
			r := new(edapp.Response)
			err := each(s, r, x.c.Catalog.AllCourses(ctx, x.listOpts(), x.opts(r)...), func(c edapp.Course) { ids = append(ids, c.ID) })
			if err == nil {
				x.courseIDs = ids
			}
			return err
		},
	},
	{
		name:      "lessons",
		perParent: true,
		columns:   []string{"id", "courseId", "externalId", "title", "description", "status", "minimumScore"},
		fetch: func(ctx context.Context, x *exporter, _ time.Time, s *stream) error {
			courses, err := x.ids(ctx, &x.courseIDs, func(ctx context.Context) ([]string, error) {
				return idsOf(x.c.Catalog.AllCourses(ctx, x.listOpts(), x.opts(nil)...), func(c edapp.Course) string { return c.ID })
			})
			if err != nil {
				return err
			}
			return x.fanOut(ctx, s, courses, func(ctx context.Context, courseID string) error {
				r := new(edapp.Response)
				lessons, err := x.c.Catalog.Lessons(ctx, courseID, x.opts(r)...)
				if err != nil {
					return err
				}
				s.page(r)
				for _, l := range lessons {
					if err := s.emit(l); err != nil {
						return err
					}
				}
				return nil
			})
		},
	},
	{
		name:    "course_statistics",
		columns: []string{"courseId", "totalUsers", "completedCount", "openedCount"},
		fetch: func(ctx context.Context, x *exporter, _ time.Time, s *stream) error {
			r := new(edapp.Response)
			return each(s, r, x.c.Analytics.AllCourseStatistics(ctx, &edapp.CourseStatisticsListOptions{ListOptions: x.pageSize()}, x.opts(r)...), nil)
		},
	},
	{
		name:    "lesson_statistics",
		columns: []string{"lessonId", "courseId", "lessonTitle", "totalUsers", "openedCount", "completedCount"},
		fetch: func(ctx context.Context, x *exporter, _ time.Time, s *stream) error {
			r := new(edapp.Response)
			return each(s, r, x.c.Analytics.AllLessonStatistics(ctx, &edapp.LessonStatisticsListOptions{ListOptions: x.pageSize()}, x.opts(r)...), nil)
		},
	},
	{
		name:    "survey_questions",
		columns: []string{"id", "courseId", "lessonId", "slideId", "questionType", "questionContent", "answers"},
		fetch: func(ctx context.Context, x *exporter, _ time.Time, s *stream) error {
			r := new(edapp.Response)
			return each(s, r, x.c.Analytics.AllSurveyQuestionDefinitions(ctx, &edapp.SurveyQuestionDefinitionListOptions{ListOptions: x.pageSize()}, x.opts(r)...), nil)
		},
	},
	{
		name:        "attempts",
		columns:     attemptColumns,
		incremental: true,
		dateField:   "startedDateTime",
		keyFields:   []string{"id", "completedDateTime"},
		fetch: func(ctx context.Context, x *exporter, from time.Time, s *stream) error {
			r := new(edapp.Response)
			return each(s, r, x.c.Analytics.AllAttempts(ctx, &edapp.AttemptListOptions{ListOptions: x.pageSize(), StartDateTime: from}, x.opts(r)...), nil)
		},
	},
	{
		name:        "course_progress",
		columns:     courseProgressColumns,
		incremental: true,
		keyFields:   courseProgressColumns,
		fetch: func(ctx context.Context, x *exporter, from time.Time, s *stream) error {
			r := new(edapp.Response)
			return each(s, r, x.c.Analytics.AllCourseProgress(ctx, &edapp.CourseProgressListOptions{ListOptions: x.pageSize(), ModifiedSinceDateTime: from}, x.opts(r)...), nil)
		},
	},
	{
		name:        "lesson_progress_events",
		columns:     progressEventColumns,
		incremental: true,
		dateField:   "eventDateTime",
		keyFields:   progressEventKey,
		fetch: func(ctx context.Context, x *exporter, from time.Time, s *stream) error {
			r := new(edapp.Response)
			return each(s, r, x.c.Analytics.AllLessonProgressEvents(ctx, &edapp.LessonProgressEventListOptions{ListOptions: x.pageSize(), MinEventDateTime: from}, x.opts(r)...), nil)
		},
	},
	{
		name: "survey_answers",
		columns: []string{"id", "courseId", "courseExternalId", "lessonId", "lessonExternalId", "slideId", "userId", "userExternalId",
			"attemptId", "questionId", "questionContent", "answerDefinitionId", "answerContent", "answeredDateTime"},
		incremental: true,
		dateField:   "answeredDateTime",
		keyFields:   []string{"id"},
		fetch: func(ctx context.Context, x *exporter, from time.Time, s *stream) error {
			r := new(edapp.Response)
			return each(s, r, x.c.Analytics.AllSurveyAnswers(ctx, &edapp.SurveyAnswerListOptions{ListOptions: x.pageSize(), StartDateTime: from}, x.opts(r)...), nil)
		},
	},
	{
		name:      "user_lesson_progress",
		columns:   []string{"userId", "courseId", "lessonId", "lessonTitle", "opened", "openedDateTime", "completed", "completedDateTime", "score", "attempts"},
		perUser:   true,
		perParent: true,
		fetch: func(ctx context.Context, x *exporter, _ time.Time, s *stream) error {
			return x.perUser(ctx, s, func(ctx context.Context, userID string) error {
				r := new(edapp.Response)
				return each(s, r, x.c.Analytics.AllUserLessonProgress(ctx, userID, &edapp.UserLessonProgressListOptions{ListOptions: x.pageSize()}, x.opts(r)...), nil)
			})
		},
	},
	{
		name:        "user_lesson_progress_events",
		columns:     progressEventColumns,
		perUser:     true,
		perParent:   true,
		incremental: true,
		dateField:   "eventDateTime",
		keyFields:   progressEventKey,
		fetch: func(ctx context.Context, x *exporter, from time.Time, s *stream) error {
			return x.perUser(ctx, s, func(ctx context.Context, userID string) error {
				r := new(edapp.Response)
				return each(s, r, x.c.Analytics.AllUserLessonProgressEvents(ctx, userID, &edapp.UserLessonProgressEventListOptions{ListOptions: x.pageSize(), MinEventDateTime: from}, x.opts(r)...), nil)
			})
		},
	},
}
