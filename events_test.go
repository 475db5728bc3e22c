package edapp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
)

// at builds a UTC datetime with milliseconds.
func eventTime(year int, month time.Month, day, hour, min, sec, ms int) edapp.Time {
	return edapp.Time{Time: time.Date(year, month, day, hour, min, sec, ms*int(time.Millisecond), time.UTC)}
}

// eventFixtures is what each file of testdata/events decodes to.
var eventFixtures = map[string]edapp.Event{
	"CourseCompletedEvent.json": &edapp.CourseCompletedEvent{
		UserID:      "5c8094a8a2d7bd0013d3b5a1",
		UserName:    "amelia.chen",
		Email:       "amelia.chen@harbourlogistics.example",
		FirstName:   "Amelia",
		LastName:    "Chen",
		CourseID:    "5f1e2d3c4b5a69788796a5b4",
		CourseTitle: "Workplace Health & Safety Essentials",
		Timestamp:   eventTime(2024, 5, 14, 3, 22, 41, 187),
	},
	"LessonCompletedEvent.json": &edapp.LessonCompletedEvent{
		UserID:      "5c8094a8a2d7bd0013d3b5a1",
		UserName:    "amelia.chen",
		Email:       "amelia.chen@harbourlogistics.example",
		FirstName:   "Amelia",
		LastName:    "Chen",
		CourseID:    "5f1e2d3c4b5a69788796a5b4",
		CourseTitle: "Workplace Health & Safety Essentials",
		LessonID:    "5f1e2e0a4b5a69788796a5c7",
		LessonTitle: "Manual Handling: Lifting Safely",
		Timestamp:   eventTime(2024, 5, 14, 3, 19, 2, 554),
		Score:       87.5,
	},
	"LessonPublishedEvent.json": &edapp.LessonPublishedEvent{
		UserID:      "5b3f0c1de4a2b10014c0ffee",
		UserName:    "training.admin",
		Email:       "training.admin@harbourlogistics.example",
		CourseID:    "5f1e2d3c4b5a69788796a5b4",
		CourseTitle: "Workplace Health & Safety Essentials",
		LessonID:    "5f1e2e0a4b5a69788796a5c9",
		LessonTitle: "Hazard Reporting in 5 Steps",
		Timestamp:   eventTime(2024, 5, 2, 22, 47, 13, 901),
	},
	"LessonUnpublishedEvent.json": &edapp.LessonUnpublishedEvent{
		UserID:      "5b3f0c1de4a2b10014c0ffee",
		UserName:    "training.admin",
		Email:       "training.admin@harbourlogistics.example",
		CourseID:    "5f1e2d3c4b5a69788796a5b4",
		CourseTitle: "Workplace Health & Safety Essentials",
		LessonID:    "5f1e2e0a4b5a69788796a5c2",
		LessonTitle: "Forklift Basics (2019 edition)",
		Timestamp:   eventTime(2024, 5, 3, 1, 5, 44, 20),
	},
	"CoursePublishedEvent.json": &edapp.CoursePublishedEvent{
		UserID:      "5b3f0c1de4a2b10014c0ffee",
		UserName:    "training.admin",
		Email:       "training.admin@harbourlogistics.example",
		CourseID:    "6012ab34cd56ef7890a1b2c3",
		CourseTitle: "Customer Service Fundamentals",
		Timestamp:   eventTime(2024, 4, 29, 6, 30, 0, 0),
	},
	"CourseUnPublishedEvent.json": &edapp.CourseUnPublishedEvent{
		UserID:      "5b3f0c1de4a2b10014c0ffee",
		UserName:    "training.admin",
		Email:       "training.admin@harbourlogistics.example",
		CourseID:    "5d9a7c6b5a4f3e2d1c0b9a88",
		CourseTitle: "Onboarding 2023",
		Timestamp:   eventTime(2024, 4, 30, 7, 12, 9, 315),
	},
	"RapidRefreshSessionStartedNotificationEvent.json": &edapp.RapidRefreshSessionStartedNotificationEvent{
		UserID:         "5c8094a8a2d7bd0013d3b5a1",
		UserExternalID: "EMP-00417",
		UserName:       "amelia.chen",
		Email:          "amelia.chen@harbourlogistics.example",
		QuizID:         "60a7f3e2b1c4d50015aa01b2",
		QuizTitle:      "Dangerous Goods Refresher",
		QuizSession:    "1",
		QuizLink:       "https://web.edapp.com/#rapid-refresh/60a7f3e2b1c4d50015aa01b2/session/1",
		Timestamp:      eventTime(2024, 5, 20, 23, 0, 0, 412),
	},
	"RapidRefreshRetrySessionStartedNotificationEvent.json": &edapp.RapidRefreshRetrySessionStartedNotificationEvent{
		UserID:         "5c8094a8a2d7bd0013d3b5a1",
		UserExternalID: "EMP-00417",
		UserName:       "amelia.chen",
		Email:          "amelia.chen@harbourlogistics.example",
		QuizID:         "60a7f3e2b1c4d50015aa01b2",
		QuizTitle:      "Dangerous Goods Refresher",
		QuizSession:    "2",
		QuizLink:       "https://web.edapp.com/#rapid-refresh/60a7f3e2b1c4d50015aa01b2/session/2",
		Timestamp:      eventTime(2024, 5, 22, 23, 0, 1, 78),
	},
	"RapidRefreshSessionReminderNotificationEvent.json": &edapp.RapidRefreshSessionReminderNotificationEvent{
		UserID:         "5e2b9d8c7a6f5e4d3c2b1a09",
		UserExternalID: "EMP-01283",
		UserName:       "tomas.novak",
		Email:          "tomas.novak@harbourlogistics.example",
		QuizID:         "60a7f3e2b1c4d50015aa01b2",
		QuizTitle:      "Dangerous Goods Refresher",
		QuizSession:    "1",
		QuizLink:       "https://web.edapp.com/#rapid-refresh/60a7f3e2b1c4d50015aa01b2/session/1",
		Timestamp:      eventTime(2024, 5, 21, 22, 0, 0, 950),
	},
	"CourseReminderWebHookEvent.json": &edapp.CourseReminderWebHookEvent{
		UserID:         "5e2b9d8c7a6f5e4d3c2b1a09",
		UserExternalID: "EMP-01283",
		UserName:       "tomas.novak",
		Email:          "tomas.novak@harbourlogistics.example",
		CourseID:       "5f1e2d3c4b5a69788796a5b4",
		CourseTitle:    "Workplace Health & Safety Essentials",
		CourseLink:     "https://web.edapp.com/#course/5f1e2d3c4b5a69788796a5b4",
		DueDate:        eventTime(2024, 6, 1, 0, 0, 0, 0),
		Timestamp:      eventTime(2024, 5, 25, 23, 0, 3, 260),
	},

	// Spelling variants seen in practice.
	"CourseCompletedEvent.camelcase-names.json": &edapp.CourseCompletedEvent{
		UserID:      "5c8094a8a2d7bd0013d3b5a1",
		UserName:    "amelia.chen",
		Email:       "amelia.chen@harbourlogistics.example",
		FirstName:   "Amelia",
		LastName:    "Chen",
		CourseID:    "5f1e2d3c4b5a69788796a5b4",
		CourseTitle: "Workplace Health & Safety Essentials",
		Timestamp:   eventTime(2024, 5, 14, 3, 22, 41, 187),
	},
	"LessonCompletedEvent.score-string.json": &edapp.LessonCompletedEvent{
		UserID:      "5e2b9d8c7a6f5e4d3c2b1a09",
		UserName:    "tomas.novak",
		Email:       "tomas.novak@harbourlogistics.example",
		FirstName:   "Tomáš",
		LastName:    "Novák",
		CourseID:    "5f1e2d3c4b5a69788796a5b4",
		CourseTitle: "Workplace Health & Safety Essentials",
		LessonID:    "5f1e2e0a4b5a69788796a5c7",
		LessonTitle: "Manual Handling: Lifting Safely",
		Timestamp:   eventTime(2024, 5, 14, 5, 40, 12, 3),
		Score:       92.5,
	},
	"LessonCompletedEvent.datetime-no-zone.json": &edapp.LessonCompletedEvent{
		UserID:      "5c8094a8a2d7bd0013d3b5a1",
		UserName:    "amelia.chen",
		Email:       "amelia.chen@harbourlogistics.example",
		FirstName:   "Amelia",
		LastName:    "Chen",
		CourseID:    "5f1e2d3c4b5a69788796a5b4",
		CourseTitle: "Workplace Health & Safety Essentials",
		LessonID:    "5f1e2e0a4b5a69788796a5c9",
		LessonTitle: "Hazard Reporting in 5 Steps",
		Timestamp:   eventTime(2024, 5, 14, 3, 31, 57, 640), // no zone: UTC
		Score:       100,
	},
	"RapidRefreshSessionStartedNotificationEvent.userName.json": &edapp.RapidRefreshSessionStartedNotificationEvent{
		UserID:         "5e2b9d8c7a6f5e4d3c2b1a09",
		UserExternalID: "EMP-01283",
		UserName:       "tomas.novak",
		Email:          "tomas.novak@harbourlogistics.example",
		QuizID:         "60a7f3e2b1c4d50015aa01b2",
		QuizTitle:      "Dangerous Goods Refresher",
		QuizSession:    "1",
		QuizLink:       "https://web.edapp.com/#rapid-refresh/60a7f3e2b1c4d50015aa01b2/session/1",
		Timestamp:      eventTime(2024, 5, 20, 22, 0, 0, 377),
	},
	"CoursePublishedEvent.username-lower.json": &edapp.CoursePublishedEvent{
		UserID:      "5b3f0c1de4a2b10014c0ffee",
		UserName:    "training.admin",
		Email:       "training.admin@harbourlogistics.example",
		CourseID:    "6012ab34cd56ef7890a1b2c3",
		CourseTitle: "Customer Service Fundamentals",
		Timestamp:   eventTime(2024, 4, 29, 6, 30, 0, 0),
	},
	"CourseReminderWebHookEvent.datetime-no-fraction.json": &edapp.CourseReminderWebHookEvent{
		UserID:         "5e2b9d8c7a6f5e4d3c2b1a09",
		UserExternalID: "EMP-01283",
		UserName:       "tomas.novak",
		Email:          "tomas.novak@harbourlogistics.example",
		CourseID:       "5f1e2d3c4b5a69788796a5b4",
		CourseTitle:    "Workplace Health & Safety Essentials",
		CourseLink:     "https://web.edapp.com/#course/5f1e2d3c4b5a69788796a5b4",
		DueDate:        eventTime(2024, 6, 1, 0, 0, 0, 0),   // no zone: UTC
		Timestamp:      eventTime(2024, 5, 25, 23, 0, 3, 0), // +10:00
	},
}

// The unknown event fixture: its Raw is the file itself.
const unknownEventFixture = "unknown-event.json"

func readEventFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkEventFields compares every field of got and want: datetimes by instant,
// everything else exactly.
func checkEventFields(t *testing.T, got, want edapp.Event) {
	t.Helper()
	if reflect.TypeOf(got) != reflect.TypeOf(want) {
		t.Fatalf("got %T, want %T", got, want)
	}
	gv, wv := reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem()
	for i := range wv.NumField() {
		name := wv.Type().Field(i).Name
		g, w := gv.Field(i).Interface(), wv.Field(i).Interface()
		if wt, ok := w.(edapp.Time); ok {
			if gt := g.(edapp.Time); !gt.Equal(wt.Time) {
				t.Errorf("%T.%s = %v, want %v", got, name, gt, wt)
			}
			continue
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%T.%s = %#v, want %#v", got, name, g, w)
		}
	}
}

func TestParseEventFixtures(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(filepath.Join("testdata", "events"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		file := e.Name()
		seen[file] = true
		t.Run(file, func(t *testing.T) {
			payload := readEventFixture(t, file)
			want, ok := eventFixtures[file]
			if file == unknownEventFixture {
				want, ok = &edapp.UnknownEvent{EventName: "CertificateIssuedEvent", Raw: payload}, true
			}
			if !ok {
				t.Fatalf("no expectation for fixture %s: add it to fixtureEvents", file)
			}
			got, err := edapp.ParseEvent(payload)
			if err != nil {
				t.Fatalf("ParseEvent: %v", err)
			}
			checkEventFields(t, got, want)
			if got.Name() != want.Name() {
				t.Errorf("Name() = %q, want %q", got.Name(), want.Name())
			}
			if strings.Count(file, ".") == 1 && file != unknownEventFixture {
				// A canonical fixture fills every field, so a field the
				// decoder forgets cannot pass as a zero value.
				v := reflect.ValueOf(want).Elem()
				for i := range v.NumField() {
					if v.Field(i).IsZero() {
						t.Errorf("fixture leaves %s empty", v.Type().Field(i).Name)
					}
				}
				if got.Name() != edapp.EventName(strings.TrimSuffix(file, ".json")) {
					t.Errorf("fixture %s decodes to %s", file, got.Name())
				}
			}
		})
	}
	for file := range eventFixtures {
		if !seen[file] {
			t.Errorf("fixture %s is missing from testdata/events", file)
		}
	}
}

// TestUnmarshalJSONEvents checks that json.Unmarshal into an event struct
// decodes as ParseEvent does, spellings included.
func TestUnmarshalJSONEvents(t *testing.T) {
	t.Parallel()
	for file, want := range eventFixtures {
		t.Run(file, func(t *testing.T) {
			got := reflect.New(reflect.TypeOf(want).Elem()).Interface().(edapp.Event)
			if err := json.Unmarshal(readEventFixture(t, file), got); err != nil {
				t.Fatal(err)
			}
			checkEventFields(t, got, want)
		})
	}
	t.Run("null leaves the value alone", func(t *testing.T) {
		ev := edapp.LessonCompletedEvent{UserID: "u1"}
		if err := json.Unmarshal([]byte("null"), &ev); err != nil || ev.UserID != "u1" {
			t.Fatalf("got %+v, %v", ev, err)
		}
	})
	t.Run("error names the field", func(t *testing.T) {
		var ev edapp.LessonCompletedEvent
		err := json.Unmarshal([]byte(`{"score":"high"}`), &ev)
		if err == nil || !strings.Contains(err.Error(), `"score"`) {
			t.Fatalf("err = %v", err)
		}
	})
}

// specEventTable is the spec's Events table, copied as it stands. All fields are
// strings except timestamp and dueDate (datetime) and score (number).
var specEventTable = []struct {
	name   string
	fields string
}{
	{"CourseCompletedEvent", "eventName, userId, userName, email, firstname, lastname, courseId, courseTitle, timestamp"},
	{"LessonCompletedEvent", "eventName, userId, userName, email, firstname, lastname, courseId, courseTitle, lessonId, lessonTitle, timestamp, score"},
	{"LessonPublishedEvent", "eventName, userId, userName, email, courseId, courseTitle, lessonId, lessonTitle, timestamp"},
	{"LessonUnpublishedEvent", "eventName, userId, userName, email, courseId, courseTitle, lessonId, lessonTitle, timestamp"},
	{"CoursePublishedEvent", "eventName, userId, userName, email, courseId, courseTitle, timestamp"},
	{"CourseUnPublishedEvent", "eventName, userId, userName, email, courseId, courseTitle, timestamp"},
	{"RapidRefreshSessionStartedNotificationEvent", "eventName, userId, userExternalId, username, email, quizId, quizTitle, quizSession, quizLink, timestamp"},
	{"RapidRefreshRetrySessionStartedNotificationEvent", "eventName, userId, userExternalId, username, email, quizId, quizTitle, quizSession, quizLink, timestamp"},
	{"RapidRefreshSessionReminderNotificationEvent", "eventName, userId, userExternalId, username, email, quizId, quizTitle, quizSession, quizLink, timestamp"},
	{"CourseReminderWebHookEvent", "eventName, userId, userExternalId, username, email, courseId, courseTitle, courseLink, dueDate, timestamp"},
}

func specFieldType(field string) string {
	switch field {
	case "timestamp", "dueDate":
		return "datetime"
	case "score":
		return "number"
	}
	return "string"
}

func TestEventNames(t *testing.T) {
	t.Parallel()
	names := edapp.EventNames()
	if len(names) != len(specEventTable) {
		t.Fatalf("EventNames() has %d names, the spec %d", len(names), len(specEventTable))
	}
	for i, se := range specEventTable {
		if string(names[i]) != se.name {
			t.Errorf("EventNames()[%d] = %q, want %q", i, names[i], se.name)
		}
	}
	names[0] = "changed"
	if edapp.EventNames()[0] != edapp.EventCourseCompleted {
		t.Error("EventNames shares its slice")
	}
	consts := []edapp.EventName{
		edapp.EventCourseCompleted, edapp.EventLessonCompleted, edapp.EventLessonPublished,
		edapp.EventLessonUnpublished, edapp.EventCoursePublished, edapp.EventCourseUnPublished,
		edapp.EventRapidRefreshSessionStartedNotification, edapp.EventRapidRefreshRetrySessionStartedNotification,
		edapp.EventRapidRefreshSessionReminderNotification, edapp.EventCourseReminderWebHook,
	}
	if !slices.Equal(consts, edapp.EventNames()) {
		t.Errorf("constants %v differ from EventNames() %v", consts, edapp.EventNames())
	}
}

// TestEveryEventIsWiredUp checks each row of the event table: its name
// decodes to its own struct, which names itself and has both JSON methods.
func TestEveryEventIsWiredUp(t *testing.T) {
	t.Parallel()
	marshaler, unmarshaler := reflect.TypeFor[json.Marshaler](), reflect.TypeFor[json.Unmarshaler]()
	seen := map[reflect.Type]bool{}
	for _, name := range edapp.EventNames() {
		ev, err := edapp.ParseEvent([]byte(`{"eventName":"` + string(name) + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		typ := reflect.TypeOf(ev)
		if _, unknown := ev.(*edapp.UnknownEvent); unknown || ev.Name() != name || seen[typ] {
			t.Errorf("%s decodes to %T named %s", name, ev, ev.Name())
		}
		seen[typ] = true
		if !typ.Elem().Implements(marshaler) || !typ.Implements(unmarshaler) {
			t.Errorf("%T lacks MarshalJSON or UnmarshalJSON", ev)
		}
		if typ.Elem().Name() != string(name) {
			t.Errorf("%s decodes to %T", name, ev)
		}
	}
}

// orderedKeys returns the keys of a JSON object in order, with their raw values.
func orderedKeys(t *testing.T, b []byte) ([]string, map[string]json.RawMessage) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", b)
	}
	var keys []string
	values := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		values[tok.(string)] = v
	}
	return keys, values
}

// TestEventMessageFormat cross-checks each struct against the spec: the keys
// json.Marshal writes are the spec's field list (names, case and order), and
// each value has the spec's type.
func TestEventMessageFormat(t *testing.T) {
	t.Parallel()
	for _, se := range specEventTable {
		t.Run(se.name, func(t *testing.T) {
			want := strings.Split(se.fields, ", ")
			full, err := edapp.ParseEvent(readEventFixture(t, se.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if string(full.Name()) != se.name {
				t.Fatalf("Name() = %q", full.Name())
			}
			if n := reflect.TypeOf(full).Elem().NumField(); n != len(want)-1 {
				t.Errorf("%T has %d fields, the spec %d besides eventName", full, n, len(want)-1)
			}
			zero := reflect.New(reflect.TypeOf(full).Elem()).Interface()
			for _, v := range []any{full, zero, reflect.ValueOf(full).Elem().Interface()} {
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				keys, values := orderedKeys(t, b)
				if !slices.Equal(keys, want) {
					t.Errorf("json.Marshal(%T) keys:\n got %v\nwant %v", v, keys, want)
				}
				if string(values["eventName"]) != `"`+se.name+`"` {
					t.Errorf("eventName = %s", values["eventName"])
				}
				if v == zero {
					continue
				}
				for _, k := range want {
					raw := values[k]
					switch specFieldType(k) {
					case "string":
						var s string
						if json.Unmarshal(raw, &s) != nil || s == "" {
							t.Errorf("%s = %s, want a non-empty string", k, raw)
						}
					case "datetime":
						var s string
						if json.Unmarshal(raw, &s) != nil {
							t.Errorf("%s = %s, want a datetime string", k, raw)
						} else if _, err := time.Parse("2006-01-02T15:04:05.000Z", s); err != nil {
							t.Errorf("%s = %s, want RFC 3339 UTC with milliseconds", k, raw)
						}
					case "number":
						var f float64
						if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &f) != nil {
							t.Errorf("%s = %s, want a number", k, raw)
						}
					}
				}
			}
		})
	}
}

func TestParseEventCases(t *testing.T) {
	t.Parallel()
	lesson := func(extra string) string {
		return `{"eventName":"LessonCompletedEvent","userId":"u1"` + extra + `}`
	}
	tests := []struct {
		name    string
		payload string
		wantErr string // a substring of the error; "" for success
		check   func(t *testing.T, ev edapp.Event)
	}{
		{name: "empty", payload: "", wantErr: "empty"},
		{name: "spaces", payload: " \n\t", wantErr: "empty"},
		{name: "array", payload: `[{"eventName":"LessonCompletedEvent"}]`, wantErr: "not a JSON object"},
		{name: "string", payload: `"LessonCompletedEvent"`, wantErr: "not a JSON object"},
		{name: "null", payload: `null`, wantErr: "not a JSON object"},
		{name: "garbage", payload: `eventName=LessonCompletedEvent`, wantErr: "not a JSON object"},
		{name: "truncated", payload: `{"eventName":"LessonCompletedEvent"`, wantErr: "malformed"},
		{name: "trailing data", payload: `{"eventName":"LessonCompletedEvent"} {}`, wantErr: "malformed"},
		{name: "trailing comma", payload: `{"eventName":"LessonCompletedEvent",}`, wantErr: "malformed"},
		{name: "single quotes", payload: `{'eventName':'LessonCompletedEvent'}`, wantErr: "malformed"},
		{name: "bad escape", payload: `{"eventName":"Lesson\qCompletedEvent"}`, wantErr: "malformed"},
		{name: "control char", payload: "{\"eventName\":\"Lesson\x01\"}", wantErr: "malformed"},
		{name: "leading zero", payload: lesson(`,"score":01`), wantErr: "malformed"},
		{name: "bad nested value", payload: lesson(`,"extra":{"a":[1,2,}]}`), wantErr: "malformed"},
		{name: "no eventName", payload: `{"userId":"u1"}`, wantErr: "no eventName"},
		{name: "eventName null", payload: `{"eventName":null}`, wantErr: "no eventName"},
		{name: "eventName empty", payload: `{"eventName":""}`, wantErr: "empty eventName"},
		{name: "eventName number", payload: `{"eventName":7}`, wantErr: `"eventName": want a string`},
		{
			name:    "unknown event keeps its payload, odd fields and all",
			payload: ` {"eventName":"CertificateIssuedEvent","score":{"x":true},"timestamp":12} `,
			check: func(t *testing.T, ev edapp.Event) {
				u := ev.(*edapp.UnknownEvent)
				if u.EventName != "CertificateIssuedEvent" || u.Name() != "CertificateIssuedEvent" {
					t.Errorf("name %q", u.EventName)
				}
				if string(u.Raw) != ` {"eventName":"CertificateIssuedEvent","score":{"x":true},"timestamp":12} ` {
					t.Errorf("Raw = %s", u.Raw)
				}
			},
		},
		{
			name:    "event name matching is case-sensitive",
			payload: `{"eventName":"lessoncompletedevent"}`,
			check: func(t *testing.T, ev edapp.Event) {
				if _, ok := ev.(*edapp.UnknownEvent); !ok {
					t.Errorf("got %T", ev)
				}
			},
		},
		{
			name:    "escaped event name",
			payload: `{"eventName":"Lesson\u0043ompletedEvent","userId":"u1"}`,
			check: func(t *testing.T, ev edapp.Event) {
				if e := ev.(*edapp.LessonCompletedEvent); e.UserID != "u1" {
					t.Errorf("got %+v", e)
				}
			},
		},
		{
			name:    "eventName last, fields first",
			payload: `{"userId":"u1","score":3,"eventName":"LessonCompletedEvent"}`,
			check: func(t *testing.T, ev edapp.Event) {
				if e := ev.(*edapp.LessonCompletedEvent); e.UserID != "u1" || e.Score != 3 {
					t.Errorf("got %+v", e)
				}
			},
		},
		{name: "score number", payload: lesson(`,"score":-0.25e2`), check: wantScore(-25)},
		{name: "score integer", payload: lesson(`,"score":100`), check: wantScore(100)},
		{name: "score string", payload: lesson(`,"score":"87.5"`), check: wantScore(87.5)},
		{name: "score string with spaces", payload: lesson(`,"score":" 60 "`), check: wantScore(60)},
		{name: "score string exponent", payload: lesson(`,"score":"1e2"`), check: wantScore(100)},
		{name: "score empty string", payload: lesson(`,"score":""`), check: wantScore(0)},
		{name: "score null", payload: lesson(`,"score":null`), check: wantScore(0)},
		{name: "score absent", payload: lesson(``), check: wantScore(0)},
		{name: "score word", payload: lesson(`,"score":"high"`), wantErr: `LessonCompletedEvent: field "score": invalid number "high"`},
		{name: "score NaN", payload: lesson(`,"score":"NaN"`), wantErr: `field "score"`},
		{name: "score hex", payload: lesson(`,"score":"0x10"`), wantErr: `field "score"`},
		{name: "score out of range", payload: lesson(`,"score":1e400`), wantErr: `field "score": number 1e400 out of range`},
		{name: "score boolean", payload: lesson(`,"score":true`), wantErr: `field "score": want a number, got a boolean`},
		{name: "score object", payload: lesson(`,"score":{}`), wantErr: `field "score": want a number, got an object`},
		{name: "timestamp invalid", payload: lesson(`,"timestamp":"yesterday"`), wantErr: `field "timestamp": invalid datetime "yesterday"`},
		{name: "timestamp number", payload: lesson(`,"timestamp":1715656961`), wantErr: `field "timestamp": want a datetime string, got a number`},
		{
			name:    "timestamp null and empty",
			payload: `{"eventName":"CourseReminderWebHookEvent","timestamp":null,"dueDate":""}`,
			check: func(t *testing.T, ev edapp.Event) {
				if e := ev.(*edapp.CourseReminderWebHookEvent); !e.Timestamp.IsZero() || !e.DueDate.IsZero() {
					t.Errorf("got %+v", e)
				}
			},
		},
		{
			name:    "timestamp with offset",
			payload: lesson(`,"timestamp":"2024-05-14T13:22:41.5+10:00"`),
			check: func(t *testing.T, ev edapp.Event) {
				if got := ev.(*edapp.LessonCompletedEvent).Timestamp; !got.Equal(eventTime(2024, 5, 14, 3, 22, 41, 500).Time) {
					t.Errorf("got %v", got)
				}
			},
		},
		{name: "dueDate invalid", payload: `{"eventName":"CourseReminderWebHookEvent","dueDate":"next week"}`, wantErr: `CourseReminderWebHookEvent: field "dueDate"`},
		{name: "string field object", payload: lesson(`,"email":{"address":"a@b"}`), wantErr: `field "email": want a string, got an object`},
		{name: "string field array", payload: lesson(`,"lessonTitle":["a"]`), wantErr: `field "lessonTitle": want a string, got an array`},
		{name: "string field boolean", payload: lesson(`,"courseId":false`), wantErr: `field "courseId": want a string, got a boolean`},
		{name: "variant key named as the event spells it", payload: lesson(`,"firstName":true`), wantErr: `field "firstname"`},
		{
			name:    "string field number kept as written, null empty",
			payload: `{"eventName":"RapidRefreshSessionReminderNotificationEvent","quizSession":3,"userExternalId":1.50,"email":null}`,
			check: func(t *testing.T, ev edapp.Event) {
				e := ev.(*edapp.RapidRefreshSessionReminderNotificationEvent)
				if e.QuizSession != "3" || e.UserExternalID != "1.50" || e.Email != "" {
					t.Errorf("got %+v", e)
				}
			},
		},
		{
			name:    "fields of other events are ignored, whatever their type",
			payload: `{"eventName":"CourseCompletedEvent","userId":"u1","score":{"x":1},"dueDate":false,"quizLink":[]}`,
			check: func(t *testing.T, ev edapp.Event) {
				if e := ev.(*edapp.CourseCompletedEvent); e.UserID != "u1" {
					t.Errorf("got %+v", e)
				}
			},
		},
		{
			name: "escapes and unicode",
			payload: `{"eventName":"LessonCompletedEvent","courseTitle":"Fire \u0026 \"Safety\"\n101",` +
				`"firstname":"Zoë","lastname":"O\u2019Brien","lessonTitle":"\ud83d\udd25 drills","email":"a\/b@x"}`,
			check: func(t *testing.T, ev edapp.Event) {
				e := ev.(*edapp.LessonCompletedEvent)
				if e.CourseTitle != "Fire & \"Safety\"\n101" || e.FirstName != "Zoë" || e.LastName != "O’Brien" ||
					e.LessonTitle != "🔥 drills" || e.Email != "a/b@x" {
					t.Errorf("got %+v", e)
				}
			},
		},
		{
			name:    "invalid UTF-8 becomes U+FFFD, as in encoding/json",
			payload: "{\"eventName\":\"LessonCompletedEvent\",\"lessonTitle\":\"a\xffb\"}",
			check: func(t *testing.T, ev edapp.Event) {
				if got := ev.(*edapp.LessonCompletedEvent).LessonTitle; got != "a\uFFFDb" {
					t.Errorf("got %q", got)
				}
			},
		},
		{
			name:    "escaped key",
			payload: `{"eventName":"LessonCompletedEvent","user\u004eame":"amelia"}`,
			check: func(t *testing.T, ev edapp.Event) {
				if got := ev.(*edapp.LessonCompletedEvent).UserName; got != "amelia" {
					t.Errorf("got %q", got)
				}
			},
		},
		{
			name:    "repeated key: the last wins",
			payload: `{"eventName":"LessonCompletedEvent","username":"a","userName":"b","email":"x","email":"y"}`,
			check: func(t *testing.T, ev edapp.Event) {
				if e := ev.(*edapp.LessonCompletedEvent); e.UserName != "b" || e.Email != "y" {
					t.Errorf("got %+v", e)
				}
			},
		},
		{
			name:    "names match without regard to case, as in encoding/json",
			payload: `{"EVENTNAME":"LessonCompletedEvent","USERID":"a","UserName":"b","FirstName":"c","LASTNAME":"d"}`,
			check: func(t *testing.T, ev edapp.Event) {
				if e := ev.(*edapp.LessonCompletedEvent); e.UserID != "a" || e.UserName != "b" || e.FirstName != "c" || e.LastName != "d" {
					t.Errorf("got %+v", e)
				}
			},
		},
		{
			name:    "spellings of one name share a value: the last wins",
			payload: `{"eventName":"RapidRefreshSessionStartedNotificationEvent","username":"a","USERNAME":"b","userName":"c"}`,
			check: func(t *testing.T, ev edapp.Event) {
				if e := ev.(*edapp.RapidRefreshSessionStartedNotificationEvent); e.UserName != "c" {
					t.Errorf("got %+v", e)
				}
			},
		},
		{
			name:    "unknown nested fields are skipped",
			payload: `{"extra":{"a":[1,{"b":null},"}"],"c":-0.5E+3},"eventName":"LessonCompletedEvent","more":[[],{}],"userId":"u1"}`,
			check: func(t *testing.T, ev edapp.Event) {
				if e := ev.(*edapp.LessonCompletedEvent); e.UserID != "u1" {
					t.Errorf("got %+v", e)
				}
			},
		},
		{name: "deep nesting within the limit", payload: lesson(`,"x":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999)), check: func(*testing.T, edapp.Event) {}},
		{name: "nesting beyond the limit", payload: lesson(`,"x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000)), wantErr: "depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := edapp.ParseEvent([]byte(tt.payload))
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("no error, got %#v", ev)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %q does not contain %q", err, tt.wantErr)
				}
				if ev != nil {
					t.Errorf("event %#v with an error", ev)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// ParseEvent must agree with encoding/json on what is JSON.
			if !json.Valid([]byte(tt.payload)) {
				t.Fatal("ParseEvent accepted what encoding/json rejects")
			}
			tt.check(t, ev)
		})
	}
}

func wantScore(want float64) func(*testing.T, edapp.Event) {
	return func(t *testing.T, ev edapp.Event) {
		if got := ev.(*edapp.LessonCompletedEvent).Score; got != want {
			t.Errorf("Score = %v, want %v", got, want)
		}
	}
}

func TestParseEventDoesNotShareMemory(t *testing.T) {
	t.Parallel()
	payload := readEventFixture(t, "LessonCompletedEvent.json")
	ev, err := edapp.ParseEvent(payload)
	if err != nil {
		t.Fatal(err)
	}
	unknown, err := edapp.ParseEvent(readEventFixture(t, unknownEventFixture))
	if err != nil {
		t.Fatal(err)
	}
	raw := bytes.Clone(unknown.(*edapp.UnknownEvent).Raw)
	for i := range payload {
		payload[i] = 'x'
	}
	checkEventFields(t, ev, eventFixtures["LessonCompletedEvent.json"])
	if !bytes.Equal(raw, unknown.(*edapp.UnknownEvent).Raw) {
		t.Error("Raw changed")
	}
}

// keyPayload is a delivery of name with every field set: strings to their
// JSON name plus suffix, the score to 50, datetimes to at.
func keyPayload(t *testing.T, name edapp.EventName, at string, change map[string]any) []byte {
	t.Helper()
	ev, err := edapp.ParseEvent([]byte(`{"eventName":"` + string(name) + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]any{"eventName": name}
	typ := reflect.TypeOf(ev).Elem()
	for i := range typ.NumField() {
		tag := typ.Field(i).Tag.Get("json")
		switch typ.Field(i).Type {
		case reflect.TypeFor[edapp.Time]():
			fields[tag] = at
		case reflect.TypeFor[float64]():
			fields[tag] = 50
		default:
			fields[tag] = tag + "-1"
		}
	}
	for k, v := range change {
		fields[k] = v
	}
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func keyOf(t *testing.T, payload []byte) string {
	t.Helper()
	ev, err := edapp.ParseEvent(payload)
	if err != nil {
		t.Fatal(err)
	}
	key := edapp.EventKey(ev)
	if len(key) != 64 {
		t.Fatalf("key %q", key)
	}
	return key
}
