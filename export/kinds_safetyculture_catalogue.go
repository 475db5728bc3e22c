package export

import (
	"cmp"
	"context"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture"
)

var scCoursesKind = Kind{Name: "courses", Columns: jsonFields[scCourseRow](), fetch: func(ctx context.Context, x *fetcher, _ Plan, s *stream) error {
	var ids []string
	err := listAll(ctx, x, s, func(o []edapp.RequestOption) seqOf[scCourseRow] {
		return mapSeq(x.sc.Courses.All(ctx, nil, o...), courseRowOf)
	}, func(c scCourseRow) { ids = append(ids, c.ID) })
	x.courses.set(ids, err == nil)
	return err
}}

var scCollectionsKind = Kind{Name: "collections", Columns: jsonFields[scCollectionRow](), fetch: func(ctx context.Context, x *fetcher, _ Plan, s *stream) error {
	var ids []string
	err := listAll(ctx, x, s, func(o []edapp.RequestOption) seqOf[scCollectionRow] {
		return mapSeq(x.sc.Collections.All(ctx, nil, o...), func(c safetyculture.CourseCollection) scCollectionRow {
			return scCollectionRow{c.ID, c.Title, c.Description, scRow{c}}
		})
	}, func(c scCollectionRow) { ids = append(ids, c.ID) })
	x.collections.set(ids, err == nil)
	return err
}}

var scLessonsKind = Kind{Name: "lessons", PerParent: true, Columns: jsonFields[scLessonRow](), fetch: func(ctx context.Context, x *fetcher, _ Plan, s *stream) error {
	courses, err := parents(ctx, x, s, x.courses, func(o []edapp.RequestOption) seqOf[safetyculture.Course] {
		return x.sc.Courses.All(ctx, nil, o...)
	}, func(c safetyculture.Course) string { return c.ID })
	if err != nil {
		return err
	}
	return oneEach(ctx, x, s, courses, x.sc.Courses.Lessons, func(courseID string, l safetyculture.Lesson) any {
		return scLessonRow{l.ID, cmp.Or(l.CourseID, courseID), l.ExternalID, l.Title, l.Description, l.Status, l.MinimumScore, scRow{l}}
	})
}}

var scCollectionCoursesKind = Kind{Name: "collection_courses", PerParent: true, Columns: []string{"collectionId", "courseId"}, fetch: func(ctx context.Context, x *fetcher, _ Plan, s *stream) error {
	collections, err := parents(ctx, x, s, x.collections, func(o []edapp.RequestOption) seqOf[safetyculture.CourseCollection] {
		return x.sc.Collections.All(ctx, nil, o...)
	}, func(c safetyculture.CourseCollection) string { return c.ID })
	if err != nil {
		return err
	}
	return x.fanOut(ctx, s, collections, func(ctx context.Context, id string) error {
		w, err := x.walker(ctx, s)
		if err != nil {
			return err
		}
		return each(w, x.sc.Collections.AllCourses(ctx, id, nil, w.opts...), func(c safetyculture.Course) error {
			return s.emit(collectionCourseRow{id, c.ID})
		})
	})
}}

// SafetyCultureOverlap is how far before its cursor a SafetyCulture
// analytics kind is fetched again: its analytics arrive 30 minutes to 2
// hours late.
const SafetyCultureOverlap = 2*time.Hour + 15*time.Minute

// scAttemptsKind is the lesson attempts, whose fields are EdApp's: written
// as sent.
var scAttemptsKind = Kind{Name: "attempts", Columns: jsonFields[safetyculture.LessonAttempt](), Incremental: true,
	DateField: "startedDateTime", OpenField: "completedDateTime", KeyFields: []string{"id", "completedDateTime"}, Overlap: SafetyCultureOverlap,
	fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
		w, err := x.walker(ctx, s)
		if err != nil {
			return err
		}
		o := &safetyculture.AnalyticsOptions{ListOptions: edapp.ListOptions{Page: max(p.Page, 1), PageSize: x.pageSize}, StartDateTime: p.From}
		return each(w, x.sc.Analytics.AllLessonAttempts(ctx, o, w.opts...), nil)
	}}
