package edapp_test

import (
	"testing"

	"github.com/edapp-go/edapp"
)

// identityFields are the fields EventKey documents as an event's identity.
var identityFields = map[edapp.EventName][]string{
	edapp.EventCourseCompleted:                             {"userId", "courseId", "timestamp"},
	edapp.EventLessonCompleted:                             {"userId", "lessonId", "timestamp"},
	edapp.EventLessonPublished:                             {"userId", "lessonId", "timestamp"},
	edapp.EventLessonUnpublished:                           {"userId", "lessonId", "timestamp"},
	edapp.EventCoursePublished:                             {"userId", "courseId", "timestamp"},
	edapp.EventCourseUnPublished:                           {"userId", "courseId", "timestamp"},
	edapp.EventRapidRefreshSessionStartedNotification:      {"userId", "quizId", "quizSession", "timestamp"},
	edapp.EventRapidRefreshRetrySessionStartedNotification: {"userId", "quizId", "quizSession", "timestamp"},
	edapp.EventRapidRefreshSessionReminderNotification:     {"userId", "quizId", "quizSession", "timestamp"},
	edapp.EventCourseReminderWebHook:                       {"userId", "courseId", "dueDate", "timestamp"},
}

// TestEventKey: for each of the ten events, a redelivery (another time
// zone, another spelling, another order) has the same key; a change of any
// identity field, down to a nanosecond of the time, gives another key; a
// change of a describing field does not.
func TestEventKey(t *testing.T) {
	t.Parallel()
	const at = "2024-05-14T13:22:41.123456789+10:00"
	for _, name := range edapp.EventNames() {
		t.Run(string(name), func(t *testing.T) {
			key := keyOf(t, keyPayload(t, name, at, nil))
			again := keyPayload(t, name, "2024-05-14T03:22:41.123456789Z", map[string]any{"USERID": "userId-1"})
			if keyOf(t, again) != key {
				t.Error("a redelivery in UTC, spelt userID, has another key")
			}
			for _, field := range identityFields[name] {
				change := map[string]any{field: field + "-2"}
				if field == "timestamp" || field == "dueDate" {
					change[field] = "2024-05-14T13:22:41.123457789+10:00" // a microsecond later
				}
				if keyOf(t, keyPayload(t, name, at, change)) == key {
					t.Errorf("a change of %s keeps the key", field)
				}
			}
			if keyOf(t, keyPayload(t, name, at, map[string]any{"timestamp": "2024-05-14T13:22:41.123456788+10:00"})) == key {
				t.Error("a nanosecond earlier keeps the key")
			}
			if keyOf(t, keyPayload(t, name, at, map[string]any{"email": "other@example.com"})) != key {
				t.Error("a change of email, which does not identify the event, changes the key")
			}
		})
	}
}

// TestEventKeyWithoutTimestamp: without a timestamp every field counts,
// so that two completions nothing else tells apart keep apart.
func TestEventKeyWithoutTimestamp(t *testing.T) {
	t.Parallel()
	a := keyOf(t, []byte(`{"eventName":"LessonCompletedEvent","userId":"u1","lessonId":"l1","score":80}`))
	b := keyOf(t, []byte(`{"eventName":"LessonCompletedEvent","userId":"u1","lessonId":"l1","score":90}`))
	again := keyOf(t, []byte(`{"score":"80","lessonId":"l1","userId":"u1","eventName":"LessonCompletedEvent"}`))
	if a == b || a != again {
		t.Errorf("keys %s %s %s", a, b, again)
	}
}

func TestEventKeyNamesApart(t *testing.T) {
	t.Parallel()
	const at = "2024-05-14T13:22:41.123Z"
	if keyOf(t, keyPayload(t, edapp.EventLessonPublished, at, nil)) == keyOf(t, keyPayload(t, edapp.EventLessonUnpublished, at, nil)) {
		t.Error("published and unpublished share a key")
	}
}

// TestEventKeyUnknownEvent: the canonical JSON counts, not its layout.
func TestEventKeyUnknownEvent(t *testing.T) {
	t.Parallel()
	a := keyOf(t, []byte(`{"eventName":"CertificateIssuedEvent","userId":"u1","n":1.50,"at":"2024-05-14T03:22:41.123456Z"}`))
	again := keyOf(t, []byte(" {\"at\":\"2024-05-14T03:22:41.123456Z\",\n \"n\":1.50, \"userId\":\"u1\",\"eventName\":\"CertificateIssuedEvent\"}"))
	other := keyOf(t, []byte(`{"eventName":"CertificateIssuedEvent","userId":"u1","n":1.50,"at":"2024-05-14T03:22:41.123457Z"}`))
	if a != again || a == other {
		t.Errorf("keys %s %s %s", a, again, other)
	}
	notJSON := edapp.EventKey(&edapp.UnknownEvent{EventName: "X", Raw: []byte("not json")})
	if len(notJSON) != 64 || notJSON == edapp.EventKey(&edapp.UnknownEvent{EventName: "X", Raw: []byte("not json!")}) {
		t.Errorf("key of a body that is not JSON: %q", notJSON)
	}
	if edapp.EventKey(&edapp.UnknownEvent{EventName: "X"}) == edapp.EventKey(&edapp.UnknownEvent{EventName: "Y"}) {
		t.Error("two names share a key")
	}
}

func TestEventKeyNil(t *testing.T) {
	t.Parallel()
	if k := edapp.EventKey(nil); k != "" {
		t.Errorf("EventKey(nil) = %q", k)
	}
	if k := edapp.EventKey((*edapp.LessonCompletedEvent)(nil)); k != "" {
		t.Errorf("EventKey(typed nil) = %q", k)
	}
}

// TestEventKeyIsStable pins the key of one fixture: rows stored by one
// version must deduplicate deliveries received by the next.
func TestEventKeyIsStable(t *testing.T) {
	t.Parallel()
	const want = "057f70fa6deed5746f2520e3d7ae09dedd49a9738da223dd199d12010f5454b7"
	if got := keyOf(t, readEventFixture(t, "LessonCompletedEvent.json")); got != want {
		t.Errorf("key %s, want %s", got, want)
	}
}
