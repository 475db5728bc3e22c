package edapp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// EventName is the name of a webhook event: the eventName sent to
// Webhooks.Create to link an event to a URL, and the eventName field of every
// delivery. The spec lists ten names; the service may add others, which
// ParseEvent returns as *UnknownEvent.
type EventName string

// The ten event names of the spec. Each occurrence of a linked event produces
// one delivery to the linked URL. What triggers each event beyond its name is
// not shown in the spec.
const (
	// EventCourseCompleted is delivered as a CourseCompletedEvent.
	EventCourseCompleted EventName = "CourseCompletedEvent"
	// EventLessonCompleted is delivered as a LessonCompletedEvent.
	EventLessonCompleted EventName = "LessonCompletedEvent"
	// EventLessonPublished is delivered as a LessonPublishedEvent.
	EventLessonPublished EventName = "LessonPublishedEvent"
	// EventLessonUnpublished is delivered as a LessonUnpublishedEvent.
	EventLessonUnpublished EventName = "LessonUnpublishedEvent"
	// EventCoursePublished is delivered as a CoursePublishedEvent.
	EventCoursePublished EventName = "CoursePublishedEvent"
	// EventCourseUnPublished is delivered as a CourseUnPublishedEvent (the
	// spec spells it with a capital P).
	EventCourseUnPublished EventName = "CourseUnPublishedEvent"
	// EventRapidRefreshSessionStartedNotification is delivered as a
	// RapidRefreshSessionStartedNotificationEvent. Rapid Refresh
	// notifications are sent at 9 o'clock in the user's local time zone.
	EventRapidRefreshSessionStartedNotification EventName = "RapidRefreshSessionStartedNotificationEvent"
	// EventRapidRefreshRetrySessionStartedNotification is delivered as a
	// RapidRefreshRetrySessionStartedNotificationEvent, at 9 o'clock in the
	// user's local time zone.
	EventRapidRefreshRetrySessionStartedNotification EventName = "RapidRefreshRetrySessionStartedNotificationEvent"
	// EventRapidRefreshSessionReminderNotification is delivered as a
	// RapidRefreshSessionReminderNotificationEvent, at 9 o'clock in the
	// user's local time zone.
	EventRapidRefreshSessionReminderNotification EventName = "RapidRefreshSessionReminderNotificationEvent"
	// EventCourseReminderWebHook is delivered as a CourseReminderWebHookEvent.
	EventCourseReminderWebHook EventName = "CourseReminderWebHookEvent"
)

// eventNames holds the ten names in the order of the spec's Events table.
var eventNames = [...]EventName{
	EventCourseCompleted,
	EventLessonCompleted,
	EventLessonPublished,
	EventLessonUnpublished,
	EventCoursePublished,
	EventCourseUnPublished,
	EventRapidRefreshSessionStartedNotification,
	EventRapidRefreshRetrySessionStartedNotification,
	EventRapidRefreshSessionReminderNotification,
	EventCourseReminderWebHook,
}

// EventNames returns the ten event names of the spec, in the order of its
// Events table. The slice is new on every call.
func EventNames() []EventName {
	return append([]EventName(nil), eventNames[:]...)
}

// Event is a decoded webhook delivery. ParseEvent and the handler of
// NewWebhookHandler return one of the ten event structs as a pointer (for
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
// Each event struct encodes (encoding/json) to exactly the spec's payload: the
// spec's field names and case, eventName included. Decoding accepts the
// spellings seen in practice: username or userName, firstname or firstName,
// lastname or lastName, a score sent as a JSON number or as a numeric string,
// datetimes in every form Time accepts, null for an empty value, and a number
// where a string is expected (kept as written). Field names are otherwise
// exact, as the spec says. Any other value is an error that names the field.
type Event interface {
	// Name returns the event's eventName.
	Name() EventName
}

// CourseCompletedEvent is the payload of CourseCompletedEvent. The spec lists
// eventName, userId, userName, email, firstname, lastname, courseId,
// courseTitle and timestamp.
type CourseCompletedEvent struct {
	UserID      string `json:"userId"`      // the user's id
	UserName    string `json:"userName"`    // also decoded from "username"
	Email       string `json:"email"`       // usable to map the user to another system
	FirstName   string `json:"firstname"`   // lower case in the spec; also decoded from "firstName"
	LastName    string `json:"lastname"`    // lower case in the spec; also decoded from "lastName"
	CourseID    string `json:"courseId"`    // the completed course
	CourseTitle string `json:"courseTitle"` // its title
	Timestamp   Time   `json:"timestamp"`   // datetime; what instant it marks is not shown in the spec
}

// LessonCompletedEvent is the payload of LessonCompletedEvent. The spec lists
// eventName, userId, userName, email, firstname, lastname, courseId,
// courseTitle, lessonId, lessonTitle, timestamp and score (a number).
type LessonCompletedEvent struct {
	UserID      string  `json:"userId"`      // the user's id
	UserName    string  `json:"userName"`    // also decoded from "username"
	Email       string  `json:"email"`       // usable to map the user to another system
	FirstName   string  `json:"firstname"`   // lower case in the spec; also decoded from "firstName"
	LastName    string  `json:"lastname"`    // lower case in the spec; also decoded from "lastName"
	CourseID    string  `json:"courseId"`    // the course of the lesson
	CourseTitle string  `json:"courseTitle"` // its title
	LessonID    string  `json:"lessonId"`    // the completed lesson
	LessonTitle string  `json:"lessonTitle"` // its title
	Timestamp   Time    `json:"timestamp"`   // datetime; what instant it marks is not shown in the spec
	Score       float64 `json:"score"`       // number; its scale is not shown in the spec. Also decoded from a numeric string
}

// LessonPublishedEvent is the payload of LessonPublishedEvent. The spec lists
// eventName, userId, userName, email, courseId, courseTitle, lessonId,
// lessonTitle and timestamp. Which user it names (the publisher, presumably)
// is not shown in the spec.
type LessonPublishedEvent struct {
	UserID      string `json:"userId"`      // the user's id
	UserName    string `json:"userName"`    // also decoded from "username"
	Email       string `json:"email"`       // the user's email
	CourseID    string `json:"courseId"`    // the course of the lesson
	CourseTitle string `json:"courseTitle"` // its title
	LessonID    string `json:"lessonId"`    // the published lesson
	LessonTitle string `json:"lessonTitle"` // its title
	Timestamp   Time   `json:"timestamp"`   // datetime; what instant it marks is not shown in the spec
}

// LessonUnpublishedEvent is the payload of LessonUnpublishedEvent. The spec
// lists eventName, userId, userName, email, courseId, courseTitle, lessonId,
// lessonTitle and timestamp. Which user it names is not shown in the spec.
type LessonUnpublishedEvent struct {
	UserID      string `json:"userId"`      // the user's id
	UserName    string `json:"userName"`    // also decoded from "username"
	Email       string `json:"email"`       // the user's email
	CourseID    string `json:"courseId"`    // the course of the lesson
	CourseTitle string `json:"courseTitle"` // its title
	LessonID    string `json:"lessonId"`    // the unpublished lesson
	LessonTitle string `json:"lessonTitle"` // its title
	Timestamp   Time   `json:"timestamp"`   // datetime; what instant it marks is not shown in the spec
}

// CoursePublishedEvent is the payload of CoursePublishedEvent. The spec lists
// eventName, userId, userName, email, courseId, courseTitle and timestamp.
// Which user it names is not shown in the spec.
type CoursePublishedEvent struct {
	UserID      string `json:"userId"`      // the user's id
	UserName    string `json:"userName"`    // also decoded from "username"
	Email       string `json:"email"`       // the user's email
	CourseID    string `json:"courseId"`    // the published course
	CourseTitle string `json:"courseTitle"` // its title
	Timestamp   Time   `json:"timestamp"`   // datetime; what instant it marks is not shown in the spec
}

// CourseUnPublishedEvent is the payload of CourseUnPublishedEvent. The spec
// lists eventName, userId, userName, email, courseId, courseTitle and
// timestamp. Which user it names is not shown in the spec.
type CourseUnPublishedEvent struct {
	UserID      string `json:"userId"`      // the user's id
	UserName    string `json:"userName"`    // also decoded from "username"
	Email       string `json:"email"`       // the user's email
	CourseID    string `json:"courseId"`    // the unpublished course
	CourseTitle string `json:"courseTitle"` // its title
	Timestamp   Time   `json:"timestamp"`   // datetime; what instant it marks is not shown in the spec
}

// RapidRefreshSessionStartedNotificationEvent is the payload of
// RapidRefreshSessionStartedNotificationEvent, sent at 9 o'clock in the
// user's local time zone (a user without a time zone must have one set). The
// spec lists eventName, userId, userExternalId, username, email, quizId,
// quizTitle, quizSession, quizLink and timestamp. One description of this
// event spells the user name field userName; both are decoded.
type RapidRefreshSessionStartedNotificationEvent struct {
	UserID         string `json:"userId"`         // the user's id
	UserExternalID string `json:"userExternalId"` // the user's external id, to map to a user in another system
	UserName       string `json:"username"`       // lower case in the spec; also decoded from "userName"
	Email          string `json:"email"`          // usable to map the user to another system
	QuizID         string `json:"quizId"`         // the Rapid Refresh quiz
	QuizTitle      string `json:"quizTitle"`      // its title
	QuizSession    string `json:"quizSession"`    // a string; its meaning is not shown in the spec
	QuizLink       string `json:"quizLink"`       // a link to the quiz
	Timestamp      Time   `json:"timestamp"`      // datetime; what instant it marks is not shown in the spec
}

// RapidRefreshRetrySessionStartedNotificationEvent is the payload of
// RapidRefreshRetrySessionStartedNotificationEvent, sent at 9 o'clock in the
// user's local time zone. The spec lists eventName, userId, userExternalId,
// username, email, quizId, quizTitle, quizSession, quizLink and timestamp.
type RapidRefreshRetrySessionStartedNotificationEvent struct {
	UserID         string `json:"userId"`         // the user's id
	UserExternalID string `json:"userExternalId"` // the user's external id, to map to a user in another system
	UserName       string `json:"username"`       // lower case in the spec; also decoded from "userName"
	Email          string `json:"email"`          // usable to map the user to another system
	QuizID         string `json:"quizId"`         // the Rapid Refresh quiz
	QuizTitle      string `json:"quizTitle"`      // its title
	QuizSession    string `json:"quizSession"`    // a string; its meaning is not shown in the spec
	QuizLink       string `json:"quizLink"`       // a link to the quiz
	Timestamp      Time   `json:"timestamp"`      // datetime; what instant it marks is not shown in the spec
}

// RapidRefreshSessionReminderNotificationEvent is the payload of
// RapidRefreshSessionReminderNotificationEvent, sent at 9 o'clock in the
// user's local time zone. The spec lists eventName, userId, userExternalId,
// username, email, quizId, quizTitle, quizSession, quizLink and timestamp.
type RapidRefreshSessionReminderNotificationEvent struct {
	UserID         string `json:"userId"`         // the user's id
	UserExternalID string `json:"userExternalId"` // the user's external id, to map to a user in another system
	UserName       string `json:"username"`       // lower case in the spec; also decoded from "userName"
	Email          string `json:"email"`          // usable to map the user to another system
	QuizID         string `json:"quizId"`         // the Rapid Refresh quiz
	QuizTitle      string `json:"quizTitle"`      // its title
	QuizSession    string `json:"quizSession"`    // a string; its meaning is not shown in the spec
	QuizLink       string `json:"quizLink"`       // a link to the quiz
	Timestamp      Time   `json:"timestamp"`      // datetime; what instant it marks is not shown in the spec
}

// CourseReminderWebHookEvent is the payload of CourseReminderWebHookEvent.
// The spec lists eventName, userId, userExternalId, username, email,
// courseId, courseTitle, courseLink, dueDate (a datetime) and timestamp.
type CourseReminderWebHookEvent struct {
	UserID         string `json:"userId"`         // the user's id
	UserExternalID string `json:"userExternalId"` // the user's external id, to map to a user in another system
	UserName       string `json:"username"`       // lower case in the spec; also decoded from "userName"
	Email          string `json:"email"`          // usable to map the user to another system
	CourseID       string `json:"courseId"`       // the course the reminder is about
	CourseTitle    string `json:"courseTitle"`    // its title
	CourseLink     string `json:"courseLink"`     // a link to the course
	DueDate        Time   `json:"dueDate"`        // datetime; the course's due date
	Timestamp      Time   `json:"timestamp"`      // datetime; what instant it marks is not shown in the spec
}

// UnknownEvent is a delivery whose eventName is not one of the ten in the
// spec. ParseEvent returns it without error, so that a receiver keeps working
// when the service adds events.
type UnknownEvent struct {
	EventName EventName       // the delivery's eventName
	Raw       json.RawMessage // the whole delivery body, as received
}

// Name returns CourseCompletedEvent.
func (*CourseCompletedEvent) Name() EventName { return EventCourseCompleted }

// Name returns LessonCompletedEvent.
func (*LessonCompletedEvent) Name() EventName { return EventLessonCompleted }

// Name returns LessonPublishedEvent.
func (*LessonPublishedEvent) Name() EventName { return EventLessonPublished }

// Name returns LessonUnpublishedEvent.
func (*LessonUnpublishedEvent) Name() EventName { return EventLessonUnpublished }

// Name returns CoursePublishedEvent.
func (*CoursePublishedEvent) Name() EventName { return EventCoursePublished }

// Name returns CourseUnPublishedEvent.
func (*CourseUnPublishedEvent) Name() EventName { return EventCourseUnPublished }

// Name returns RapidRefreshSessionStartedNotificationEvent.
func (*RapidRefreshSessionStartedNotificationEvent) Name() EventName {
	return EventRapidRefreshSessionStartedNotification
}

// Name returns RapidRefreshRetrySessionStartedNotificationEvent.
func (*RapidRefreshRetrySessionStartedNotificationEvent) Name() EventName {
	return EventRapidRefreshRetrySessionStartedNotification
}

// Name returns RapidRefreshSessionReminderNotificationEvent.
func (*RapidRefreshSessionReminderNotificationEvent) Name() EventName {
	return EventRapidRefreshSessionReminderNotification
}

// Name returns CourseReminderWebHookEvent.
func (*CourseReminderWebHookEvent) Name() EventName { return EventCourseReminderWebHook }

// Name returns the delivery's eventName.
func (e *UnknownEvent) Name() EventName { return e.EventName }

// ParseEvent decodes a webhook delivery body. It reads eventName and returns
// the matching event struct as a pointer (for example *LessonCompletedEvent).
// An eventName the SDK does not know gives an *UnknownEvent holding a copy of
// the payload, and no error. A payload that is not a JSON object, has no
// eventName, or has a field of a known event that cannot be decoded is an
// error; the error names the field. See Event for the spellings accepted.
//
// ParseEvent reads the payload once, without building a generic map, and the
// event it returns does not share memory with payload.
func ParseEvent(payload []byte) (Event, error) {
	var f eventFields
	if err := f.scan(payload); err != nil {
		return nil, err
	}
	name, err := f.eventName()
	if err != nil {
		return nil, err
	}
	f.event = name
	var ev Event
	switch name {
	case EventCourseCompleted:
		e := new(CourseCompletedEvent)
		e.fill(&f)
		ev = e
	case EventLessonCompleted:
		e := new(LessonCompletedEvent)
		e.fill(&f)
		ev = e
	case EventLessonPublished:
		e := new(LessonPublishedEvent)
		e.fill(&f)
		ev = e
	case EventLessonUnpublished:
		e := new(LessonUnpublishedEvent)
		e.fill(&f)
		ev = e
	case EventCoursePublished:
		e := new(CoursePublishedEvent)
		e.fill(&f)
		ev = e
	case EventCourseUnPublished:
		e := new(CourseUnPublishedEvent)
		e.fill(&f)
		ev = e
	case EventRapidRefreshSessionStartedNotification:
		e := new(RapidRefreshSessionStartedNotificationEvent)
		e.fill(&f)
		ev = e
	case EventRapidRefreshRetrySessionStartedNotification:
		e := new(RapidRefreshRetrySessionStartedNotificationEvent)
		e.fill(&f)
		ev = e
	case EventRapidRefreshSessionReminderNotification:
		e := new(RapidRefreshSessionReminderNotificationEvent)
		e.fill(&f)
		ev = e
	case EventCourseReminderWebHook:
		e := new(CourseReminderWebHookEvent)
		e.fill(&f)
		ev = e
	default:
		return &UnknownEvent{EventName: name, Raw: bytes.Clone(payload)}, nil
	}
	if f.err != nil {
		return nil, f.err
	}
	return ev, nil
}

// NewTestDelivery returns a delivery body for ev, as the service would send
// it to a webhook URL: the spec's payload, eventName included. For an
// *UnknownEvent it returns a copy of Raw as it is (valid JSON or not, so that
// tests can also send bodies a receiver must reject), or {"eventName": ...}
// when Raw is empty. It is meant for tests of receivers:
//
//	body := edapp.NewTestDelivery(&edapp.LessonCompletedEvent{UserID: "u1", Score: 90})
//	req := httptest.NewRequest(http.MethodPost, "/edapp/events", bytes.NewReader(body))
//
// Like httptest.NewRequest, it panics on input it cannot use: a nil event or
// one that does not encode (a NaN score).
func NewTestDelivery(ev Event) []byte {
	if u, ok := ev.(*UnknownEvent); ok && u != nil {
		if len(u.Raw) > 0 {
			return bytes.Clone(u.Raw)
		}
		return appendEventName(nil, u.EventName, '}')
	}
	b, err := json.Marshal(ev)
	if err == nil && string(b) == "null" {
		err = errors.New("nil event")
	}
	if err != nil {
		panic("edapp: NewTestDelivery: " + err.Error())
	}
	return b
}

// MarshalJSON writes the spec's payload, eventName first.
func (e CourseCompletedEvent) MarshalJSON() ([]byte, error) {
	type fields CourseCompletedEvent
	return marshalEvent(EventCourseCompleted, (*fields)(&e))
}

// MarshalJSON writes the spec's payload, eventName first.
func (e LessonCompletedEvent) MarshalJSON() ([]byte, error) {
	type fields LessonCompletedEvent
	return marshalEvent(EventLessonCompleted, (*fields)(&e))
}

// MarshalJSON writes the spec's payload, eventName first.
func (e LessonPublishedEvent) MarshalJSON() ([]byte, error) {
	type fields LessonPublishedEvent
	return marshalEvent(EventLessonPublished, (*fields)(&e))
}

// MarshalJSON writes the spec's payload, eventName first.
func (e LessonUnpublishedEvent) MarshalJSON() ([]byte, error) {
	type fields LessonUnpublishedEvent
	return marshalEvent(EventLessonUnpublished, (*fields)(&e))
}

// MarshalJSON writes the spec's payload, eventName first.
func (e CoursePublishedEvent) MarshalJSON() ([]byte, error) {
	type fields CoursePublishedEvent
	return marshalEvent(EventCoursePublished, (*fields)(&e))
}

// MarshalJSON writes the spec's payload, eventName first.
func (e CourseUnPublishedEvent) MarshalJSON() ([]byte, error) {
	type fields CourseUnPublishedEvent
	return marshalEvent(EventCourseUnPublished, (*fields)(&e))
}

// MarshalJSON writes the spec's payload, eventName first.
func (e RapidRefreshSessionStartedNotificationEvent) MarshalJSON() ([]byte, error) {
	type fields RapidRefreshSessionStartedNotificationEvent
	return marshalEvent(EventRapidRefreshSessionStartedNotification, (*fields)(&e))
}

// MarshalJSON writes the spec's payload, eventName first.
func (e RapidRefreshRetrySessionStartedNotificationEvent) MarshalJSON() ([]byte, error) {
	type fields RapidRefreshRetrySessionStartedNotificationEvent
	return marshalEvent(EventRapidRefreshRetrySessionStartedNotification, (*fields)(&e))
}

// MarshalJSON writes the spec's payload, eventName first.
func (e RapidRefreshSessionReminderNotificationEvent) MarshalJSON() ([]byte, error) {
	type fields RapidRefreshSessionReminderNotificationEvent
	return marshalEvent(EventRapidRefreshSessionReminderNotification, (*fields)(&e))
}

// MarshalJSON writes the spec's payload, eventName first.
func (e CourseReminderWebHookEvent) MarshalJSON() ([]byte, error) {
	type fields CourseReminderWebHookEvent
	return marshalEvent(EventCourseReminderWebHook, (*fields)(&e))
}

// marshalEvent encodes fields (an event struct converted to a type without
// methods) and puts eventName in front of its members.
func marshalEvent(name EventName, fields any) ([]byte, error) {
	b, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	out := appendEventName(make([]byte, 0, len(b)+len(name)+16), name, ',')
	return append(out, b[1:]...), nil
}

// appendEventName appends {"eventName":"name" and then next.
func appendEventName(b []byte, name EventName, next byte) []byte {
	b = append(b, `{"eventName":`...)
	nb, _ := json.Marshal(string(name)) // a string always encodes
	b = append(b, nb...)
	return append(b, next)
}

// UnmarshalJSON decodes a payload with the spellings ParseEvent accepts. The
// payload's eventName is not checked: use ParseEvent to dispatch on it.
func (e *CourseCompletedEvent) UnmarshalJSON(b []byte) error { return unmarshalEvent(b, e) }

// UnmarshalJSON decodes a payload with the spellings ParseEvent accepts. The
// payload's eventName is not checked: use ParseEvent to dispatch on it.
func (e *LessonCompletedEvent) UnmarshalJSON(b []byte) error { return unmarshalEvent(b, e) }

// UnmarshalJSON decodes a payload with the spellings ParseEvent accepts. The
// payload's eventName is not checked: use ParseEvent to dispatch on it.
func (e *LessonPublishedEvent) UnmarshalJSON(b []byte) error { return unmarshalEvent(b, e) }

// UnmarshalJSON decodes a payload with the spellings ParseEvent accepts. The
// payload's eventName is not checked: use ParseEvent to dispatch on it.
func (e *LessonUnpublishedEvent) UnmarshalJSON(b []byte) error { return unmarshalEvent(b, e) }

// UnmarshalJSON decodes a payload with the spellings ParseEvent accepts. The
// payload's eventName is not checked: use ParseEvent to dispatch on it.
func (e *CoursePublishedEvent) UnmarshalJSON(b []byte) error { return unmarshalEvent(b, e) }

// UnmarshalJSON decodes a payload with the spellings ParseEvent accepts. The
// payload's eventName is not checked: use ParseEvent to dispatch on it.
func (e *CourseUnPublishedEvent) UnmarshalJSON(b []byte) error { return unmarshalEvent(b, e) }

// UnmarshalJSON decodes a payload with the spellings ParseEvent accepts. The
// payload's eventName is not checked: use ParseEvent to dispatch on it.
func (e *RapidRefreshSessionStartedNotificationEvent) UnmarshalJSON(b []byte) error {
	return unmarshalEvent(b, e)
}

// UnmarshalJSON decodes a payload with the spellings ParseEvent accepts. The
// payload's eventName is not checked: use ParseEvent to dispatch on it.
func (e *RapidRefreshRetrySessionStartedNotificationEvent) UnmarshalJSON(b []byte) error {
	return unmarshalEvent(b, e)
}

// UnmarshalJSON decodes a payload with the spellings ParseEvent accepts. The
// payload's eventName is not checked: use ParseEvent to dispatch on it.
func (e *RapidRefreshSessionReminderNotificationEvent) UnmarshalJSON(b []byte) error {
	return unmarshalEvent(b, e)
}

// UnmarshalJSON decodes a payload with the spellings ParseEvent accepts. The
// payload's eventName is not checked: use ParseEvent to dispatch on it.
func (e *CourseReminderWebHookEvent) UnmarshalJSON(b []byte) error { return unmarshalEvent(b, e) }

// fillable is an event struct that can be filled from scanned fields.
type fillable interface {
	Event
	fill(f *eventFields)
}

// unmarshalEvent is the UnmarshalJSON of the event structs. As encoding/json
// expects, null leaves e unchanged.
func unmarshalEvent(b []byte, e fillable) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	var f eventFields
	if err := f.scan(b); err != nil {
		return err
	}
	f.event = e.Name()
	e.fill(&f)
	return f.err
}

func (e *CourseCompletedEvent) fill(f *eventFields) {
	*e = CourseCompletedEvent{
		UserID:      f.str(fUserID),
		UserName:    f.str(fUserName),
		Email:       f.str(fEmail),
		FirstName:   f.str(fFirstName),
		LastName:    f.str(fLastName),
		CourseID:    f.str(fCourseID),
		CourseTitle: f.str(fCourseTitle),
		Timestamp:   f.time(fTimestamp),
	}
}

func (e *LessonCompletedEvent) fill(f *eventFields) {
	*e = LessonCompletedEvent{
		UserID:      f.str(fUserID),
		UserName:    f.str(fUserName),
		Email:       f.str(fEmail),
		FirstName:   f.str(fFirstName),
		LastName:    f.str(fLastName),
		CourseID:    f.str(fCourseID),
		CourseTitle: f.str(fCourseTitle),
		LessonID:    f.str(fLessonID),
		LessonTitle: f.str(fLessonTitle),
		Timestamp:   f.time(fTimestamp),
		Score:       f.number(fScore),
	}
}

func (e *LessonPublishedEvent) fill(f *eventFields) {
	*e = LessonPublishedEvent(f.lessonChange())
}

func (e *LessonUnpublishedEvent) fill(f *eventFields) {
	*e = LessonUnpublishedEvent(f.lessonChange())
}

func (e *CoursePublishedEvent) fill(f *eventFields) {
	*e = CoursePublishedEvent(f.courseChange())
}

func (e *CourseUnPublishedEvent) fill(f *eventFields) {
	*e = CourseUnPublishedEvent(f.courseChange())
}

func (e *RapidRefreshSessionStartedNotificationEvent) fill(f *eventFields) {
	*e = RapidRefreshSessionStartedNotificationEvent(f.rapidRefresh())
}

func (e *RapidRefreshRetrySessionStartedNotificationEvent) fill(f *eventFields) {
	*e = RapidRefreshRetrySessionStartedNotificationEvent(f.rapidRefresh())
}

func (e *RapidRefreshSessionReminderNotificationEvent) fill(f *eventFields) {
	*e = RapidRefreshSessionReminderNotificationEvent(f.rapidRefresh())
}

func (e *CourseReminderWebHookEvent) fill(f *eventFields) {
	*e = CourseReminderWebHookEvent{
		UserID:         f.str(fUserID),
		UserExternalID: f.str(fUserExternalID),
		UserName:       f.str(fUserName),
		Email:          f.str(fEmail),
		CourseID:       f.str(fCourseID),
		CourseTitle:    f.str(fCourseTitle),
		CourseLink:     f.str(fCourseLink),
		DueDate:        f.time(fDueDate),
		Timestamp:      f.time(fTimestamp),
	}
}

// lessonChange fills the fields of the two lesson publishing events, which
// have the same fields and convert into each other.
func (f *eventFields) lessonChange() LessonPublishedEvent {
	return LessonPublishedEvent{
		UserID:      f.str(fUserID),
		UserName:    f.str(fUserName),
		Email:       f.str(fEmail),
		CourseID:    f.str(fCourseID),
		CourseTitle: f.str(fCourseTitle),
		LessonID:    f.str(fLessonID),
		LessonTitle: f.str(fLessonTitle),
		Timestamp:   f.time(fTimestamp),
	}
}

// courseChange fills the fields shared by the two course publishing events.
func (f *eventFields) courseChange() CoursePublishedEvent {
	return CoursePublishedEvent{
		UserID:      f.str(fUserID),
		UserName:    f.str(fUserName),
		Email:       f.str(fEmail),
		CourseID:    f.str(fCourseID),
		CourseTitle: f.str(fCourseTitle),
		Timestamp:   f.time(fTimestamp),
	}
}

// rapidRefresh fills the fields shared by the three Rapid Refresh events.
func (f *eventFields) rapidRefresh() RapidRefreshSessionStartedNotificationEvent {
	return RapidRefreshSessionStartedNotificationEvent{
		UserID:         f.str(fUserID),
		UserExternalID: f.str(fUserExternalID),
		UserName:       f.str(fUserName),
		Email:          f.str(fEmail),
		QuizID:         f.str(fQuizID),
		QuizTitle:      f.str(fQuizTitle),
		QuizSession:    f.str(fQuizSession),
		QuizLink:       f.str(fQuizLink),
		Timestamp:      f.time(fTimestamp),
	}
}

// Field slots of a delivery body. Spellings of one field share a slot.
const (
	fEventName = iota
	fUserID
	fUserName
	fEmail
	fFirstName
	fLastName
	fUserExternalID
	fCourseID
	fCourseTitle
	fLessonID
	fLessonTitle
	fScore
	fQuizID
	fQuizTitle
	fQuizSession
	fQuizLink
	fCourseLink
	fDueDate
	fTimestamp
	numFields
)

// fieldSlot returns the slot of a top-level key, or -1 for a key no event
// has.
func fieldSlot(key []byte) int {
	switch string(key) {
	case "eventName":
		return fEventName
	case "userId":
		return fUserID
	case "userName", "username":
		return fUserName
	case "email":
		return fEmail
	case "firstname", "firstName":
		return fFirstName
	case "lastname", "lastName":
		return fLastName
	case "userExternalId":
		return fUserExternalID
	case "courseId":
		return fCourseID
	case "courseTitle":
		return fCourseTitle
	case "lessonId":
		return fLessonID
	case "lessonTitle":
		return fLessonTitle
	case "score":
		return fScore
	case "quizId":
		return fQuizID
	case "quizTitle":
		return fQuizTitle
	case "quizSession":
		return fQuizSession
	case "quizLink":
		return fQuizLink
	case "courseLink":
		return fCourseLink
	case "dueDate":
		return fDueDate
	case "timestamp":
		return fTimestamp
	}
	return -1
}

// eventFields holds the raw JSON values of the known top-level keys of one
// payload, as slices of it, and then decodes them on demand. The first
// decoding error is kept in err.
type eventFields struct {
	val   [numFields][]byte // raw value; nil when the key is absent
	key   [numFields][]byte // the key it came under, for error messages
	event EventName
	err   error
}

// scan checks that payload is one JSON object and records the raw values of
// its known keys. A repeated key keeps its last value, as in encoding/json.
func (f *eventFields) scan(payload []byte) error {
	s := scanner{data: payload}
	s.skipSpace()
	if s.peek() != '{' {
		if s.off == len(payload) {
			return errors.New("edapp: event payload is empty")
		}
		return errors.New("edapp: event payload is not a JSON object")
	}
	if err := s.object(1, f); err != nil {
		return err
	}
	s.skipSpace()
	if s.off != len(payload) {
		return s.syntaxError("after the top-level object")
	}
	return nil
}

// eventName returns the payload's eventName.
func (f *eventFields) eventName() (EventName, error) {
	v := f.val[fEventName]
	if len(v) == 0 || v[0] == 'n' {
		return "", errors.New("edapp: event payload has no eventName")
	}
	if v[0] != '"' {
		return "", fmt.Errorf("edapp: event payload: field \"eventName\": want a string, got %s", kindOf(v))
	}
	for _, n := range eventNames {
		if string(v[1:len(v)-1]) == string(n) {
			return n, nil
		}
	}
	s := unquote(v)
	if s == "" {
		return "", errors.New("edapp: event payload has an empty eventName")
	}
	return EventName(s), nil
}

// fail records the first decoding error, naming the event and the field.
func (f *eventFields) fail(slot int, format string, args ...any) {
	if f.err == nil {
		f.err = fmt.Errorf("edapp: %s: field %q: %s", f.event, f.key[slot], fmt.Sprintf(format, args...))
	}
}

// str decodes a string field. null and absence give "", and a number is kept
// as written.
func (f *eventFields) str(slot int) string {
	v := f.val[slot]
	if len(v) == 0 {
		return ""
	}
	switch c := v[0]; {
	case c == '"':
		return unquote(v)
	case c == 'n':
		return ""
	case c == '-' || '0' <= c && c <= '9':
		return string(v)
	}
	f.fail(slot, "want a string, got %s", kindOf(v))
	return ""
}

// time decodes a datetime field in any form Time accepts. null, "" and
// absence give the zero Time.
func (f *eventFields) time(slot int) Time {
	v := f.val[slot]
	if len(v) == 0 || v[0] == 'n' {
		return Time{}
	}
	if v[0] != '"' {
		f.fail(slot, "want a datetime string, got %s", kindOf(v))
		return Time{}
	}
	s := unquote(v)
	t, err := ParseTime(s)
	if err != nil {
		f.fail(slot, "invalid datetime %q", excerpt(s, 64))
	}
	return t
}

// number decodes a number field sent as a JSON number or as a string holding
// one (surrounding spaces allowed). null, "" and absence give 0.
func (f *eventFields) number(slot int) float64 {
	v := f.val[slot]
	if len(v) == 0 || v[0] == 'n' {
		return 0
	}
	var s string
	switch c := v[0]; {
	case c == '"':
		s = strings.TrimSpace(unquote(v))
		if s == "" {
			return 0
		}
		if !isJSONNumber(s) {
			f.fail(slot, "invalid number %q", excerpt(s, 64))
			return 0
		}
	case c == '-' || '0' <= c && c <= '9':
		s = string(v)
	default:
		f.fail(slot, "want a number, got %s", kindOf(v))
		return 0
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		f.fail(slot, "number %s out of range", excerpt(s, 64))
		return 0
	}
	return n
}

// unquote decodes a JSON string token that scan has checked. Strings without
// escapes and with valid UTF-8, the usual case, are copied directly; others
// are left to encoding/json, so that escapes and invalid UTF-8 come out as
// encoding/json makes them.
func unquote(tok []byte) string {
	inner := tok[1 : len(tok)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		return string(inner) // not reached: scan has checked the token
	}
	return s
}

// kindOf names the JSON type of a raw value for error messages.
func kindOf(v []byte) string {
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// maxDepth is the deepest nesting of objects and arrays scan accepts, the same
// limit as encoding/json's.
const maxDepth = 10000

// scanner checks JSON syntax (RFC 8259, as encoding/json does) over a byte
// slice without building any values.
type scanner struct {
	data []byte
	off  int
}

// peek returns the byte at the offset, or 0 at the end (0 never starts a
// valid token).
func (s *scanner) peek() byte {
	if s.off < len(s.data) {
		return s.data[s.off]
	}
	return 0
}

func (s *scanner) skipSpace() {
	for s.off < len(s.data) {
		switch s.data[s.off] {
		case ' ', '\t', '\n', '\r':
			s.off++
		default:
			return
		}
	}
}

// syntaxError describes a syntax error at the offset.
func (s *scanner) syntaxError(context string) error {
	if s.off >= len(s.data) {
		return fmt.Errorf("edapp: malformed event payload: unexpected end of input %s", context)
	}
	return fmt.Errorf("edapp: malformed event payload: invalid character %q at offset %d %s",
		s.data[s.off], s.off, context)
}

// value skips one value at the offset. depth counts the objects and arrays
// that enclose it.
func (s *scanner) value(depth int) error {
	switch c := s.peek(); {
	case c == '"':
		_, err := s.str()
		return err
	case c == '{':
		return s.object(depth+1, nil)
	case c == '[':
		return s.array(depth + 1)
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.syntaxError("looking for a value")
}

// object skips the object at the offset. When f is not nil, it records the
// raw values of the known keys in f.
func (s *scanner) object(depth int, f *eventFields) error {
	if depth > maxDepth {
		return s.syntaxError("beyond the maximum nesting depth")
	}
	s.off++ // '{'
	s.skipSpace()
	if s.peek() == '}' {
		s.off++
		return nil
	}
	for {
		if s.peek() != '"' {
			return s.syntaxError("looking for an object key")
		}
		keyStart := s.off
		escaped, err := s.str()
		if err != nil {
			return err
		}
		keyTok := s.data[keyStart:s.off]
		s.skipSpace()
		if s.peek() != ':' {
			return s.syntaxError("after an object key")
		}
		s.off++
		s.skipSpace()
		valStart := s.off
		if err := s.value(depth); err != nil {
			return err
		}
		if f != nil {
			key := keyTok[1 : len(keyTok)-1]
			if escaped {
				key = []byte(unquote(keyTok))
			}
			if slot := fieldSlot(key); slot >= 0 {
				f.val[slot] = s.data[valStart:s.off]
				f.key[slot] = key
			}
		}
		s.skipSpace()
		switch s.peek() {
		case ',':
			s.off++
			s.skipSpace()
		case '}':
			s.off++
			return nil
		default:
			return s.syntaxError("after an object member")
		}
	}
}

// array skips the array at the offset.
func (s *scanner) array(depth int) error {
	if depth > maxDepth {
		return s.syntaxError("beyond the maximum nesting depth")
	}
	s.off++ // '['
	s.skipSpace()
	if s.peek() == ']' {
		s.off++
		return nil
	}
	for {
		if err := s.value(depth); err != nil {
			return err
		}
		s.skipSpace()
		switch s.peek() {
		case ',':
			s.off++
			s.skipSpace()
		case ']':
			s.off++
			return nil
		default:
			return s.syntaxError("after an array element")
		}
	}
}

// str skips the string at the offset and reports whether it holds escapes.
func (s *scanner) str() (escaped bool, err error) {
	d := s.data
	for i := s.off + 1; i < len(d); {
		switch c := d[i]; {
		case c == '"':
			s.off = i + 1
			return escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(d) {
				s.off = len(d)
				return false, s.syntaxError("in a string escape")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for j := i + 2; j < i+6; j++ {
					if j >= len(d) || !isHex(d[j]) {
						s.off = min(j, len(d))
						return false, s.syntaxError("in a \\u escape")
					}
				}
				i += 6
			default:
				s.off = i + 1
				return false, s.syntaxError("in a string escape")
			}
		case c < 0x20:
			s.off = i
			return false, s.syntaxError("in a string")
		default:
			i++
		}
	}
	s.off = len(d)
	return false, s.syntaxError("in a string")
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number skips the number at the offset:
// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func (s *scanner) number() error {
	d := s.data
	i := s.off
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = skipDigits(d, i)
	default:
		s.off = i
		return s.syntaxError("in a number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.off = i
			return s.syntaxError("after a decimal point")
		}
		i = skipDigits(d, i)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.off = i
			return s.syntaxError("in an exponent")
		}
		i = skipDigits(d, i)
	}
	s.off = i
	return nil
}

func skipDigits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}

// isJSONNumber reports whether s is exactly one JSON number.
func isJSONNumber(s string) bool {
	sc := scanner{data: []byte(s)}
	return sc.number() == nil && sc.off == len(s)
}

// literal skips true, false or null.
func (s *scanner) literal(lit string) error {
	end := s.off + len(lit)
	if end > len(s.data) || string(s.data[s.off:end]) != lit {
		return s.syntaxError("in a literal")
	}
	s.off = end
	return nil
}

// WebhookHandlerOption configures NewWebhookHandler.
type WebhookHandlerOption func(*webhookHandler)

// defaultMaxWebhookBody is the body limit of NewWebhookHandler without
// WithMaxBodyBytes: 1 MiB. The spec shows no maximum body size.
const defaultMaxWebhookBody = 1 << 20

// WithSecretHeader makes the handler accept only deliveries whose header
// name carries value; a missing or different value gets 401 Unauthorized.
// The handler keeps only a SHA-256 digest of value and compares the digest of
// the value received with it in constant time (crypto/subtle), so neither the
// secret nor its length shows in timings, logs or responses.
//
// The spec shows no signing of deliveries. A webhook link has a headers field
// (shown as null in the spec); headers given when the link is created are how
// a delivery can carry a shared secret, so register the link with the same
// name and value:
//
//	client.Webhooks.Create(ctx, edapp.WebhookCreateParams{
//		EventName:  edapp.EventLessonCompleted,
//		WebHookURL: "https://example.com/edapp/events",
//		Headers:    map[string]string{"X-Webhook-Secret": secret},
//	})
//
// An empty name or value would accept deliveries without any secret, so the
// handler then rejects every delivery with 401 and logs why.
func WithSecretHeader(name, value string) WebhookHandlerOption {
	return func(h *webhookHandler) {
		h.secretName = http.CanonicalHeaderKey(name)
		h.secretSum = sha256.Sum256([]byte(value))
		h.secretSet = true
		h.secretUnusable = name == "" || value == ""
	}
}

// WithMaxBodyBytes sets the largest delivery body the handler reads; a larger
// one gets 413 Request Entity Too Large. The default is 1 MiB, and n <= 0
// keeps it. The spec shows no maximum body size; deliveries are small.
func WithMaxBodyBytes(n int64) WebhookHandlerOption {
	return func(h *webhookHandler) {
		if n > 0 {
			h.maxBody = n
		}
	}
}

// WithHandlerLogger makes the handler log each rejected delivery (at Warn),
// each error of fn (at Error) and each accepted delivery (at Debug). Log
// records carry the status, the reason, the remote address and the event
// name, never header values. nil, the default, logs nothing.
func WithHandlerLogger(l *slog.Logger) WebhookHandlerOption {
	return func(h *webhookHandler) {
		if l != nil {
			h.log = l
		}
	}
}

// NewWebhookHandler returns an http.Handler that receives webhook deliveries,
// decodes each with ParseEvent and passes the typed event (an *UnknownEvent
// too) to fn, with the request's context. The spec does not show how
// deliveries are made (method, headers, retries); the handler expects what
// is most likely, a POST of the JSON payload.
//
// It answers:
//   - 405 Method Not Allowed, with an Allow header, to any method but POST;
//   - 401 Unauthorized when WithSecretHeader is given and the header is
//     missing or wrong;
//   - 413 Request Entity Too Large to a body over WithMaxBodyBytes (1 MiB by
//     default);
//   - 400 Bad Request to a body ParseEvent rejects;
//   - 500 Internal Server Error when fn returns an error, so that the sender
//     can deliver the event again;
//   - 200 OK when fn returns nil.
//
// fn is never called for a rejected delivery. The event it gets does not
// share memory with the request. The handler has no panic path of its own;
// a panic in fn goes to net/http as in any handler. A nil fn answers 500 to
// every delivery, so that none is acknowledged and lost.
//
// A receiver, paired with the link that sends to it:
//
//	secret := os.Getenv("EDAPP_WEBHOOK_SECRET")
//	http.Handle("/edapp/events", edapp.NewWebhookHandler(
//		func(ctx context.Context, ev edapp.Event) error {
//			if e, ok := ev.(*edapp.LessonCompletedEvent); ok {
//				return store.RecordCompletion(ctx, e.UserID, e.LessonID, e.Score)
//			}
//			return nil
//		},
//		edapp.WithSecretHeader("X-Webhook-Secret", secret),
//	))
//	client.Webhooks.Create(ctx, edapp.WebhookCreateParams{
//		EventName:  edapp.EventLessonCompleted,
//		WebHookURL: "https://example.com/edapp/events",
//		Headers:    map[string]string{"X-Webhook-Secret": secret},
//	})
func NewWebhookHandler(fn func(context.Context, Event) error, opts ...WebhookHandlerOption) http.Handler {
	h := &webhookHandler{
		fn:      fn,
		maxBody: defaultMaxWebhookBody,
		log:     slog.New(slog.DiscardHandler),
	}
	for _, opt := range opts {
		if opt != nil {
			opt(h)
		}
	}
	return h
}

// webhookHandler is the handler of NewWebhookHandler. It holds no secret in
// clear.
type webhookHandler struct {
	fn             func(context.Context, Event) error
	secretSet      bool
	secretUnusable bool
	secretName     string
	secretSum      [sha256.Size]byte
	maxBody        int64
	log            *slog.Logger
}

func (h *webhookHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.reject(w, r, http.StatusMethodNotAllowed, "method not allowed", nil)
		return
	}
	if reason := h.unauthorized(r); reason != "" {
		h.reject(w, r, http.StatusUnauthorized, reason, nil)
		return
	}
	if r.ContentLength > h.maxBody {
		h.reject(w, r, http.StatusRequestEntityTooLarge, "body too large", nil)
		return
	}
	var body []byte
	if r.Body != nil {
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				h.reject(w, r, http.StatusRequestEntityTooLarge, "body too large", nil)
			} else {
				h.reject(w, r, http.StatusBadRequest, "body could not be read", err)
			}
			return
		}
	}
	ev, err := ParseEvent(body)
	if err != nil {
		h.reject(w, r, http.StatusBadRequest, "malformed event payload", err)
		return
	}
	if h.fn == nil {
		h.log.LogAttrs(r.Context(), slog.LevelError, "edapp webhook: no event function",
			slog.String("event", string(ev.Name())))
		http.Error(w, "event not processed", http.StatusInternalServerError)
		return
	}
	if err := h.fn(r.Context(), ev); err != nil {
		h.log.LogAttrs(r.Context(), slog.LevelError, "edapp webhook: event function failed",
			slog.String("event", string(ev.Name())), slog.Any("error", err))
		http.Error(w, "event not processed", http.StatusInternalServerError)
		return
	}
	h.log.LogAttrs(r.Context(), slog.LevelDebug, "edapp webhook: event accepted",
		slog.String("event", string(ev.Name())))
	w.WriteHeader(http.StatusOK)
}

// unauthorized checks the secret header and returns why it fails, or "".
func (h *webhookHandler) unauthorized(r *http.Request) string {
	if !h.secretSet {
		return ""
	}
	if h.secretUnusable {
		return "secret header configured with an empty name or value"
	}
	got, ok := r.Header[h.secretName]
	if !ok || len(got) == 0 {
		return "secret header missing"
	}
	sum := sha256.Sum256([]byte(got[0]))
	if subtle.ConstantTimeCompare(sum[:], h.secretSum[:]) != 1 {
		return "secret header wrong"
	}
	return ""
}

// reject answers a delivery that fn will not see, and logs why.
func (h *webhookHandler) reject(w http.ResponseWriter, r *http.Request, status int, reason string, err error) {
	attrs := []slog.Attr{
		slog.Int("status", status),
		slog.String("reason", reason),
		slog.String("method", r.Method),
		slog.String("remote", r.RemoteAddr),
	}
	if err != nil {
		attrs = append(attrs, slog.Any("error", err))
	}
	h.log.LogAttrs(r.Context(), slog.LevelWarn, "edapp webhook: delivery rejected", attrs...)
	http.Error(w, http.StatusText(status), status)
}
