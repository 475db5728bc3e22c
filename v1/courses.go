package v1

import (
	"encoding/json"
	"fmt"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/redact"
)

// Course is one entry of GET /v1/users/{id}/courses: a course the user may
// access, with the user's progress in it and its lessons.
//
// The spec lets a course omit the flag and date fields (its sample shows a
// course with only id, title and lessons); those then read as false and
// the zero time.
type Course struct {
	ID    string `json:"id"`
	Title string `json:"title"`

	Unlocked     bool       `json:"unlocked"`
	UnlockedDate edapp.Time `json:"unlockedDate"` // spec: ISO 8601 UTC with milliseconds
	Completed    bool       `json:"completed"`
	// CompletedDate also decodes from completionDate: the spec's text calls
	// the property completionDate, its sample completedDate.
	CompletedDate edapp.Time `json:"completedDate"`
	Opened        bool       `json:"opened"`
	OpenedDate    edapp.Time `json:"openedDate"`

	Lessons []Lesson `json:"lessons"`
}

// Lesson is a lesson of a Course, with the user's progress in it and its
// launch link.
type Lesson struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// LaunchURI is {launch_url}/launch-lesson?token=<LAUNCH_TOKEN>&lesson=<id>.
	// Its token signs the learner in and expires after 20 minutes (spec),
	// so do not store it: use UsersService.LaunchLink just before the
	// learner opens the lesson. It holds a secret; keep it out of logs.
	LaunchURI string `json:"launchURI"`

	Unlocked     bool       `json:"unlocked"`
	UnlockedDate edapp.Time `json:"unlockedDate"`
	Completed    bool       `json:"completed"`
	// CompletedDate also decodes from completionDate (see Course).
	CompletedDate edapp.Time `json:"completedDate"`
	Opened        bool       `json:"opened"`
	OpenedDate    edapp.Time `json:"openedDate"`
}

// UnmarshalJSON decodes a course, taking completionDate when
// completedDate is absent or empty.
func (c *Course) UnmarshalJSON(b []byte) error {
	type plain Course
	return decodeCompletion(b, (*plain)(c), &c.CompletedDate)
}

// UnmarshalJSON decodes a lesson, taking completionDate when completedDate
// is absent or empty.
func (l *Lesson) UnmarshalJSON(b []byte) error {
	type plain Lesson
	return decodeCompletion(b, (*plain)(l), &l.CompletedDate)
}

// String describes the lesson with its launch token hidden, so that
// printing a Lesson or a Course with %v never shows the token.
func (l Lesson) String() string {
	return fmt.Sprintf("{ID:%s Title:%q LaunchURI:%s Unlocked:%t Completed:%t Opened:%t}",
		l.ID, l.Title, redact.LaunchTokens(l.LaunchURI), l.Unlocked, l.Completed, l.Opened)
}

// decodeCompletion decodes b into v, a pointer to a type without an
// UnmarshalJSON method whose completion date is *completedDate. When
// completedDate (the spec's sample) is absent or empty, it takes
// completionDate (the spec's text). v1 answers are small, so the second
// look at the bytes costs nothing that matters.
func decodeCompletion(b []byte, v any, completedDate *edapp.Time) error {
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	if !completedDate.IsZero() {
		return nil
	}
	var alt struct {
		CompletionDate edapp.Time `json:"completionDate"`
	}
	if err := json.Unmarshal(b, &alt); err != nil {
		return err
	}
	*completedDate = alt.CompletionDate
	return nil
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
