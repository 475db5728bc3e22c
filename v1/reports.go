package v1

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/edapp-go/edapp"

	"github.com/edapp-go/edapp/internal/ids"
)

// ReportsService covers the v1 reports: GET /v1/reports/user/{id}/course/{id}
// and GET /v1/reports/activities.
type ReportsService service

// The interaction types the vendor documents. Others may come;
// Interaction.Type keeps whatever the service sends.
const (
	InteractionView  = "view"  // a slide was viewed; Duration is set
	InteractionSlide = "slide" // a slide was answered; Result is set
)

// CourseReport is the user course report: one course with the user's
// progress in it and every lesson of the course that the user interacted
// with.
type CourseReport struct {
	ID    string `json:"id"`
	Title string `json:"title"`

	Progress

	Lessons []LessonReport  `json:"lessons"`
	Extra   edapp.RawFields `json:"-"`
}

// LessonReport is a lesson of a [CourseReport]: the lesson fields of [Lesson]
// without the launch link, plus the time spent and the slides.
type LessonReport struct {
	ID    string `json:"id"`
	Title string `json:"title"`

	Progress

	// Duration is the time spent in the lesson, a decimal number. Its unit
	// is not documented.
	Duration float64 `json:"duration"`
	// Slides has one entry per slide.
	Slides []Slide         `json:"slides"`
	Extra  edapp.RawFields `json:"-"`
}

// Slide is one slide of a [LessonReport] with the user's interactions on it.
type Slide struct {
	Name         string          `json:"name"`
	Interactions []Interaction   `json:"interactions"`
	Extra        edapp.RawFields `json:"-"`
}

// Interaction is one interaction of the user with a slide.
type Interaction struct {
	Date edapp.Time `json:"date"`
	// Type is InteractionView or InteractionSlide, or whatever else the
	// service sends.
	Type string `json:"type"`
	// Duration is present on view interactions. Its unit is not
	// documented.
	Duration float64 `json:"duration,omitempty"`
	// Result is present on slide interactions, nil otherwise.
	Result *InteractionResult `json:"result,omitempty"`
	Extra  edapp.RawFields    `json:"-"`
}

// InteractionResult is the outcome of a slide interaction.
type InteractionResult struct {
	Correct bool            `json:"correct"`
	TooSlow bool            `json:"too_slow"`
	Extra   edapp.RawFields `json:"-"`
}

// Lesson returns the report of the lesson with the given id and true, or
// false when the report has none (the report holds only the lessons the
// user interacted with).
func (r *CourseReport) Lesson(lessonID string) (*LessonReport, bool) {
	for i := range r.Lessons {
		if r.Lessons[i].ID == lessonID {
			return &r.Lessons[i], true
		}
	}
	return nil, false
}

// UserCourse reads the report of one user in one course with
// GET /v1/reports/user/{userId}/course/{courseId}.
//
// EdApp API: GET /v1/reports/user/{userId}/course/{courseId}
func (s *ReportsService) UserCourse(ctx context.Context, userID, courseID string, reqOpts ...edapp.RequestOption) (*CourseReport, error) {
	if err := ids.Require("userID", userID); err != nil {
		return nil, err
	}
	if err := ids.Require("courseID", courseID); err != nil {
		return nil, err
	}
	var r CourseReport
	path := ids.Fill("/v1/reports/user/{userId}/course/{courseId}", userID, courseID)
	if err := (*service)(s).do(ctx, http.MethodGet, path, nil, &r, reqOpts...); err != nil {
		return nil, err
	}
	return &r, nil
}

// Activities calls GET /v1/reports/activities and returns its answer as
// raw JSON, since the vendor does not document its body (it uses the call
// as its sample of authentication). An empty answer gives nil.
//
// EdApp API: GET /v1/reports/activities
func (s *ReportsService) Activities(ctx context.Context, reqOpts ...edapp.RequestOption) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := (*service)(s).do(ctx, http.MethodGet, ids.Fill("/v1/reports/activities"), nil, &raw, reqOpts...); err != nil {
		return nil, err
	}
	return raw, nil
}
