package inbox

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
)

// TestRowArgsCoverEveryField: every field of the ten events has a column,
// and every column of a field is filled by some event.
func TestRowArgsCoverEveryField(t *testing.T) {
	filled := map[int]bool{}
	s := &Store{dialect: SQLite}
	for _, name := range edapp.EventNames() {
		body := []byte(`{"eventName":"` + string(name) + `","userId":"u1","timestamp":"2024-05-14T03:22:41.1234567Z"}`)
		ev, err := edapp.ParseEvent(body)
		if err != nil {
			t.Fatal(err)
		}
		for _, slot := range slotsOf(reflect.TypeOf(ev).Elem()) {
			filled[slot] = true
		}
		args := s.rowArgs("k", ev, body, time.Unix(0, 0))
		if args[columnIndex("user_id")] != "u1" || args[columnIndex("event_time")] != "2024-05-14T03:22:41.123456Z" {
			t.Errorf("%s: user_id %v, event_time %v", name, args[columnIndex("user_id")], args[columnIndex("event_time")])
		}
	}
	for i, col := range eventsColumns {
		if !filled[i] && i != colKey && i != colName && i != colReceived && i != colRaw {
			t.Errorf("column %s is filled by no event", col)
		}
	}
}

func TestRowArgsUnknownEvent(t *testing.T) {
	s := &Store{dialect: Postgres}
	args := s.rowArgs("k", &edapp.UnknownEvent{EventName: "X"}, []byte(`{"eventName":"X"}`), time.Unix(0, 0))
	for i, a := range args {
		want := i == colKey || i == colName || i == colReceived || i == colRaw
		if (a != nil) != want {
			t.Errorf("column %s = %v", eventsColumns[i], a)
		}
	}
}

func TestInsertStatement(t *testing.T) {
	q := insertStatement(Postgres, 2)
	if n := len(eventsColumns); !strings.Contains(q, fmt.Sprintf("$%d)", 2*n)) || strings.Contains(q, fmt.Sprintf("$%d", 2*n+1)) {
		t.Errorf("postgres, 2 rows: %s", q)
	}
	if !strings.HasSuffix(q, "ON CONFLICT (event_key) DO NOTHING RETURNING event_key") {
		t.Errorf("postgres: %s", q)
	}
	q = insertStatement(SQLite, 3)
	if strings.Contains(q, "$") || strings.Count(q, "?") != 3*len(eventsColumns) || strings.Count(q, "(") != 5 {
		t.Errorf("sqlite, 3 rows: %s", q)
	}
	if rowsPerInsert*len(eventsColumns) > 32766/2 {
		t.Errorf("%d rows of %d parameters come near SQLite's limit", rowsPerInsert, len(eventsColumns))
	}
}

func TestDistinctKeys(t *testing.T) {
	batch := []*putRequest{{key: "a"}, {key: "b"}, {key: "a"}, {key: "c"}, {key: "b"}}
	firsts, rows := distinctKeys(batch)
	if want := []bool{true, true, false, true, false}; !slices.Equal(firsts, want) {
		t.Errorf("firsts = %v, want %v", firsts, want)
	}
	if len(rows) != 3 || rows[0] != batch[0] || rows[1] != batch[1] || rows[2] != batch[3] {
		t.Errorf("rows = %v", rows)
	}
}

// TestRowArgsNullWhereNotSent: a field the delivery did not carry, or sent
// as null, is NULL; one sent as 0 or "" keeps its value. Names match in any
// case, and the last of a name sent twice counts, as for ParseEvent.
func TestRowArgsNullWhereNotSent(t *testing.T) {
	t.Parallel()
	s := &Store{dialect: SQLite}
	for _, tc := range []struct {
		body  string
		score any
		email any
		first any
	}{
		{`{"eventName":"LessonCompletedEvent","userId":"u1"}`, nil, nil, nil},
		{`{"eventName":"LessonCompletedEvent","score":0,"email":"","FIRSTNAME":"Ann"}`, 0.0, "", "Ann"},
		{`{"eventName":"LessonCompletedEvent","score":null,"email":null}`, nil, nil, nil},
		{`{"eventName":"LessonCompletedEvent","score":5,"SCORE":null}`, nil, nil, nil},
		{`{"eventName":"LessonCompletedEvent","score":null,"Score":"7"}`, 7.0, nil, nil},
	} {
		ev, err := edapp.ParseEvent([]byte(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		args := s.rowArgs("k", ev, []byte(tc.body), time.Unix(0, 0))
		got := []any{args[columnIndex("score")], args[columnIndex("email")], args[columnIndex("first_name")]}
		if want := []any{tc.score, tc.email, tc.first}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: score, email, first_name = %#v, want %#v", tc.body, got, want)
		}
	}
}

func FuzzSentColumns(f *testing.F) {
	f.Add([]byte(`{"a":1,"B":null,"c":{"d":[1,2]}}`))
	f.Add([]byte(`{"a":`))
	f.Add([]byte(`[1]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		sentColumns(raw) // never panics
	})
}

// BenchmarkRowArgs: a delivery's row, the body's keys read once more.
func BenchmarkRowArgs(b *testing.B) {
	body := []byte(`{"eventName":"LessonCompletedEvent","userId":"5c8094a8a2d7bd0013d3b5a1","userName":"amelia.chen",` +
		`"email":"amelia.chen@example.com","firstname":"Amelia","lastname":"Chen","courseId":"5f1e2d3c4b5a69788796a5b4",` +
		`"courseTitle":"Workplace Health & Safety Essentials","lessonId":"5f1e2e0a4b5a69788796a5c7",` +
		`"lessonTitle":"Manual Handling: Lifting Safely","timestamp":"2024-05-14T03:19:02.554Z","score":87.5}`)
	ev, err := edapp.ParseEvent(body)
	if err != nil {
		b.Fatal(err)
	}
	s := &Store{dialect: SQLite}
	b.ReportAllocs()
	for b.Loop() {
		s.rowArgs("k", ev, body, time.Unix(0, 0))
	}
}
