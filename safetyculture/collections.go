package safetyculture

import (
	"context"
	"iter"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/ids"
)

// CollectionsService holds the course collection operations.
type CollectionsService service

// CourseCollection is a collection of courses. Its fields were not seen;
// the SDK reads id, title and description, as EdApp's collections have,
// and keeps the rest in Extra.
type CourseCollection struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Extra       edapp.RawFields `json:"-"`
	raw         string          // the record as received; see Raw
}

func collectionKey(c CourseCollection) string { return c.ID }

// List returns one page of course collections.
//
// SafetyCulture API: GET /training/collections/v1
func (s *CollectionsService) List(ctx context.Context, opts *edapp.ListOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[CourseCollection], error) {
	return listPage[CourseCollection](ctx, s.client, ids.Fill(routeCollections), opts, reqOpts)
}

// All iterates over every course collection.
//
// SafetyCulture API: GET /training/collections/v1
func (s *CollectionsService) All(ctx context.Context, opts *edapp.ListOptions, reqOpts ...edapp.RequestOption) iter.Seq2[CourseCollection, error] {
	return all(ctx, s.client, ids.Fill(routeCollections), opts, reqOpts, collectionKey)
}

// ListCourses returns one page of a collection's courses.
//
// SafetyCulture API: GET /training/collections/v1/{courseCollectionId}/courses
func (s *CollectionsService) ListCourses(ctx context.Context, collectionID string, opts *edapp.ListOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[Course], error) {
	if err := ids.Require("collectionID", collectionID); err != nil {
		return nil, err
	}
	return listPage[Course](ctx, s.client, ids.Fill(routeCollectionCourses, collectionID), opts, reqOpts)
}

// AllCourses iterates over every course of a collection.
//
// SafetyCulture API: GET /training/collections/v1/{courseCollectionId}/courses
func (s *CollectionsService) AllCourses(ctx context.Context, collectionID string, opts *edapp.ListOptions, reqOpts ...edapp.RequestOption) iter.Seq2[Course, error] {
	if err := ids.Require("collectionID", collectionID); err != nil {
		return failed[Course](err)
	}
	return all(ctx, s.client, ids.Fill(routeCollectionCourses, collectionID), opts, reqOpts, courseKey)
}

// failed is an iterator that yields err once.
func failed[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}
