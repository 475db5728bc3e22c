package v1_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/lenient"
	v1 "github.com/edapp-go/edapp/v1"
)

func TestPrintingACourseHidesLaunchTokens(t *testing.T) {
	t.Parallel()
	c := v1.Course{ID: "c1", Title: "Safety", Lessons: []v1.Lesson{{ID: "l1", Title: "Alarm", LaunchURI: "https://web.edapp.com/launch-lesson?token=tok-secret-123&lesson=l1"}}}
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v", c, c.Lessons[0]), fmt.Sprint(&c.Lessons[0])} {
		if strings.Contains(s, "tok-secret-123") {
			t.Fatalf("token printed: %s", s)
		}
		if !strings.Contains(s, "lesson=l1") {
			t.Fatalf("link lost: %s", s)
		}
	}
}

func TestDotOnlyIDsAreRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	c := f.client()
	ctx := context.Background()
	for _, id := range []string{".", "..", "..."} {
		errs := map[string]error{}
		errs["Users.Delete"] = c.Users.Delete(ctx, id)
		_, errs["Users.Courses"] = c.Users.Courses(ctx, id)
		_, errs["Users.LaunchLink user"] = c.Users.LaunchLink(ctx, id, "l-1")
		_, errs["Users.LaunchLink lesson"] = c.Users.LaunchLink(ctx, "u-1", id)
		errs["UserGroups.Delete"] = c.UserGroups.Delete(ctx, id)
		_, errs["Reports.UserCourse"] = c.Reports.UserCourse(ctx, id, "c-1")
		for name, err := range errs {
			if !errors.Is(err, edapp.ErrInvalidInput) {
				t.Errorf("%s(%q) = %v, want ErrInvalidInput", name, id, err)
			}
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// TestEveryRecordKeepsUnknownMembers: every v1 record type keeps the
// members it does not know in Extra, also when nested, and none has an
// UnmarshalJSON method (which would make encoding/json scan it twice).
func TestEveryRecordKeepsUnknownMembers(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		&v1.User{}, &v1.UserGroup{}, &v1.Course{}, &v1.Lesson{},
		&v1.CourseReport{}, &v1.LessonReport{}, &v1.Slide{}, &v1.Interaction{}, &v1.InteractionResult{},
	} {
		typ := reflect.TypeOf(v).Elem()
		if _, ok := v.(json.Unmarshaler); ok {
			t.Errorf("%s has an UnmarshalJSON method", typ.Name())
		}
		if _, err := lenient.Decode([]byte(`{"zzUnknown":{"a":[1]}}`), v); err != nil {
			t.Fatalf("%s: %v", typ.Name(), err)
		}
		got := reflect.ValueOf(v).Elem().FieldByName("Extra").Interface()
		if want := (edapp.RawFields{"zzUnknown": json.RawMessage(`{"a":[1]}`)}); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Extra = %v", typ.Name(), got)
		}
	}

	var r v1.CourseReport
	in := `{"id":"c","lessons":[{"id":"l","x":1,"slides":[{"name":"s","interactions":[{"type":"view","y":2,"result":{"correct":true,"z":3}}]}]}]}`
	if _, err := lenient.Decode([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	in0 := r.Lessons[0].Slides[0].Interactions[0]
	if r.Extra != nil || string(r.Lessons[0].Extra["x"]) != "1" || r.Lessons[0].Slides[0].Extra != nil ||
		string(in0.Extra["y"]) != "2" || string(in0.Result.Extra["z"]) != "3" {
		t.Errorf("nested Extra: %+v", r)
	}
}

// v1 records show only their documented fields: the other spellings the
// service uses stay in the decoder, so json.Marshal of a record decoded
// from them writes only the documented names, and a caller can set no
// other field.
func TestRecordsMarshalOnlyTheirDocumentedFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		record   any
		in       string
		exported string
	}{
		{&v1.User{}, `{"userName":"u","externalId":"e"}`, "ID Username Email UserGroups FirstName LastName ExternalID Extra"},
		{&v1.Course{}, `{"completionDate":"2021-02-02T00:00:00Z"}`,
			"ID Title Unlocked UnlockedDate Completed CompletedDate Opened OpenedDate Lessons Extra"},
	} {
		var fields []string
		for _, sf := range reflect.VisibleFields(reflect.TypeOf(tc.record).Elem()) {
			if sf.IsExported() && !sf.Anonymous {
				fields = append(fields, sf.Name)
			}
		}
		if got := strings.Join(fields, " "); got != tc.exported {
			t.Errorf("exported fields %s, want %s", got, tc.exported)
		}
		if _, err := edapp.Unmarshal([]byte(tc.in), tc.record); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(tc.record)
		if err != nil || strings.Contains(string(b), "userName") || strings.Contains(string(b), "completionDate") {
			t.Errorf("json.Marshal: %s, %v", b, err)
		}
	}
}
