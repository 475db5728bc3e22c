package edapp

import (
	"bytes"
	"encoding/json"
)

// EventName is the name of a webhook event: the eventName a webhook link is
// created for (Webhooks.Create), and the eventName field of every delivery.
// The SDK knows ten names; the service may add others, which ParseEvent
// returns as *UnknownEvent.
type EventName string

// The ten event names. Each is delivered as the struct of the same name,
// EventLessonCompleted as a *LessonCompletedEvent for example.
const (
	EventCourseCompleted                             EventName = "CourseCompletedEvent"
	EventLessonCompleted                             EventName = "LessonCompletedEvent"
	EventLessonPublished                             EventName = "LessonPublishedEvent"
	EventLessonUnpublished                           EventName = "LessonUnpublishedEvent"
	EventCoursePublished                             EventName = "CoursePublishedEvent"
	EventCourseUnPublished                           EventName = "CourseUnPublishedEvent" // with a capital P, as the service spells it
	EventRapidRefreshSessionStartedNotification      EventName = "RapidRefreshSessionStartedNotificationEvent"
	EventRapidRefreshRetrySessionStartedNotification EventName = "RapidRefreshRetrySessionStartedNotificationEvent"
	EventRapidRefreshSessionReminderNotification     EventName = "RapidRefreshSessionReminderNotificationEvent"
	EventCourseReminderWebHook                       EventName = "CourseReminderWebHookEvent"
)

// eventTable lists the events the SDK knows, in the order EventNames returns
// them: each name with the constructor of its struct and the JSON names of
// the fields that identify one occurrence (see EventKey). It drives
// ParseEvent, EventNames, EventKey and the events' methods (go generate
// writes events_methods.go from it).
//
//go:generate go run ./internal/eventgen
var eventTable = []struct {
	name     EventName
	new      func() Event
	identity []string
}{
	{EventCourseCompleted, newEvent[CourseCompletedEvent], []string{"userId", "courseId", "timestamp"}},
	{EventLessonCompleted, newEvent[LessonCompletedEvent], []string{"userId", "lessonId", "timestamp"}},
	{EventLessonPublished, newEvent[LessonPublishedEvent], []string{"userId", "lessonId", "timestamp"}},
	{EventLessonUnpublished, newEvent[LessonUnpublishedEvent], []string{"userId", "lessonId", "timestamp"}},
	{EventCoursePublished, newEvent[CoursePublishedEvent], []string{"userId", "courseId", "timestamp"}},
	{EventCourseUnPublished, newEvent[CourseUnPublishedEvent], []string{"userId", "courseId", "timestamp"}},
	{EventRapidRefreshSessionStartedNotification, newEvent[RapidRefreshSessionStartedNotificationEvent], rapidRefreshIdentity},
	{EventRapidRefreshRetrySessionStartedNotification, newEvent[RapidRefreshRetrySessionStartedNotificationEvent], rapidRefreshIdentity},
	{EventRapidRefreshSessionReminderNotification, newEvent[RapidRefreshSessionReminderNotificationEvent], rapidRefreshIdentity},
	{EventCourseReminderWebHook, newEvent[CourseReminderWebHookEvent], []string{"userId", "courseId", "dueDate", "timestamp"}},
}

var rapidRefreshIdentity = []string{"userId", "quizId", "quizSession", "timestamp"}

func newEvent[T any, P interface {
	*T
	Event
}]() Event {
	return P(new(T))
}

// EventNames returns the ten event names, in the order of EdApp's event
// table. The slice is new on every call.
func EventNames() []EventName {
	names := make([]EventName, len(eventTable))
	for i, row := range eventTable {
		names[i] = row.name
	}
	return names
}

// Event is a decoded webhook delivery. ParseEvent and the handler of the
// webhook package (github.com/edapp-go/edapp/webhook) return one of the ten event structs as a pointer (for
// example *LessonCompletedEvent), or *UnknownEvent for a name the SDK does
// not know. Switch on the type to read the fields:
//
//	switch ev := ev.(type) {
//	case *edapp.LessonCompletedEvent:
//		fmt.Println(ev.Email, ev.LessonTitle, ev.Score)
//	case *edapp.UnknownEvent:
//		log.Printf("unhandled event %s", ev.EventName)
//	}
//
// Each event struct encodes (encoding/json) to the payload the service
// sends: eventName first, then the fields under the service's names.
// Decoding, by ParseEvent or by json.Unmarshal into an event struct (which
// does not check eventName), matches names without regard to case, as
// encoding/json does; that covers the spellings seen in practice (username
// or userName, firstname or firstName, lastname or lastName). It also
// accepts a score sent as a numeric string, datetimes in every form Time
// accepts, null for an empty value, and a number where a string is expected
// (kept as written). Any other value is an error that names the field.
//
// EdApp documents each event's fields by name and type only. What triggers
// an event, the instant a timestamp marks, the scale of a score and which
// user a publishing event names are inferred from the names.
type Event interface {
	// Name returns the event's eventName.
	Name() EventName
}

// CourseCompletedEvent reports that a user completed a course.
type CourseCompletedEvent struct {
	UserID      string `json:"userId"`
	UserName    string `json:"userName"`
	Email       string `json:"email"` // usable to map the user to another system
	FirstName   string `json:"firstname"`
	LastName    string `json:"lastname"`
	CourseID    string `json:"courseId"` // the completed course
	CourseTitle string `json:"courseTitle"`
	Timestamp   Time   `json:"timestamp"` // when the course was completed
}

// LessonCompletedEvent reports that a user completed a lesson, with a score.
type LessonCompletedEvent struct {
	UserID      string  `json:"userId"`
	UserName    string  `json:"userName"`
	Email       string  `json:"email"` // usable to map the user to another system
	FirstName   string  `json:"firstname"`
	LastName    string  `json:"lastname"`
	CourseID    string  `json:"courseId"` // the course of the lesson
	CourseTitle string  `json:"courseTitle"`
	LessonID    string  `json:"lessonId"` // the completed lesson
	LessonTitle string  `json:"lessonTitle"`
	Timestamp   Time    `json:"timestamp"` // when the lesson was completed
	Score       float64 `json:"score"`     // also decoded from a numeric string
}

// LessonPublishedEvent reports that a lesson was published.
type LessonPublishedEvent struct {
	UserID      string `json:"userId"`
	UserName    string `json:"userName"`
	Email       string `json:"email"`
	CourseID    string `json:"courseId"` // the course of the lesson
	CourseTitle string `json:"courseTitle"`
	LessonID    string `json:"lessonId"`
	LessonTitle string `json:"lessonTitle"`
	Timestamp   Time   `json:"timestamp"` // when it happened
}

// LessonUnpublishedEvent reports that a lesson was unpublished.
type LessonUnpublishedEvent LessonPublishedEvent

// CoursePublishedEvent reports that a course was published.
type CoursePublishedEvent struct {
	UserID      string `json:"userId"`
	UserName    string `json:"userName"`
	Email       string `json:"email"`
	CourseID    string `json:"courseId"`
	CourseTitle string `json:"courseTitle"`
	Timestamp   Time   `json:"timestamp"` // when it happened
}

// CourseUnPublishedEvent reports that a course was unpublished.
type CourseUnPublishedEvent CoursePublishedEvent

// RapidRefreshSessionStartedNotificationEvent reports that a session of a
// Rapid Refresh quiz started for a user. Rapid Refresh notifications are sent
// at 9 o'clock in the user's local time zone, so users need a time zone set.
type RapidRefreshSessionStartedNotificationEvent struct {
	UserID         string `json:"userId"`
	UserExternalID string `json:"userExternalId"` // to map the user to another system
	UserName       string `json:"username"`
	Email          string `json:"email"`
	QuizID         string `json:"quizId"` // the Rapid Refresh quiz
	QuizTitle      string `json:"quizTitle"`
	QuizSession    string `json:"quizSession"` // the session, such as "1"
	QuizLink       string `json:"quizLink"`    // a link to the quiz
	Timestamp      Time   `json:"timestamp"`   // when the notification was made
}

// RapidRefreshRetrySessionStartedNotificationEvent reports that a retry
// session of a Rapid Refresh quiz started.
type RapidRefreshRetrySessionStartedNotificationEvent RapidRefreshSessionStartedNotificationEvent

// RapidRefreshSessionReminderNotificationEvent reminds a user of a Rapid
// Refresh session.
type RapidRefreshSessionReminderNotificationEvent RapidRefreshSessionStartedNotificationEvent

// CourseReminderWebHookEvent reminds a user of a course that is due.
type CourseReminderWebHookEvent struct {
	UserID         string `json:"userId"`
	UserExternalID string `json:"userExternalId"` // to map the user to another system
	UserName       string `json:"username"`
	Email          string `json:"email"`
	CourseID       string `json:"courseId"` // the course the reminder is about
	CourseTitle    string `json:"courseTitle"`
	CourseLink     string `json:"courseLink"` // a link to the course
	DueDate        Time   `json:"dueDate"`    // the course's due date
	Timestamp      Time   `json:"timestamp"`  // when the reminder was made
}

// UnknownEvent is a delivery whose eventName the SDK does not know.
// ParseEvent returns it without error, so that a receiver keeps working when
// the service adds events.
type UnknownEvent struct {
	EventName EventName       // the delivery's eventName
	Raw       json.RawMessage // the whole delivery body, as received
}

// Name returns the delivery's eventName.
func (e *UnknownEvent) Name() EventName { return e.EventName }

// ParseEvent decodes a webhook delivery body. It reads eventName and returns
// the matching event struct as a pointer (for example *LessonCompletedEvent).
// An eventName the SDK does not know gives an *UnknownEvent holding a copy of
// the payload, and no error. A payload that is not a JSON object, has no
// eventName, or has a field of a known event that cannot be decoded is an
// error; the error names the field. See Event for the spellings accepted.
// The event returned does not share memory with payload.
func ParseEvent(payload []byte) (Event, error) {
	w, err := decodeWire(payload)
	if err != nil {
		return nil, err
	}
	name, err := eventName(w)
	if err != nil {
		return nil, err
	}
	t := eventTypes[name]
	if t == nil {
		return &UnknownEvent{EventName: name, Raw: bytes.Clone(payload)}, nil
	}
	ev := t.new()
	if err := fill(ev, w); err != nil {
		return nil, err
	}
	return ev, nil
}
