package edapp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
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
// them: each name with the constructor of its struct. It drives ParseEvent,
// EventNames and the events' JSON methods.
var eventTable = []struct {
	name EventName
	new  func() Event
}{
	{EventCourseCompleted, newEvent[CourseCompletedEvent]},
	{EventLessonCompleted, newEvent[LessonCompletedEvent]},
	{EventLessonPublished, newEvent[LessonPublishedEvent]},
	{EventLessonUnpublished, newEvent[LessonUnpublishedEvent]},
	{EventCoursePublished, newEvent[CoursePublishedEvent]},
	{EventCourseUnPublished, newEvent[CourseUnPublishedEvent]},
	{EventRapidRefreshSessionStartedNotification, newEvent[RapidRefreshSessionStartedNotificationEvent]},
	{EventRapidRefreshRetrySessionStartedNotification, newEvent[RapidRefreshRetrySessionStartedNotificationEvent]},
	{EventRapidRefreshSessionReminderNotification, newEvent[RapidRefreshSessionReminderNotificationEvent]},
	{EventCourseReminderWebHook, newEvent[CourseReminderWebHookEvent]},
}

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

func (*CourseCompletedEvent) Name() EventName   { return EventCourseCompleted }
func (*LessonCompletedEvent) Name() EventName   { return EventLessonCompleted }
func (*LessonPublishedEvent) Name() EventName   { return EventLessonPublished }
func (*LessonUnpublishedEvent) Name() EventName { return EventLessonUnpublished }
func (*CoursePublishedEvent) Name() EventName   { return EventCoursePublished }
func (*CourseUnPublishedEvent) Name() EventName { return EventCourseUnPublished }
func (*RapidRefreshSessionStartedNotificationEvent) Name() EventName {
	return EventRapidRefreshSessionStartedNotification
}
func (*RapidRefreshRetrySessionStartedNotificationEvent) Name() EventName {
	return EventRapidRefreshRetrySessionStartedNotification
}
func (*RapidRefreshSessionReminderNotificationEvent) Name() EventName {
	return EventRapidRefreshSessionReminderNotification
}
func (*CourseReminderWebHookEvent) Name() EventName           { return EventCourseReminderWebHook }
func (e CourseCompletedEvent) MarshalJSON() ([]byte, error)   { return marshalEvent(&e) }
func (e LessonCompletedEvent) MarshalJSON() ([]byte, error)   { return marshalEvent(&e) }
func (e LessonPublishedEvent) MarshalJSON() ([]byte, error)   { return marshalEvent(&e) }
func (e LessonUnpublishedEvent) MarshalJSON() ([]byte, error) { return marshalEvent(&e) }
func (e CoursePublishedEvent) MarshalJSON() ([]byte, error)   { return marshalEvent(&e) }
func (e CourseUnPublishedEvent) MarshalJSON() ([]byte, error) { return marshalEvent(&e) }
func (e RapidRefreshSessionStartedNotificationEvent) MarshalJSON() ([]byte, error) {
	return marshalEvent(&e)
}
func (e RapidRefreshRetrySessionStartedNotificationEvent) MarshalJSON() ([]byte, error) {
	return marshalEvent(&e)
}
func (e RapidRefreshSessionReminderNotificationEvent) MarshalJSON() ([]byte, error) {
	return marshalEvent(&e)
}
func (e CourseReminderWebHookEvent) MarshalJSON() ([]byte, error) { return marshalEvent(&e) }
func (e *CourseCompletedEvent) UnmarshalJSON(b []byte) error      { return unmarshalEvent(b, e) }
func (e *LessonCompletedEvent) UnmarshalJSON(b []byte) error      { return unmarshalEvent(b, e) }
func (e *LessonPublishedEvent) UnmarshalJSON(b []byte) error      { return unmarshalEvent(b, e) }
func (e *LessonUnpublishedEvent) UnmarshalJSON(b []byte) error    { return unmarshalEvent(b, e) }
func (e *CoursePublishedEvent) UnmarshalJSON(b []byte) error      { return unmarshalEvent(b, e) }
func (e *CourseUnPublishedEvent) UnmarshalJSON(b []byte) error    { return unmarshalEvent(b, e) }
func (e *RapidRefreshSessionStartedNotificationEvent) UnmarshalJSON(b []byte) error {
	return unmarshalEvent(b, e)
}
func (e *RapidRefreshRetrySessionStartedNotificationEvent) UnmarshalJSON(b []byte) error {
	return unmarshalEvent(b, e)
}
func (e *RapidRefreshSessionReminderNotificationEvent) UnmarshalJSON(b []byte) error {
	return unmarshalEvent(b, e)
}
func (e *CourseReminderWebHookEvent) UnmarshalJSON(b []byte) error { return unmarshalEvent(b, e) }

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

// eventType is what ParseEvent and the JSON methods need of one event
// struct, worked out once from its row of eventTable.
type eventType struct {
	new    func() Event
	plain  reflect.Type // the struct's fields without its methods
	fields []eventField
}

// eventField is one field of an event struct (a string, float64 or Time):
// its index, its slot in wireType and its JSON name.
type eventField struct {
	index, slot int
	key         string
}

// wireType has a field of type wireValue for eventName and for each JSON name
// any event has, names that differ only in case sharing one, so that one pass
// of encoding/json finds every value, whichever event the payload is.
var eventTypes, wireType = buildEventTypes()

func buildEventTypes() (map[EventName]*eventType, reflect.Type) {
	types := map[EventName]*eventType{}
	slots := map[string]int{}
	var wire []reflect.StructField
	slotOf := func(key string) int {
		slot, ok := slots[strings.ToLower(key)]
		if !ok {
			slot = len(wire)
			slots[strings.ToLower(key)] = slot
			wire = append(wire, reflect.StructField{Name: "F" + strconv.Itoa(slot),
				Type: reflect.TypeFor[wireValue](), Tag: reflect.StructTag(`json:"` + key + `"`)})
		}
		return slot
	}
	slotOf("eventName") // slot 0
	for _, row := range eventTable {
		fields := reflect.VisibleFields(reflect.TypeOf(row.new()).Elem())
		t := &eventType{new: row.new, plain: reflect.StructOf(fields)}
		for i, f := range fields {
			key := f.Tag.Get("json")
			t.fields = append(t.fields, eventField{index: i, slot: slotOf(key), key: key})
		}
		types[row.name] = t
	}
	return types, reflect.StructOf(wire)
}

// wireValue keeps a value as sent, to be decoded once the event is known: a
// value that does not fit counts only for an event that has the field. It
// points into the payload, which must not change until the event is filled.
type wireValue []byte

func (v *wireValue) UnmarshalJSON(b []byte) error {
	*v = b
	return nil
}

// decodeWire checks that payload is one JSON object and returns a wireType
// holding the values of the names events have.
func decodeWire(payload []byte) (reflect.Value, error) {
	if trimmed := bytes.TrimLeft(payload, " \t\r\n"); len(trimmed) == 0 {
		return reflect.Value{}, errors.New("edapp: event payload is empty")
	} else if trimmed[0] != '{' {
		return reflect.Value{}, errors.New("edapp: event payload is not a JSON object")
	}
	w := reflect.New(wireType)
	if err := json.Unmarshal(payload, w.Interface()); err != nil {
		return reflect.Value{}, fmt.Errorf("edapp: malformed event payload: %w", err)
	}
	return w.Elem(), nil
}

// eventName returns the eventName of w, a decoded wireType.
func eventName(w reflect.Value) (EventName, error) {
	v := w.Field(0).Bytes()
	if len(v) == 0 || v[0] == 'n' {
		return "", errors.New("edapp: event payload has no eventName")
	}
	if v[0] != '"' {
		return "", fmt.Errorf("edapp: event payload: field \"eventName\": want a string, got %s", kindOf(v))
	}
	name := EventName(unquote(v))
	if name == "" {
		return "", errors.New("edapp: event payload has an empty eventName")
	}
	return name, nil
}

// fill sets every field of ev from w, a decoded wireType. Absent fields are
// zero.
func fill(ev Event, w reflect.Value) error {
	v := reflect.ValueOf(ev).Elem()
	v.SetZero()
	for _, f := range eventTypes[ev.Name()].fields {
		raw := w.Field(f.slot).Bytes()
		if len(raw) == 0 || raw[0] == 'n' {
			continue // absent or null
		}
		var err error
		switch dst := v.Field(f.index).Addr().Interface().(type) {
		case *string:
			*dst, err = decodeText(raw)
		case *float64:
			*dst, err = decodeNumber(raw)
		case *Time:
			err = decodeTime(raw, dst)
		}
		if err != nil {
			return fmt.Errorf("edapp: %s: field %q: %w", ev.Name(), f.key, err)
		}
	}
	return nil
}

// decodeText decodes a string, or a number kept as written.
func decodeText(raw []byte) (string, error) {
	switch kindOf(raw) {
	case "a string":
		return unquote(raw), nil
	case "a number":
		return string(raw), nil
	}
	return "", fmt.Errorf("want a string, got %s", kindOf(raw))
}

// decodeNumber decodes a JSON number, or a string holding one (surrounding
// spaces allowed). "" gives 0.
func decodeNumber(raw []byte) (float64, error) {
	s := string(raw)
	switch kindOf(raw) {
	case "a string":
		if s = strings.TrimSpace(unquote(raw)); s == "" {
			return 0, nil
		}
		if kindOf([]byte(s)) != "a number" || !json.Valid([]byte(s)) {
			return 0, fmt.Errorf("invalid number %q", excerpt(s, 64))
		}
	case "a number":
	default:
		return 0, fmt.Errorf("want a number, got %s", kindOf(raw))
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("number %s out of range", excerpt(s, 64))
	}
	return n, nil
}

// decodeTime decodes a datetime string in any form Time accepts.
func decodeTime(raw []byte, t *Time) error {
	if raw[0] != '"' {
		return fmt.Errorf("want a datetime string, got %s", kindOf(raw))
	}
	parsed, err := ParseTime(unquote(raw))
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "edapp: "))
	}
	*t = parsed
	return nil
}

// unquote decodes a JSON string that encoding/json has checked. Strings
// without escapes and with valid UTF-8, the usual case, are copied directly.
func unquote(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(raw, &s) // cannot fail on a checked string
	return s
}

// kindOf names the JSON type of a raw value for error messages.
func kindOf(v []byte) string {
	if k := jsonKinds[v[0]]; k != "" {
		return k
	}
	return "a number"
}

var jsonKinds = [256]string{'"': "a string", '{': "an object", '[': "an array", 't': "a boolean", 'f': "a boolean", 'n': "null"}

// marshalEvent is the MarshalJSON of the event structs: their fields, with
// eventName in front.
func marshalEvent(ev Event) ([]byte, error) {
	plain := reflect.ValueOf(ev).Elem().Convert(eventTypes[ev.Name()].plain)
	b, err := json.Marshal(plain.Interface())
	if err != nil {
		return nil, err
	}
	out := appendEventName(make([]byte, 0, len(b)+len(ev.Name())+16), ev.Name(), ',')
	return append(out, b[1:]...), nil
}

// appendEventName appends {"eventName":"name" and then next.
func appendEventName(b []byte, name EventName, next byte) []byte {
	b = append(b, `{"eventName":`...)
	nb, _ := json.Marshal(string(name)) // a string always encodes
	b = append(b, nb...)
	return append(b, next)
}

// unmarshalEvent is the UnmarshalJSON of the event structs. The payload's
// eventName is not checked. As encoding/json expects, null leaves ev
// unchanged.
func unmarshalEvent(b []byte, ev Event) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	w, err := decodeWire(b)
	if err != nil {
		return err
	}
	return fill(ev, w)
}
