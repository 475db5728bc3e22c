package sqldest

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/internal/dbwrite"
)

// legacyRow is rowMaker.row as it was before the cell plans: each column
// read by its field's name.
func legacyRow(m *rowMaker, t *table, r export.Record, run int64) ([]any, error) {
	row := make([]any, len(t.cols))
	for i, c := range t.cols {
		switch c.Name {
		case "raw":
			b, err := r.JSON()
			if err != nil {
				return nil, err
			}
			row[i] = string(b)
		case "edapp_run":
			row[i] = run
		case "source":
			row[i] = m.source
		case "edapp_digest":
		default:
			row[i] = m.value(r, t.fields[i], c.Type)
			if c.ZeroIsNone&m.origin() != 0 && isZero(row[i]) {
				row[i] = nil
			}
		}
	}
	t.putDigest(row)
	return row, nil
}

// TestRowSameAsByName: a row built by its table's cell plan is the one
// the columns read by name gave, in both dialects.
func TestRowSameAsByName(t *testing.T) {
	t.Parallel()
	at, _ := edapp.ParseTime("2026-03-07T05:10:36.187100Z")
	extra := edapp.RawFields{"lessonTitle": json.RawMessage(`"from extra"`), "score": json.RawMessage(`"n/a"`)}
	records := map[string][]any{
		"users": {edapp.User{ID: "u1", Username: "a", Roles: []edapp.Role{"app-user"}, UserGroups: []string{"g"}, CustomFields: map[string]string{"k": "v"}, Extra: extra},
			edapp.User{}},
		"attempts":               {edapp.Attempt{ID: "a1", UserID: "u1", Score: edapp.Ptr(0.0), Success: true, EarnedStars: 3, StartedDateTime: at, Extra: extra}, edapp.Attempt{ID: "a2"}},
		"lesson_progress_events": {edapp.LessonProgressEvent{UserID: "u", LessonID: "l", EventName: "LessonCompleted", EventDateTime: at, LessonScore: edapp.Ptr(87.5), Extra: extra}},
		"course_progress":        {edapp.CourseProgress{}},
	}
	for _, d := range []Dialect{SQLite, Postgres} {
		x := newDatabase(nil, nil, d)
		for kind, values := range records {
			tb, err := x.rows.table(kindNamed(t, kind))
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range values {
				r, err := export.NewRecord(v)
				if err != nil {
					t.Fatal(err)
				}
				got, err := x.rows.row(tb, r, 7)
				want, wantErr := legacyRow(x.rows, tb, r, 7)
				if err != nil || wantErr != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s:\n got %v (%v)\nwant %v (%v)", d, kind, got, err, want, wantErr)
				}
			}
		}
	}
}

// TestSQLiteTime: the times SQLite's rows hold are as
// dbwrite.TimeLayout formats them.
func TestSQLiteTime(t *testing.T) {
	t.Parallel()
	for _, u := range []time.Time{
		time.Date(2026, 3, 7, 5, 10, 36, 187_100_999, time.UTC), time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 1000, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Unix(1_700_000_000, 5_000).UTC(),
	} {
		if got, want := sqliteTime(u), u.Format(dbwrite.TimeLayout); got != want {
			t.Errorf("sqliteTime(%v) = %q, want %q", u, got, want)
		}
	}
}
