package webhook

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
		ev, err := edapp.ParseEvent([]byte(`{"eventName":"` + string(name) + `","userId":"u1","timestamp":"2024-05-14T03:22:41.1234567Z"}`))
		if err != nil {
			t.Fatal(err)
		}
		for _, slot := range slotsOf(reflect.TypeOf(ev).Elem()) {
			filled[slot] = true
		}
		args := s.rowArgs("k", ev, []byte("{}"), time.Unix(0, 0))
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
