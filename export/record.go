package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/internal/jsonobj"
	"github.com/edapp-go/edapp/export/internal/recordtype"
)

// Record is one exported record: an SDK record struct (or one of the
// export's own rows, such as a group membership), read by JSON field name.
type Record struct {
	v reflect.Value // the struct
	c *codec
}

// codec knows, for one struct type, where each JSON field is, and where
// the fields the SDK did not decode are kept (Extra), if anywhere.
type codec struct {
	fields map[string][]int // JSON name -> field index
	extra  []int            // nil: no Extra field
	times  []string         // the JSON names of the edapp.Time fields
	plan   *encoderPlan     // nil: encoding/json writes the type
}

var (
	codecs   sync.Map // reflect.Type -> *codec
	timeType = reflect.TypeFor[edapp.Time]()
)

func codecFor(t reflect.Type) *codec {
	if c, ok := codecs.Load(t); ok {
		return c.(*codec)
	}
	fs := recordtype.Of(t)
	c := &codec{fields: fs.ByName, extra: fs.Extra, times: fs.Times, plan: newPlan(t)}
	codecs.Store(t, c)
	return c
}

// NewRecord is v, an SDK record struct or a pointer to one, as a Record.
func NewRecord(v any) (Record, error) { return newRecord(v) }

func newRecord(v any) (Record, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return Record{}, fmt.Errorf("export: %T is not a record", v)
	}
	return Record{v: rv, c: codecFor(rv.Type())}, nil
}

func (r Record) extra() edapp.RawFields {
	if r.c.extra == nil {
		return nil
	}
	return r.v.FieldByIndex(r.c.extra).Interface().(edapp.RawFields)
}

// Cell renders the named field as CSV does: strings as they are, empty dates
// and absent values as empty, numbers and booleans as JSON writes them,
// lists of strings joined by ";", and anything else as compact JSON. A
// name the SDK does not know is looked up among the fields it kept.
func (r Record) Cell(name string) string {
	idx, ok := r.c.fields[name]
	if !ok {
		return rawCell(r.extra()[name])
	}
	f := r.v.FieldByIndex(idx)
	switch f.Kind() {
	case reflect.String:
		return f.String()
	case reflect.Bool:
		return strconv.FormatBool(f.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return strconv.FormatInt(f.Int(), 10)
	case reflect.Float64, reflect.Float32:
		return strconv.FormatFloat(f.Float(), 'f', -1, 64)
	case reflect.Pointer:
		if f.IsNil() {
			return ""
		}
		if e := f.Elem(); e.Kind() == reflect.Float64 {
			return strconv.FormatFloat(e.Float(), 'f', -1, 64)
		}
	case reflect.Struct:
		if f.Type() == timeType {
			return formatTime(f.Interface().(edapp.Time).Time)
		}
	case reflect.Slice:
		if f.Type().Elem().Kind() == reflect.String {
			return joinStrings(f)
		}
	}
	b, err := json.Marshal(f.Interface())
	if err != nil {
		return ""
	}
	return rawCell(b)
}

// joinStrings is a list of strings as one cell, its items joined by ";".
func joinStrings(list reflect.Value) string {
	parts := make([]string, list.Len())
	for i := range parts {
		parts[i] = list.Index(i).String()
	}
	return strings.Join(parts, ";")
}

// Time returns the named date field, or the zero time.
func (r Record) Time(name string) time.Time {
	if idx, ok := r.c.fields[name]; ok {
		if f := r.v.FieldByIndex(idx); f.Type() == timeType {
			return f.Interface().(edapp.Time).Time
		}
	}
	return time.Time{}
}

// JSON encodes the record with every field: the ones the SDK knows, as it
// encodes them, and the ones it kept in Extra, as sent. A known field wins
// over an Extra field of the same name, unless it is zero: the SDK keeps
// in Extra a value it could not read, and leaves its field zero.
func (r Record) JSON() ([]byte, error) {
	b, finer, err := r.marshal()
	if err != nil {
		return nil, err
	}
	if finer {
		b = r.finerTimes(b)
	}
	b = r.unreadAsSent(b)
	return jsonobj.Splice(b, r.extra(), func(k string) bool { _, known := r.c.fields[k]; return known }), nil
}

// marshal is the record struct as json.Marshal writes it: by the type's
// plan when it has one and the plan can write every value. finer is
// false when no time field holds a finer fraction than that writes.
func (r Record) marshal() (b []byte, finer bool, err error) {
	if r.c.plan != nil {
		e := encodeState{b: make([]byte, 0, 512)}
		if r.c.plan.appendJSON(&e, r.v) {
			return e.b, e.finer, nil
		}
	}
	b, err = json.Marshal(r.v.Interface())
	return b, true, err
}

// unreadAsSent writes again, in b, each known field whose value the SDK
// could not read (it kept it in Extra and left the field zero) as the
// service sent it, so that raw keeps what the column holds as NULL.
func (r Record) unreadAsSent(b []byte) []byte {
	var unread []string
	for k, v := range r.extra() {
		if f, known := r.field(k); known && f.IsZero() && json.Valid(v) {
			unread = append(unread, k)
		}
	}
	if len(unread) == 0 {
		return b
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) != nil {
		return b
	}
	for _, k := range unread {
		members[k] = jsonobj.Compact(r.extra()[k])
	}
	out, err := json.Marshal(members)
	if err != nil {
		return b
	}
	return out
}

// rawCell renders a JSON value as cell does.
func rawCell(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '[':
		var ss []string
		if json.Unmarshal(raw, &ss) == nil {
			return strings.Join(ss, ";")
		}
	}
	return string(raw)
}

// Value is the record struct itself.
func (r Record) Value() any { return r.v.Interface() }

// Extra is the members of the record the SDK did not decode, as sent.
func (r Record) Extra() edapp.RawFields { return r.extra() }

// Field returns the struct field the SDK decodes the named JSON field
// into, or false.
func (r Record) Field(name string) (reflect.Value, bool) { return r.field(name) }

// IsText reports whether the named field is text: a string or a list of
// strings, or an unknown member sent as a JSON string or list.
func (r Record) IsText(name string) bool { return r.isText(name) }

// field returns the struct field the SDK decodes the named JSON field
// into, or false.
func (r Record) field(name string) (reflect.Value, bool) {
	idx, ok := r.c.fields[name]
	if !ok {
		return reflect.Value{}, false
	}
	return r.v.FieldByIndex(idx), true
}

// isText reports whether the named field is text: a string or a list of
// strings, or an unknown member sent as a JSON string or list.
func (r Record) isText(name string) bool {
	f, ok := r.field(name)
	if !ok {
		raw := bytes.TrimSpace(r.extra()[name])
		return len(raw) > 0 && (raw[0] == '"' || raw[0] == '[')
	}
	switch f.Kind() {
	case reflect.String:
		return true
	case reflect.Slice:
		return f.Type().Elem().Kind() == reflect.String
	}
	return false
}

// formatTime writes a time as the export does everywhere: RFC 3339 in
// UTC with milliseconds, or with as many more digits as the service sent,
// so that two events 300 µs apart stay two; "" for the zero time.
func formatTime(t time.Time) string {
	switch {
	case t.IsZero():
		return ""
	case t.Nanosecond()%1e6 == 0:
		return edapp.Time{Time: t}.String() // milliseconds, as the SDK writes them
	case t.Nanosecond()%1e3 == 0:
		return t.UTC().Format("2006-01-02T15:04:05.000000Z07:00")
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// finerTimes writes again, in b (the record as the SDK encodes it, with
// milliseconds), each time field that holds a finer fraction.
func (r Record) finerTimes(b []byte) []byte {
	for _, name := range r.c.times {
		t := r.v.FieldByIndex(r.c.fields[name]).Interface().(edapp.Time)
		if t.Nanosecond()%1e6 == 0 {
			continue
		}
		key, _ := json.Marshal(name)
		coarse, _ := json.Marshal(t)
		fine, _ := json.Marshal(formatTime(t.Time))
		b = bytes.Replace(b, append(append(key, ':'), coarse...), append(append(key, ':'), fine...), 1)
	}
	return b
}
