package filedest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
)

// TestKeyOfMicroseconds: times keep the precision the service sent in
// keys: two events 300 µs apart stay two.
func TestKeyOfMicroseconds(t *testing.T) {
	t.Parallel()
	t0, _ := edapp.ParseTime("2026-03-07T05:10:36.187100Z")
	t1 := edapp.Time{Time: t0.Add(300 * time.Microsecond)}
	a, _ := export.NewRecord(edapp.LessonProgressEvent{UserID: "u", LessonID: "l", EventName: "LessonCompleted", EventDateTime: t0})
	b, _ := export.NewRecord(edapp.LessonProgressEvent{UserID: "u", LessonID: "l", EventName: "LessonCompleted", EventDateTime: t1})
	key := []string{"userId", "lessonId", "eventName", "eventDateTime"}
	if keyOf(a, key) == keyOf(b, key) {
		t.Error("two events 300 µs apart have one key")
	}
}

// TestCSVFormulaCells: text that a spreadsheet would run is prefixed
// with '; numbers are not.
func TestCSVFormulaCells(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	w, err := newRecordWriter(&buf, "csv", []string{"id", "name", "firstName", "lastName", "email", "externalId", "roles", "note", "level"})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := export.NewRecord(edapp.User{ID: "u1", Username: `=HYPERLINK("http://x")`, FirstName: "+cmd|' /C calc'!A0", LastName: "-2+3", Email: "@SUM(1)", ExternalID: "\tx",
		Roles: []edapp.Role{"=evil"}, Extra: map[string]json.RawMessage{"note": json.RawMessage(`"=1+1"`), "level": json.RawMessage(`-3`)}})
	if err := w.write(u); err != nil {
		t.Fatal(err)
	}
	a, _ := export.NewRecord(edapp.Attempt{ID: "a1", Score: edapp.Ptr(-5.0), EarnedStars: -1})
	w2, _ := newRecordWriter(&buf, "csv", []string{"id", "score", "earnedStars"})
	if err := w2.write(a); err != nil {
		t.Fatal(err)
	}
	if err := w.flush(); err != nil {
		t.Fatal(err)
	}
	if err := w2.flush(); err != nil {
		t.Fatal(err)
	}
	want := "id,name,firstName,lastName,email,externalId,roles,note,level\n" +
		`u1,"'=HYPERLINK(""http://x"")",'+cmd|' /C calc'!A0,'-2+3,'@SUM(1),'` + "\tx,'=evil,'=1+1,-3\n" +
		"id,score,earnedStars\na1,-5,-1\n"
	if buf.String() != want {
		t.Errorf("got\n%q\nwant\n%q", buf.String(), want)
	}
}
