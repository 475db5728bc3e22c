package v1

import (
	"fmt"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/edapp-go/edapp/internal/redact"
)

// Course is one entry of GET /v1/users/{id}/courses: a course the user may
// access, with the user's progress in it and its lessons.
//
// A course may omit the flag and date fields (the vendor's sample shows a
// course with only id, title and lessons); those then read as false and
// the zero time.
type Course struct {
	ID    string `json:"id"`
	Title string `json:"title"`

	Progress

	Lessons []Lesson        `json:"lessons"`
	Extra   edapp.RawFields `json:"-"`
}

// Lesson is a lesson of a [Course], with the user's progress in it and its
// launch link.
type Lesson struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// LaunchURI is <launch page>/launch-lesson?token=<LAUNCH_TOKEN>&lesson=<id>.
	// Its token signs the learner in and expires 20 minutes after it is
	// issued, so do not store it: use UsersService.LaunchLink just before the
	// learner opens the lesson. It holds a secret; keep it out of logs.
	LaunchURI string `json:"launchURI"`

	Progress

	Extra edapp.RawFields `json:"-"`
}

// Progress is the user's progress in a course or a lesson, as every v1
// course, lesson and report sends it: whether it is unlocked, completed and
// opened, and when (ISO 8601 UTC with milliseconds). Course, [Lesson],
// [CourseReport] and [LessonReport] embed it, so its fields read as theirs
// (course.Completed) and encode as members of the record's own object.
type Progress struct {
	Unlocked     bool       `json:"unlocked"`
	UnlockedDate edapp.Time `json:"unlockedDate"`
	Completed    bool       `json:"completed"`
	// CompletedDate also decodes from completionDate: the vendor's text
	// calls the property completionDate, its sample completedDate.
	CompletedDate edapp.Time `json:"completedDate"`
	Opened        bool       `json:"opened"`
	OpenedDate    edapp.Time `json:"openedDate"`
}

// completionDate (the vendor's text) fills CompletedDate (the vendor's
// sample) when that is absent or empty. The spelling lives in the
// decoder's table, so the records carry only their documented fields.
func init() {
	lenient.Alias[Progress](lenient.Spelling{Name: "completionDate", Field: "CompletedDate"})
}

// String describes the lesson with its launch token hidden, so that
// printing a [Lesson] or a [Course] with %v never shows the token.
func (l Lesson) String() string {
	return fmt.Sprintf("{ID:%s Title:%q LaunchURI:%s Unlocked:%t Completed:%t Opened:%t}",
		l.ID, l.Title, redact.LaunchTokens(l.LaunchURI), l.Unlocked, l.Completed, l.Opened)
}

// Lesson returns the lesson with the given id and true, or false when the
// course has no such lesson.
func (c *Course) Lesson(lessonID string) (*Lesson, bool) {
	for i := range c.Lessons {
		if c.Lessons[i].ID == lessonID {
			return &c.Lessons[i], true
		}
	}
	return nil, false
}
