package inbox

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/internal/dbwrite"
)

// fieldColumns maps the JSON name of each event field, in lower case, to
// its column in the events table.
var fieldColumns = map[string]string{
	"userid": "user_id", "userexternalid": "user_external_id", "username": "user_name", "email": "email",
	"firstname": "first_name", "lastname": "last_name",
	"courseid": "course_id", "coursetitle": "course_title", "courselink": "course_link",
	"lessonid": "lesson_id", "lessontitle": "lesson_title", "score": "score",
	"quizid": "quiz_id", "quiztitle": "quiz_title", "quizsession": "quiz_session", "quizlink": "quiz_link",
	"duedate": "due_date", "timestamp": "event_time",
}

// eventsColumns are the events table's columns, in the order of a row's
// arguments.
var eventsColumns = func() []string {
	var names []string
	events, _ := dbschema.Lookup("events")
	for _, c := range events.Columns {
		names = append(names, c.Name)
	}
	return names
}()

// The columns every row fills.
var (
	colKey      = columnIndex("event_key")
	colName     = columnIndex("event_name")
	colReceived = columnIndex("received_at")
	colRaw      = columnIndex("raw")
)

func columnIndex(name string) int {
	for i, c := range eventsColumns {
		if c == name {
			return i
		}
	}
	panic("webhook: no column " + name) // a mistake in fieldColumns, found by the tests
}

// rowsPerInsert bounds the rows of one INSERT statement, so that its
// parameters (one a column) stay well below the limits of SQLite (32,766)
// and PostgreSQL (65,535).
const rowsPerInsert = 32

// insertStatement inserts n rows, skipping those whose key is stored, and
// returns the keys of the rows it inserted. A key must not appear twice
// among the n rows.
func insertStatement(d Dialect, n int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(eventsColumns)), ", ") + ")"
	q := "INSERT INTO events (" + strings.Join(eventsColumns, ", ") + ") VALUES " +
		strings.TrimSuffix(strings.Repeat(row+", ", n), ", ") +
		" ON CONFLICT (event_key) DO NOTHING RETURNING event_key"
	return dbwrite.Rebind(dbschema.Dialect(d), q)
}

// fieldSlots is, for each field of an event struct, the column it fills.
var fieldSlots sync.Map // reflect.Type -> []int

func slotsOf(t reflect.Type) []int {
	if v, ok := fieldSlots.Load(t); ok {
		return v.([]int)
	}
	slots := make([]int, t.NumField())
	for i := range slots {
		col, ok := fieldColumns[strings.ToLower(t.Field(i).Tag.Get("json"))]
		if !ok {
			panic("webhook: no column for " + t.Name() + "." + t.Field(i).Name) // found by the tests
		}
		slots[i] = columnIndex(col)
	}
	fieldSlots.Store(t, slots)
	return slots
}

// rowArgs returns the arguments of insertStatement for one delivery: NULL
// in the columns of fields the event does not have, and for a zero time.
func (s *Store) rowArgs(key string, ev edapp.Event, raw []byte, received time.Time) []any {
	args := make([]any, len(eventsColumns))
	args[colKey] = key
	args[colName] = string(ev.Name())
	args[colReceived] = s.timeArg(received)
	args[colRaw] = string(raw)
	if _, unknown := ev.(*edapp.UnknownEvent); !unknown {
		s.eventArgs(args, ev, sentColumns(raw))
	}
	// A delivery holding bytes that are not UTF-8, or a NUL on PostgreSQL,
	// is stored with U+FFFD in their place, rather than refused.
	dbwrite.CleanArgs(dbschema.Dialect(s.dialect), args, func(i int) bool { return i == colRaw })
	return args
}

// eventArgs fills the columns of ev's fields that the delivery carried
// (sent, by column). The others stay NULL: the event types cannot tell a
// missing score from a score of 0, the body can.
func (s *Store) eventArgs(args []any, ev edapp.Event, sent []bool) {
	v := reflect.ValueOf(ev).Elem()
	for i, slot := range slotsOf(v.Type()) {
		if !sent[slot] {
			continue
		}
		switch x := v.Field(i).Interface().(type) {
		case string, float64:
			args[slot] = x
		case edapp.Time:
			if !x.IsZero() {
				args[slot] = s.timeArg(x.Time)
			}
		}
	}
}

// timeArg is t as the dialect stores it: a timestamptz on PostgreSQL, the
// schema's ISO 8601 text on SQLite.
func (s *Store) timeArg(t time.Time) any {
	if s.dialect == SQLite {
		return t.UTC().Format(dbwrite.TimeLayout)
	}
	return t.UTC()
}

// sentType has a json.RawMessage field for each event field's JSON name,
// so that encoding/json finds the members a body sent as edapp.ParseEvent
// does: names match in any case, and of a name sent twice the last counts.
// sentColumn is the events column of each of its fields.
var sentType, sentColumn = func() (reflect.Type, []int) {
	var fields []reflect.StructField
	var cols []int
	for name, col := range fieldColumns {
		fields = append(fields, reflect.StructField{Name: "F" + strconv.Itoa(len(fields)),
			Type: reflect.TypeFor[json.RawMessage](), Tag: reflect.StructTag(`json:"` + name + `"`)})
		cols = append(cols, columnIndex(col))
	}
	return reflect.StructOf(fields), cols
}()

// sentColumns reports, for each events column, whether the delivery body
// raw carries its field with a value other than null. raw has been parsed
// already; a body it cannot read sends nothing.
func sentColumns(raw []byte) []bool {
	sent := make([]bool, len(eventsColumns))
	v := reflect.New(sentType)
	if json.Unmarshal(raw, v.Interface()) != nil {
		return sent
	}
	v = v.Elem()
	for i, col := range sentColumn {
		b := v.Field(i).Bytes()
		sent[col] = len(b) > 0 && string(b) != "null"
	}
	return sent
}
