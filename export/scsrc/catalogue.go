package scsrc

import (
	"cmp"
	"context"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/internal/sdkwalk"
	"github.com/edapp-go/edapp/safetyculture"
)

// collectionCourseRow is one course's place in one collection.
type collectionCourseRow struct {
	CollectionID string `json:"collectionId"`
	CourseID     string `json:"courseId"`
}

var scCoursesKind = kind{Kind: export.Kind{Name: "courses", Columns: jsonFields[scCourseRow]()}, fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
	var ids []string
	err := sdkwalk.List(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[scCourseRow] {
		return mapSeq(src.c.Courses.All(ctx, nil, o...), courseRowOf)
	}, func(c scCourseRow) { ids = append(ids, c.ID) })
	export.Share(f, ids, err == nil)
	return err
}}

var scCollectionsKind = kind{Kind: export.Kind{Name: "collections", Columns: jsonFields[scCollectionRow]()}, fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
	var ids []string
	err := sdkwalk.List(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[scCollectionRow] {
		return mapSeq(src.c.Collections.All(ctx, nil, o...), func(c safetyculture.CourseCollection) scCollectionRow {
			return scCollectionRow{c.ID, c.Title, c.Description, scRow{c}}
		})
	}, func(c scCollectionRow) { ids = append(ids, c.ID) })
	export.Share(f, ids, err == nil)
	return err
}}

var scLessonsKind = kind{Kind: export.Kind{Name: "lessons", PerParent: true, Columns: jsonFields[scLessonRow](), Needs: []string{"courses"}},
	fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
		courses, err := sdkwalk.Parents(ctx, f, "courses", func(o []edapp.RequestOption) sdkwalk.Seq[safetyculture.Course] {
			return src.c.Courses.All(ctx, nil, o...)
		}, func(c safetyculture.Course) string { return c.ID })
		if err != nil {
			return err
		}
		return sdkwalk.OneEach(ctx, f, courses, src.c.Courses.Lessons, func(courseID string, l safetyculture.Lesson) scLessonRow {
			return scLessonRow{l.ID, cmp.Or(l.CourseID, courseID), l.ExternalID, l.Title, l.Description, l.Status, l.MinimumScore, scRow{l}}
		})
	}}

var scCollectionCoursesKind = kind{Kind: export.Kind{Name: "collection_courses", PerParent: true, Columns: []string{"collectionId", "courseId"}, Needs: []string{"collections"}},
	fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
		collections, err := sdkwalk.Parents(ctx, f, "collections", func(o []edapp.RequestOption) sdkwalk.Seq[safetyculture.CourseCollection] {
			return src.c.Collections.All(ctx, nil, o...)
		}, func(c safetyculture.CourseCollection) string { return c.ID })
		if err != nil {
			return err
		}
		return sdkwalk.PerParent(ctx, f, collections, func(ctx context.Context, id string, o []edapp.RequestOption) sdkwalk.Seq[safetyculture.Course] {
			return src.c.Collections.AllCourses(ctx, id, nil, o...)
		}, func(id string, c safetyculture.Course) collectionCourseRow { return collectionCourseRow{id, c.ID} })
	}}

// Overlap is how far before its cursor a SafetyCulture analytics kind is
// fetched again: its analytics arrive 30 minutes to 2 hours late. It is
// the least export.Options.Overlap the source takes.
const Overlap = 2*time.Hour + 15*time.Minute

// scAttemptsKind is the lesson attempts, whose fields are EdApp's: written
// as sent.
var scAttemptsKind = kind{Kind: export.Kind{Name: "attempts", Columns: jsonFields[safetyculture.LessonAttempt](), Incremental: true,
	DateField: "startedDateTime", OpenField: "completedDateTime", KeyFields: []string{"id", "completedDateTime"}, Overlap: Overlap},
	fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
		w, err := sdkwalk.Start(ctx, f)
		if err != nil {
			return err
		}
		p := f.Plan()
		o := &safetyculture.AnalyticsOptions{ListOptions: edapp.ListOptions{Page: max(p.Page, 1), PageSize: f.PageSize()}, StartDateTime: p.From}
		return sdkwalk.Each(w, src.c.Analytics.AllLessonAttempts(ctx, o, w.Opts...), nil)
	}}
