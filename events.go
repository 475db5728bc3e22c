package edapp

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
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

// eventType is what ParseEvent and the JSON methods need of one event
// struct, worked out once from its row of eventTable.
type eventType struct {
	new    func() Event
	plain  reflect.Type // the struct's fields without its methods
	fields []eventField
}

// eventField is one field of an event struct (a string, float64 or Time):
// its index, its slot in wireType, its JSON name, and whether it identifies
// an occurrence of the event (EventKey).
type eventField struct {
	index, slot int
	key         string
	identity    bool
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
			t.fields = append(t.fields, eventField{index: i, slot: slotOf(key), key: key,
				identity: slices.Contains(row.identity, key)})
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

// EventKey returns a stable key for deduplicating deliveries: the same for
// a redelivery of an event, different for two distinct events. It is 64
// lowercase hexadecimal digits, a SHA-256 digest of the event's identity:
//
//   - for the ten events: the event name, the user (userId), the subject
//     (courseId, lessonId, or quizId and quizSession; dueDate too for a
//     course reminder) and the timestamp, in UTC to the nanosecond, so that
//     two occurrences a microsecond apart keep apart. The other fields
//     (titles, names, score) describe the occurrence and do not change the
//     key;
//   - for one of the ten events without a timestamp, whose occurrences
//     nothing else tells apart: the name and every field;
//   - for an *UnknownEvent: the name and the canonical form of Raw (its JSON
//     with object members sorted and no spaces; Raw's bytes when it is not
//     JSON).
//
// A redelivery decodes to the same event whatever spelling or time zone it
// uses, so it gets the same key. The rule is the SDK's own (EdApp sends no
// delivery id) and stays the same across versions. A nil event gives "".
func EventKey(ev Event) string {
	if ev == nil || reflect.ValueOf(ev).IsNil() {
		return ""
	}
	h := sha256.New()
	if u, ok := ev.(*UnknownEvent); ok {
		writeKeyPart(h, "unknown")
		writeKeyPart(h, string(u.EventName))
		writeKeyPart(h, string(canonicalJSON(u.Raw)))
		return hex.EncodeToString(h.Sum(nil))
	}
	t := eventTypes[ev.Name()]
	v := reflect.ValueOf(ev).Elem()
	whole := v.FieldByName("Timestamp").Interface().(Time).IsZero()
	if whole {
		writeKeyPart(h, "whole")
	} else {
		writeKeyPart(h, "identity")
	}
	writeKeyPart(h, string(ev.Name()))
	for _, f := range t.fields {
		if f.identity || whole {
			writeKeyPart(h, f.key)
			writeKeyPart(h, keyValue(v.Field(f.index)))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeKeyPart writes s to h after its length, so that no two lists of
// parts write the same bytes.
func writeKeyPart(h hash.Hash, s string) {
	h.Write(binary.AppendUvarint(nil, uint64(len(s))))
	h.Write([]byte(s))
}

// keyValue is a field's value as EventKey writes it: a string as it is, a
// number in its shortest exact form, a datetime in UTC to the nanosecond
// ("" for zero).
func keyValue(v reflect.Value) string {
	switch x := v.Interface().(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case Time:
		if x.IsZero() {
			return ""
		}
		return x.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v.Interface())
}

// canonicalJSON returns raw with object members sorted and no spaces, and
// numbers as written; raw itself when it is not JSON.
func canonicalJSON(raw []byte) []byte {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}
