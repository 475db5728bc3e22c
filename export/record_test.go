package export

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
)

func TestRecordJSONMergesExtra(t *testing.T) {
	t.Parallel()
	l := edapp.Lesson{ID: "l1", Title: "Lifting", Extra: map[string]json.RawMessage{"passMark": json.RawMessage(`70`), "title": json.RawMessage(`"shadowed"`)}}
	r, err := newRecord(l)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["passMark"] != float64(70) || m["title"] != "Lifting" || m["id"] != "l1" {
		t.Errorf("got %s", b)
	}
	// A column the SDK does not know comes from Extra.
	if got := r.Cell("passMark"); got != "70" {
		t.Errorf("cell(passMark) = %q", got)
	}
}

func TestRecordCells(t *testing.T) {
	t.Parallel()
	score := 87.5
	ts, _ := edapp.ParseTime("2026-03-07T05:10:36.187Z")
	for _, tc := range []struct {
		v    any
		want map[string]string
	}{
		{edapp.User{ID: "u1", Username: "a,b", Roles: []edapp.Role{"app-user", "reviewer"}, UserGroups: []string{"g1", "g2"},
			CustomFields: map[string]string{"site": "Perth"}},
			map[string]string{"id": "u1", "name": "a,b", "roles": "app-user;reviewer", "userGroups": "g1;g2",
				"managedUserGroups": "", "customFields": `{"site":"Perth"}`, "lastActiveDate": ""}},
		{edapp.Attempt{ID: "a1", Score: edapp.Ptr(90.0), Success: true, EarnedStars: 3, StartedDateTime: ts},
			map[string]string{"score": "90", "success": "true", "earnedStars": "3", "startedDateTime": "2026-03-07T05:10:36.187Z", "completedDateTime": ""}},
		{edapp.LessonProgressEvent{LessonScore: &score}, map[string]string{"lessonScore": "87.5"}},
		{edapp.LessonProgressEvent{}, map[string]string{"lessonScore": ""}},
		{edapp.SurveyQuestionDefinition{Answers: []edapp.SurveyAnswerDefinition{{ID: "x"}}}, map[string]string{"answers": `[{"id":"x","content":""}]`}},
	} {
		r, err := newRecord(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		for col, want := range tc.want {
			if got := r.Cell(col); got != want {
				t.Errorf("%T %s = %q, want %q", tc.v, col, got, want)
			}
		}
	}
}

func TestRawCell(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`"a,b"`: "a,b", `null`: "", `12.5`: "12.5", `true`: "true",
		`["x","y"]`: "x;y", `{"k":"v"}`: `{"k":"v"}`, `[{"id":"1"}]`: `[{"id":"1"}]`,
	} {
		if got := rawCell(json.RawMessage(raw)); got != want {
			t.Errorf("rawCell(%s) = %q, want %q", raw, got, want)
		}
	}
}

func TestRecordJSONCompactsExtra(t *testing.T) {
	t.Parallel()
	l := edapp.Lesson{ID: "l1", Extra: map[string]json.RawMessage{"b": json.RawMessage("{\n  \"x\": 1\n}"), "a": json.RawMessage(`[1, 2]`), "bad": json.RawMessage(`{`)}}
	r, err := newRecord(l)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) || strings.ContainsAny(string(b), "\r\n") || !strings.HasSuffix(string(b), `,"a":[1, 2],"b":{"x":1}}`) {
		t.Errorf("got %s", b)
	}
}

// TestRecordMicroseconds: times keep the precision the service sent, in
// cells, keys and JSON: two events 300 µs apart stay two.
func TestRecordMicroseconds(t *testing.T) {
	t.Parallel()
	t0, _ := edapp.ParseTime("2026-03-07T05:10:36.187100Z")
	t1 := edapp.Time{Time: t0.Add(300 * time.Microsecond)}
	a, _ := newRecord(edapp.LessonProgressEvent{UserID: "u", LessonID: "l", EventName: "LessonCompleted", EventDateTime: t0})
	b, _ := newRecord(edapp.LessonProgressEvent{UserID: "u", LessonID: "l", EventName: "LessonCompleted", EventDateTime: t1})
	if got := a.Cell("eventDateTime"); got != "2026-03-07T05:10:36.187100Z" {
		t.Errorf("cell = %q", got)
	}
	j, err := b.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j), `"eventDateTime":"2026-03-07T05:10:36.1874Z"`) && !strings.Contains(string(j), `"eventDateTime":"2026-03-07T05:10:36.187400Z"`) {
		t.Errorf("JSON = %s", j)
	}
	ms, _ := edapp.ParseTime("2026-03-07T05:10:36.100Z")
	c, _ := newRecord(edapp.Attempt{StartedDateTime: ms})
	if got := c.Cell("startedDateTime"); got != "2026-03-07T05:10:36.100Z" {
		t.Errorf("a time in milliseconds: cell = %q", got)
	}
}
