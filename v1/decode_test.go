package v1_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/lenient"
	v1 "github.com/edapp-go/edapp/v1"
)

// TestEveryRecordKeepsUnknownMembers: every v1 record type keeps the
// members it does not know in Extra, also when nested, and none has an
// UnmarshalJSON method (which would make encoding/json scan it twice).
func TestEveryRecordKeepsUnknownMembers(t *testing.T) {
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
