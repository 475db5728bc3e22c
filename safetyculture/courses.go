package safetyculture

import (
	"context"
	"iter"
	"net/http"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/core"
	"github.com/edapp-go/edapp/internal/ids"
)

// CoursesService holds the course operations: the catalogue's courses and
// lessons, and the two writes, assignments and progress reset.
type CoursesService service

// Course is a Training course, in the shape the catalogue answers
// (camelCase). The service was seen to send "LessonCount" capitalised;
// both spellings are read. Fields the SDK does not know are kept in Extra.
type Course struct {
	ID                        string          `json:"id"`
	ExternalID                string          `json:"externalId"`
	Title                     string          `json:"title"`
	Description               string          `json:"description"`
	Status                    string          `json:"status"`
	Locale                    string          `json:"locale"`
	IsMandatory               bool            `json:"isMandatory"`
	DueBy                     edapp.Time      `json:"dueBy"`
	Duration                  float64         `json:"duration"`
	ThumbnailURL              string          `json:"thumbnailUrl"`
	CreatedDateTime           edapp.Time      `json:"createdDatetime"` // also read as createdDateTime
	ModifiedDateTime          edapp.Time      `json:"modifiedDatetime"`
	TranslationOriginalCourse *CourseRef      `json:"translationOriginalCourse"` // also read capitalised
	LogoURL                   string          `json:"logoUrl"`
	BrandingImageURL          string          `json:"brandingImageUrl"`
	IsPublished               bool            `json:"isPublished"`
	LessonCount               int             `json:"lessonCount"` // also read as LessonCount
	PublishedVersionNumber    int             `json:"publishedVersionNumber"`
	Extra                     edapp.RawFields `json:"-"`
	raw                       string          // the record as received; see Raw
}

// CourseRef names a course by its ids.
type CourseRef struct {
	ID         string          `json:"id"`
	ExternalID string          `json:"externalId"`
	Extra      edapp.RawFields `json:"-"`
}

// Lesson is a lesson of a course. Only id, title, description, status and
// minimumScore have been seen; the rest is kept in Extra.
type Lesson struct {
	ID           string          `json:"id"`
	ExternalID   string          `json:"externalId"`
	CourseID     string          `json:"courseId"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	Status       string          `json:"status"`
	MinimumScore float64         `json:"minimumScore"`
	Extra        edapp.RawFields `json:"-"`
	raw          string          // the record as received; see Raw
}

// CourseListOptions filter and page the course list.
type CourseListOptions struct {
	edapp.ListOptions
	CourseIDs  []string `url:"courseIds,omitempty"` // sent repeated
	SearchTerm string   `url:"searchTerm,omitempty"`
}

func courseKey(c Course) string { return c.ID }

// List returns one page of courses.
//
// SafetyCulture API: GET /training/courses/v1
func (s *CoursesService) List(ctx context.Context, opts *CourseListOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[Course], error) {
	return listPage[Course](ctx, s.client, ids.Fill(routeCourses), opts, reqOpts)
}

// All iterates over every course, page after page.
//
// SafetyCulture API: GET /training/courses/v1
func (s *CoursesService) All(ctx context.Context, opts *CourseListOptions, reqOpts ...edapp.RequestOption) iter.Seq2[Course, error] {
	return all(ctx, s.client, ids.Fill(routeCourses), opts, reqOpts, courseKey)
}

// Lessons returns the lessons of a course, in one call. The answer's
// {"lessons": [...]} is read, as are {"items": [...]} and a bare array.
//
// SafetyCulture API: GET /training/courses/v1/{courseId}/lessons
func (s *CoursesService) Lessons(ctx context.Context, courseID string, reqOpts ...edapp.RequestOption) ([]Lesson, error) {
	if err := ids.Require("courseID", courseID); err != nil {
		return nil, err
	}
	var out listOf[Lesson]
	out.key = "lessons"
	err := s.client.get(ctx, ids.Fill(routeCourseLessons, courseID), nil, &out, reqOpts)
	return out.items, err
}

// Lesson returns one lesson, sent bare or as {"lesson": {...}}.
//
// SafetyCulture API: GET /training/lessons/v1/{lessonId}
func (s *CoursesService) Lesson(ctx context.Context, lessonID string, reqOpts ...edapp.RequestOption) (*Lesson, error) {
	return getOne[Lesson](ctx, s.client, routeLesson, "lessonID", lessonID, "lesson", reqOpts)
}

// AssignmentType says what an assignment names.
type AssignmentType string

const (
	AssignUser  AssignmentType = "ASSIGNMENT_TYPE_USER"
	AssignGroup AssignmentType = "ASSIGNMENT_TYPE_GROUP"
	AssignSite  AssignmentType = "ASSIGNMENT_TYPE_SITE"
)

// Assignment assigns a course to (or, with IsAssigned false, takes it from)
// a user, a group or a site.
type Assignment struct {
	ID         string         `json:"id"`
	Type       AssignmentType `json:"type"`
	IsAssigned bool           `json:"isAssigned"`
}

// AssignmentsParams is the body of UpdateAssignments.
type AssignmentsParams struct {
	Assignments     []Assignment `json:"assignments"`
	UniversalAccess *bool        `json:"universalAccess,omitempty"` // nil: not sent
	ClearAllUsers   bool         `json:"clearAllUsers,omitempty"`
	ClearAllGroups  bool         `json:"clearAllGroups,omitempty"`
	ClearAllSites   bool         `json:"clearAllSites,omitempty"`
}

// AssignmentsResult is what UpdateAssignments changed.
type AssignmentsResult struct {
	UsersUpdated  int             `json:"usersUpdated"`
	GroupsUpdated int             `json:"groupsUpdated"`
	SitesUpdated  int             `json:"sitesUpdated"`
	Extra         edapp.RawFields `json:"-"`
}

// UpdateAssignments changes who a course is assigned to. It is sent once:
// after an answer of 5xx or a connection that broke, the service may have
// acted, and it is not sent again (a 429 and a refused connection are
// retried: nothing was done).
//
// SafetyCulture API: PUT /training/courses/v1/{courseId}/assignments
func (s *CoursesService) UpdateAssignments(ctx context.Context, courseID string, params AssignmentsParams, reqOpts ...edapp.RequestOption) (*AssignmentsResult, error) {
	if err := ids.Require("courseID", courseID); err != nil {
		return nil, err
	}
	p := ids.Fill(routeCourseAssignments, courseID)
	out := new(AssignmentsResult)
	_, err := s.client.send(ctx, core.Operation{Method: http.MethodPut, Route: p.Route, Path: p.Path, Body: params}, out, false, reqOpts, core.WithOnce())
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ResetProgressParams is the body of ResetProgress. Inferred: the service
// documents it as resetting "course progress for one or more users"; the
// field names are those of the course operations.
type ResetProgressParams struct {
	CourseID string   `json:"courseId"`
	UserIDs  []string `json:"userIds"`
}

// ResetProgress resets the progress of users in a course. It is sent
// once, as UpdateAssignments is; the answer's fields are returned as they
// came.
//
// SafetyCulture API: POST /training/courseprogress/v1/reset
func (s *CoursesService) ResetProgress(ctx context.Context, params ResetProgressParams, reqOpts ...edapp.RequestOption) (edapp.RawFields, error) {
	if err := ids.Require("params.CourseID", params.CourseID); err != nil {
		return nil, err
	}
	var out edapp.RawFields
	_, err := s.client.send(ctx, core.Operation{Method: http.MethodPost, Route: routeProgressReset, Path: routeProgressReset, Body: params}, &out, false, reqOpts, core.WithOnce())
	return out, err
}
