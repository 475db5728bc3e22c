package v1_test

import (
	"context"
	"reflect"
	"testing"

	v1 "github.com/edapp-go/edapp/v1"
)

func TestUserGroupsSaveBodies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		group v1.UserGroup
		body  string
	}{
		{"insert", v1.UserGroup{Name: "Team", Users: []string{"u1", "u2"}, Courses: []string{"c1"}},
			`{"name":"Team","users":["u1","u2"],"courses":["c1"]}`},
		{"insert without lists", v1.UserGroup{Name: "Team"},
			`{"name":"Team"}`},
		{"update leaves members alone (nil users)", v1.UserGroup{ID: "g-1", Name: "Renamed"},
			`{"id":"g-1","name":"Renamed"}`},
		{"update removes every member (empty users)", v1.UserGroup{ID: "g-1", Users: []string{}},
			`{"id":"g-1","users":[]}`},
		{"update removes every course (empty courses)", v1.UserGroup{ID: "g-1", Courses: []string{}},
			`{"id":"g-1","courses":[]}`},
		{"both empty", v1.UserGroup{ID: "g-1", Name: "Team", Users: []string{}, Courses: []string{}},
			`{"id":"g-1","name":"Team","users":[],"courses":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, ok(`{"id":"g-1","name":"Team","users":["u1"],"courses":["c1"]}`))
			got, err := f.client().UserGroups.Save(context.Background(), tc.group)
			if err != nil {
				t.Fatal(err)
			}
			wantRequest(t, f.only(), "POST", "/v1/usergroups", tc.body)
			want := v1.UserGroup{ID: "g-1", Name: "Team", Users: []string{"u1"}, Courses: []string{"c1"}}
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("Save = %+v, want %+v", *got, want)
			}
		})
	}
}

func TestUserGroupsSaveAnswerWithoutID(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(`{}`), ok(`{"name":"Team"}`), ok(`{"name":"Team"}`))
	c := f.client()
	in := v1.UserGroup{ID: "g-1", Users: []string{}}
	got, err := c.UserGroups.Save(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, in) {
		t.Errorf("Save = %#v, want the group sent %#v", *got, in)
	}
	got, err = c.UserGroups.Save(context.Background(), v1.UserGroup{ID: "g-1", Name: "Team"})
	if err != nil || got.ID != "g-1" || got.Name != "Team" {
		t.Errorf("Save = %+v, %v", got, err)
	}
	if _, err := c.UserGroups.Save(context.Background(), v1.UserGroup{Name: "Team"}); err == nil {
		t.Error("an insert answered without an id is not an error")
	}
}
