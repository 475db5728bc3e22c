package v1

import (
	"encoding/json"

	"github.com/edapp-go/edapp"
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
	aux := struct {
		*plain
		CompletionDate edapp.Time `json:"completionDate"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	c.CompletedDate = completed(c.CompletedDate, aux.CompletionDate)
	return nil
}

// UnmarshalJSON decodes a lesson, taking completionDate when completedDate
// is absent or empty.
func (l *Lesson) UnmarshalJSON(b []byte) error {
	type plain Lesson
	aux := struct {
		*plain
		CompletionDate edapp.Time `json:"completionDate"`
	}{plain: (*plain)(l)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	l.CompletedDate = completed(l.CompletedDate, aux.CompletionDate)
	return nil
}

// completed picks the completion date: completedDate (the spec's sample)
// unless it is empty, then completionDate (the spec's text).
func completed(completedDate, completionDate edapp.Time) edapp.Time {
	if completedDate.IsZero() {
		return completionDate
	}
	return completedDate
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
