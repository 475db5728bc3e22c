package v1_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	v1 "github.com/edapp-go/edapp/v1"
)

func TestReportsUserCourse(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(fixture(t, "report.json")))
	r, err := f.client().Reports.UserCourse(context.Background(), "u 1", "c/1")
	if err != nil {
		t.Fatal(err)
	}
	wantRequest(t, f.only(), "GET", "/v1/reports/user/u%201/course/c%2F1", "")

	if r.ID != "course-1" || r.Title != "Safety basics" || !r.Unlocked || !r.Completed || !r.Opened || len(r.Lessons) != 2 {
		t.Fatalf("report = %+v", r)
	}
	sameTime(t, "unlockedDate", r.UnlockedDate, "2019-03-07T05:10:36.187Z")
	sameTime(t, "completedDate", r.CompletedDate, "2019-03-08T09:00:00Z")
	sameTime(t, "openedDate", r.OpenedDate, "2019-03-07T05:12:00Z")

	l, ok := r.Lesson("lesson-1")
	if !ok {
		t.Fatal("lesson-1 missing")
	}
	if l.Title != "Hazards" || !l.Completed || l.Duration != 73.512 || len(l.Slides) != 2 {
		t.Fatalf("lesson-1 = %+v", l)
	}
	sameTime(t, "lesson-1 completedDate", l.CompletedDate, "2019-03-07T06:00:00Z")

	wantSlides := []struct {
		name  string
		inter []v1.Interaction
	}{
		{"Title slide", []v1.Interaction{
			{Type: v1.InteractionView, Duration: 4.75},
		}},
		{"Spot the hazard", []v1.Interaction{
			{Type: v1.InteractionView, Duration: 12.5},
			{Type: v1.InteractionSlide, Result: &v1.InteractionResult{Correct: true}},
			{Type: v1.InteractionSlide, Result: &v1.InteractionResult{TooSlow: true}},
		}},
	}
	dates := []string{"2019-03-07T05:15:01.250Z", "2019-03-07T05:15:06Z", "2019-03-07T05:15:18.5Z", "2019-03-07T05:15:40Z"}
	d := 0
	for i, ws := range wantSlides {
		s := l.Slides[i]
		if s.Name != ws.name || len(s.Interactions) != len(ws.inter) {
			t.Fatalf("slide %d = %+v", i, s)
		}
		for j, wi := range ws.inter {
			gi := s.Interactions[j]
			sameTime(t, "interaction date", gi.Date, dates[d])
			d++
			gi.Date = wi.Date
			if !reflect.DeepEqual(gi, wi) {
				t.Errorf("slide %d interaction %d = %+v (result %+v), want %+v (result %+v)", i, j, gi, gi.Result, wi, wi.Result)
			}
		}
	}

	l, ok = r.Lesson("lesson-2")
	if !ok || l.Completed || !l.CompletedDate.IsZero() || l.Duration != 0.5 || l.Slides == nil || len(l.Slides) != 0 {
		t.Errorf("lesson-2 = %+v", l)
	}
	if _, ok := r.Lesson("lesson-9"); ok {
		t.Error("lesson-9 found")
	}
}

func TestReportsActivities(t *testing.T) {
	t.Parallel()
	const body = `{"items":[{"any":"shape"}],"totalCount":1}`
	f := newFake(t, ok(body))
	raw, err := f.client().Reports.Activities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wantRequest(t, f.only(), "GET", "/v1/reports/activities", "")
	if string(raw) != body {
		t.Errorf("Activities = %s, want %s", raw, body)
	}
	if !json.Valid(raw) {
		t.Error("not valid JSON")
	}

	f = newFake(t, ok(`[1, 2]`), ok(``))
	c := f.client()
	if raw, err := c.Reports.Activities(context.Background()); err != nil || string(raw) != `[1, 2]` {
		t.Errorf("array answer: %s, %v", raw, err)
	}
	if raw, err := c.Reports.Activities(context.Background()); err != nil || raw != nil {
		t.Errorf("empty answer: %q, %v", raw, err)
	}
}
