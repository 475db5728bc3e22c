package v1_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/edapp-go/edapp"
	v1 "github.com/edapp-go/edapp/v1"
)

// TestProgressKeepsTheJSON: the progress fields, one embedded Progress in
// each course and lesson, read and write the same JSON as before. Each
// fixture decodes as the client decodes it, and encodes to the bytes kept
// in testdata/*.encoded.json.
func TestProgressKeepsTheJSON(t *testing.T) {
	t.Parallel()
	check := func(fixture string, v any) {
		t.Helper()
		in, err := os.ReadFile(filepath.Join("testdata", fixture+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if dropped, err := edapp.Unmarshal(in, v); err != nil || len(dropped) > 0 {
			t.Fatalf("%s: %v, dropped %v", fixture, err, dropped)
		}
		got, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", fixture+".encoded.json")
		if os.Getenv("EDAPP_UPDATE_GOLDEN") != "" {
			if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if string(got)+"\n" != string(want) {
			t.Errorf("%s encodes as\n%s\nwant\n%s", fixture, got, want)
		}
		// And plain encoding/json reads back what it wrote.
		again := reflect.New(reflect.TypeOf(v).Elem()).Interface()
		if err := json.Unmarshal(got, again); err != nil {
			t.Fatal(err)
		}
		if twice, _ := json.MarshalIndent(again, "", "  "); string(twice) != string(got) {
			t.Errorf("%s: a second round trip encodes as\n%s", fixture, twice)
		}
	}
	var courses []v1.Course
	check("courses", &courses)
	var report v1.CourseReport
	check("report", &report)
}
