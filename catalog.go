package edapp

import (
	"context"
	"iter"

	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/lenient"
)

// CatalogService covers the v2 catalog: course collections, courses and lessons.
//
// Course collections (optional) contain courses, which contain lessons; a
// course can also sit at the root of the catalog, outside any collection.
// Inferred: the vendor does not document the fields of catalog records; the
// SDK follows the vendor's SDK and keeps what it does not know in Extra.
type CatalogService service

// CourseCollection is a course collection of the catalog. The SDK reads id,
// externalId (the vendor's help page lists it), title and description, and
// keeps every other field in Extra.
type CourseCollection struct {
	ID          string    `json:"id"`
	ExternalID  string    `json:"externalId"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Extra       RawFields `json:"-"`
}

// Course is a course of the catalog. Decoding accepts the creation datetime as
// "createdDateTime" or "createDateTime"; encoding writes "createdDateTime".
type Course struct {
	ID          string `json:"id"`
	ExternalID  string `json:"externalId"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// Status is the course's publication status, as the service sends it.
	Status string `json:"status"`
	Locale string `json:"locale"`
	// Duration is the course's duration as the service sends it (an
	// integer; its unit is not documented).
	Duration         int       `json:"duration"`
	ThumbnailURL     string    `json:"thumbnailUrl"`
	CreatedDateTime  Time      `json:"createdDateTime"`
	ModifiedDateTime Time      `json:"modifiedDateTime"`
	Extra            RawFields `json:"-"`
}

// The other spelling of Course's creation datetime lives in the decoder's
// table, so the record carries only its documented fields.
func init() {
	lenient.Alias[Course](lenient.Spelling{Name: "createDateTime", Field: "CreatedDateTime"})
}

// Lesson is a lesson of a course. A lesson has a minimum score, whose JSON
// name is not known: the SDK reads "minimumScore", and keeps every field it
// does not know in Extra, so the score is there under any other name.
type Lesson struct {
	ID          string `json:"id"`
	ExternalID  string `json:"externalId"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// Status is the lesson's publication status, as the service sends it.
	Status   string `json:"status"`
	CourseID string `json:"courseId"`
	// MinimumScore is the lesson's minimum score, read from "minimumScore".
	MinimumScore float64   `json:"minimumScore"`
	Extra        RawFields `json:"-"`
}

// ListCollections lists one page of course collections: GET
// /v2/catalog/coursecollections, the documented spelling (the vendor's SDK
// writes courseCollections).
//
// EdApp API: GET /v2/catalog/coursecollections
func (s *CatalogService) ListCollections(ctx context.Context, opts *ListOptions, reqOpts ...RequestOption) (*Page[CourseCollection], error) {
	return listPage[CourseCollection](ctx, s.client, ids.Fill("/v2/catalog/coursecollections"), opts, reqOpts...)
}

// AllCollections iterates over every course collection (see ListCollections).
//
// EdApp API: GET /v2/catalog/coursecollections (every page)
func (s *CatalogService) AllCollections(ctx context.Context, opts *ListOptions, reqOpts ...RequestOption) iter.Seq2[CourseCollection, error] {
	return all(ctx, opts, s.ListCollections, reqOpts)
}

// ListCollectionCourses lists one page of the courses of a collection: GET
// /v2/catalog/coursecollections/{collectionId}/courses.
//
// EdApp API: GET /v2/catalog/coursecollections/{collectionId}/courses
func (s *CatalogService) ListCollectionCourses(ctx context.Context, collectionID string, opts *ListOptions, reqOpts ...RequestOption) (*Page[Course], error) {
	if err := ids.Require("collectionID", collectionID); err != nil {
		return nil, err
	}
	return listPage[Course](ctx, s.client, ids.Fill("/v2/catalog/coursecollections/{collectionId}/courses", collectionID), opts, reqOpts...)
}

// AllCollectionCourses iterates over every course of a collection (see
// ListCollectionCourses). An empty collectionID yields [ErrInvalidInput] once.
//
// EdApp API: GET /v2/catalog/coursecollections/{collectionId}/courses (every page)
func (s *CatalogService) AllCollectionCourses(ctx context.Context, collectionID string, opts *ListOptions, reqOpts ...RequestOption) iter.Seq2[Course, error] {
	return all(ctx, opts, func(ctx context.Context, o *ListOptions, ro ...RequestOption) (*Page[Course], error) {
		return s.ListCollectionCourses(ctx, collectionID, o, ro...)
	}, reqOpts)
}

// ListCourses lists one page of all courses of the catalog, in collections
// or not: GET /v2/catalog/courses.
//
// EdApp API: GET /v2/catalog/courses
func (s *CatalogService) ListCourses(ctx context.Context, opts *ListOptions, reqOpts ...RequestOption) (*Page[Course], error) {
	return listPage[Course](ctx, s.client, ids.Fill("/v2/catalog/courses"), opts, reqOpts...)
}

// AllCourses iterates over every course of the catalog (see ListCourses).
//
// EdApp API: GET /v2/catalog/courses (every page)
func (s *CatalogService) AllCourses(ctx context.Context, opts *ListOptions, reqOpts ...RequestOption) iter.Seq2[Course, error] {
	return all(ctx, opts, s.ListCourses, reqOpts)
}

// Lessons lists the lessons of a course: GET
// /v2/catalog/courses/{courseId}/lessons. The service answers a bare array,
// unpaged (inferred from the vendor's SDK); the paged envelope is accepted
// too, and then every page is read. The service's lesson records
// probably carry no course id, so a lesson without one gets courseID.
//
// EdApp API: GET /v2/catalog/courses/{courseId}/lessons
func (s *CatalogService) Lessons(ctx context.Context, courseID string, reqOpts ...RequestOption) ([]Lesson, error) {
	if err := ids.Require("courseID", courseID); err != nil {
		return nil, err
	}
	lessons, err := listAll[Lesson](ctx, s.client, ids.Fill("/v2/catalog/courses/{courseId}/lessons", courseID), reqOpts)
	for i := range lessons {
		if lessons[i].CourseID == "" {
			lessons[i].CourseID = courseID
		}
	}
	return lessons, err
}
