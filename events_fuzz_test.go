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

	"github.com/edapp-go/edapp"
)

// addEventSeeds adds every file of testdata/events, and a few hand-made
// payloads, to the corpus.
func addEventSeeds(f *testing.F, add func(payload []byte)) {
	entries, err := os.ReadDir(filepath.Join("testdata", "events"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		add(readEventFixture(f, e.Name()))
	}
	for _, s := range []string{
		``, `{}`, `[]`, `null`, `{"eventName":null}`, `{"eventName":""}`,
		`{"eventName":"LessonCompletedEvent","score":"1e2","userName":"a","username":"b"}`,
		`{"eventName":"Lesson\u0043ompletedEvent","user\u004eame":"\ud83d\udd25"}`,
		`{"eventName":"CourseReminderWebHookEvent","dueDate":"2024-06-01","timestamp":null}`,
		`{"x":[{"y":[1,-2.5e-3,true,false,null,"\""]}],"eventName":"E"}`,
	} {
		add([]byte(s))
	}
}

// FuzzParseEvent checks that ParseEvent never panics, accepts only JSON that
// encoding/json accepts, agrees with encoding/json on the values, and that a
// decoded event survives json.Marshal and ParseEvent unchanged, and has a key.
func FuzzParseEvent(f *testing.F) {
	addEventSeeds(f, func(p []byte) { f.Add(p) })
	f.Fuzz(func(t *testing.T, payload []byte) {
		ev, err := edapp.ParseEvent(payload)

		// What encoding/json makes of the payload: an object, its
		// eventName (matched without regard to case, the last one
		// winning) when that is a string.
		var top map[string]json.RawMessage
		isObject := json.Unmarshal(payload, &top) == nil && top != nil
		var head struct {
			EventName *string `json:"eventName"`
		}
		hasName := isObject && json.Unmarshal(payload, &head) == nil && head.EventName != nil && *head.EventName != ""
		var name string
		if hasName {
			name = *head.EventName
		}
		isKnown := slices.Contains(edapp.EventNames(), edapp.EventName(name))
		known := hasName && isKnown

		if err != nil {
			if ev != nil {
				t.Fatalf("event %#v with error %v", ev, err)
			}
			if !strings.HasPrefix(err.Error(), "edapp: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			if json.Valid(payload) && strings.Contains(err.Error(), "malformed") {
				t.Fatalf("syntax error on JSON that encoding/json accepts: %v", err)
			}
			if hasName && !known {
				t.Fatalf("unknown event %q rejected: %v", name, err)
			}
			if known && !strings.Contains(err.Error(), `field "`) {
				t.Fatalf("error on a %s does not name a field: %v", name, err)
			}
			return
		}
		if !json.Valid(payload) || !isObject || !hasName {
			t.Fatalf("accepted a payload encoding/json does not read as an object with an eventName: %q", payload)
		}
		if string(ev.Name()) != name {
			t.Fatalf("Name() = %q, eventName %q", ev.Name(), name)
		}
		if key := edapp.EventKey(ev); len(key) != 64 {
			t.Fatalf("EventKey = %q", key)
		}
		if u, ok := ev.(*edapp.UnknownEvent); ok {
			if known || !bytes.Equal(u.Raw, payload) {
				t.Fatalf("UnknownEvent %q for a known name or with a changed Raw", u.EventName)
			}
			return
		}
		checkEventAgainstEncodingJSON(t, ev, top)

		// A delivery made from the event decodes to the same delivery.
		body, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("json.Marshal: %v", err)
		}
		again, err := edapp.ParseEvent(body)
		if err != nil {
			t.Fatalf("ParseEvent(json.Marshal(ev)) = %v for %s", err, body)
		}
		if body2, _ := json.Marshal(again); !bytes.Equal(body, body2) {
			t.Fatalf("delivery changed:\n%s\n%s", body, body2)
		}
	})
}

// checkEventAgainstEncodingJSON compares each field of ev with what encoding/json
// makes of its name, where the payload has exactly one spelling of it (names
// match without regard to case).
func checkEventAgainstEncodingJSON(t *testing.T, ev edapp.Event, top map[string]json.RawMessage) {
	v := reflect.ValueOf(ev).Elem()
	for i := range v.NumField() {
		tag := v.Type().Field(i).Tag.Get("json")
		var raw json.RawMessage
		n := 0
		for k, r := range top {
			if strings.EqualFold(k, tag) {
				raw, n = r, n+1
			}
		}
		if n != 1 || len(raw) == 0 || raw[0] != '"' && tag != "score" {
			continue // absent, ambiguous, or a tolerated non-string
		}
		switch got := v.Field(i).Interface().(type) {
		case string:
			var want string
			if err := json.Unmarshal(raw, &want); err != nil || got != want {
				t.Fatalf("%s = %q, encoding/json gives %q (%v)", tag, got, want, err)
			}
		case edapp.Time:
			var want edapp.Time
			if err := json.Unmarshal(raw, &want); err == nil && !got.Equal(want.Time) {
				t.Fatalf("%s = %v, encoding/json gives %v", tag, got, want)
			}
		case float64:
			var want float64
			if raw[0] != '"' && json.Unmarshal(raw, &want) == nil && got != want {
				t.Fatalf("%s = %v, encoding/json gives %v", tag, got, want)
			}
		}
	}
}
