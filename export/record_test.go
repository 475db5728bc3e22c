package export

import (
	"encoding/json"
	"testing"

	"github.com/edapp-go/edapp"
)

func TestRecordJSONMergesExtra(t *testing.T) {
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
		{edapp.Attempt{ID: "a1", Score: 90, Success: true, EarnedStars: 3, StartedDateTime: ts},
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
	for raw, want := range map[string]string{
		`"a,b"`: "a,b", `null`: "", `12.5`: "12.5", `true`: "true",
		`["x","y"]`: "x;y", `{"k":"v"}`: `{"k":"v"}`, `[{"id":"1"}]`: `[{"id":"1"}]`,
	} {
		if got := rawCell(json.RawMessage(raw)); got != want {
			t.Errorf("rawCell(%s) = %q, want %q", raw, got, want)
		}
	}
}
