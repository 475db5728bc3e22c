package webhook

import (
	"reflect"
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
	if q := insertStatement(Postgres); !strings.Contains(q, "$22") || !strings.HasSuffix(q, "ON CONFLICT (event_key) DO NOTHING") {
		t.Errorf("postgres: %s", q)
	}
	if q := insertStatement(SQLite); strings.Contains(q, "$") {
		t.Errorf("sqlite: %s", q)
	}
}
