package export

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/internal/jsonobj"
)

// An encoderPlan writes a record struct as json.Marshal does, byte for
// byte, in one pass over its fields, without encoding/json's reflection
// per call. The digest covers the raw column, so a changed byte would
// open a history version of every row on the next run: a type, field or
// value the plan cannot write as encoding/json would is left to
// encoding/json (a type not simple enough has no plan; a value not plain
// enough, such as a string needing escapes, is marshalled alone, which
// encoding/json writes as it would inside the struct).
type encoderPlan struct {
	fields []fieldEncoder
}

// writeFunc appends a field's value to b, or returns false when the plan
// cannot write it as encoding/json would.
type writeFunc func(e *encodeState, f reflect.Value) bool

// encodeState is a record being written by its plan.
type encodeState struct {
	b []byte
	// finer: a time field holds a finer fraction than json.Marshal
	// writes (see Record.finerTimes).
	finer bool
}

// fieldEncoder writes one field: its key and its value.
type fieldEncoder struct {
	index     int
	key       string // `"name":`
	omitEmpty bool
	write     writeFunc
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// newPlan is t's plan, or nil when encoding/json must write t.
func newPlan(t reflect.Type) *encoderPlan {
	if marshals(t) {
		return nil
	}
	p := &encoderPlan{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil // embedded fields follow encoding/json's rules of depth
		}
		if !f.IsExported() {
			continue
		}
		name, opts, tagged := cutTag(f.Tag.Get("json"))
		if name == "-" && !tagged {
			continue
		}
		if name == "" {
			name = f.Name
		}
		omitEmpty, ok := planOptions(opts)
		if !ok || !plainName(name) {
			return nil
		}
		p.fields = append(p.fields, fieldEncoder{index: i, key: `"` + name + `":`, omitEmpty: omitEmpty, write: writerFor(f.Type)})
	}
	if !distinctKeys(p.fields) {
		return nil
	}
	return p
}

// cutTag splits a json tag into its name and options; tagged reports
// whether it had options (a name of "-," is the key "-").
func cutTag(tag string) (name, opts string, tagged bool) {
	for i := range len(tag) {
		if tag[i] == ',' {
			return tag[:i], tag[i+1:], true
		}
	}
	return tag, "", false
}

// planOptions reads a tag's options: only omitempty has a plan.
func planOptions(opts string) (omitEmpty, ok bool) {
	for opts != "" {
		opt, rest, _ := cutTag(opts)
		switch opt {
		case "omitempty":
			omitEmpty = true
		case "":
		default:
			return false, false // string, omitzero and the ones to come
		}
		opts = rest
	}
	return omitEmpty, true
}

// plainName reports whether a key is letters, digits and underscores,
// which encoding/json writes as they are.
func plainName(s string) bool {
	for i := range len(s) {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

func distinctKeys(fields []fieldEncoder) bool {
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.key] {
			return false
		}
		seen[f.key] = true
	}
	return true
}

// marshals reports whether t (or *t) encodes itself.
func marshals(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		pt.Implements(marshalerType) || pt.Implements(textMarshalerType)
}

// writerFor is how a field of type t is written.
func writerFor(t reflect.Type) writeFunc {
	if t == timeType {
		return writeTime
	}
	if marshals(t) {
		return writeMarshalled
	}
	switch t.Kind() {
	case reflect.String:
		return writeString
	case reflect.Bool:
		return writeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return writeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return writeUint
	case reflect.Float64:
		return writeFloat
	case reflect.Pointer:
		if elem := t.Elem(); !marshals(elem) && elem.Kind() != reflect.Pointer {
			if w := writerFor(elem); w != nil {
				return pointerWriter(w)
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String && !marshals(t.Elem()) {
			return writeStrings
		}
	}
	return writeMarshalled
}

func pointerWriter(elem writeFunc) writeFunc {
	return func(e *encodeState, f reflect.Value) bool {
		if f.IsNil() {
			e.b = append(e.b, "null"...)
			return true
		}
		return elem(e, f.Elem())
	}
}

// appendJSON appends v to e as json.Marshal writes it, and returns true;
// or false when the plan cannot write it (encoding/json is then left the
// whole record).
func (p *encoderPlan) appendJSON(e *encodeState, v reflect.Value) bool {
	e.b = append(e.b, '{')
	first := true
	for i := range p.fields {
		fe := &p.fields[i]
		f := v.Field(fe.index)
		if fe.omitEmpty && isEmptyValue(f) {
			continue
		}
		if !first {
			e.b = append(e.b, ',')
		}
		first = false
		e.b = append(e.b, fe.key...)
		if !fe.write(e, f) {
			return false
		}
	}
	e.b = append(e.b, '}')
	return true
}

// isEmptyValue is encoding/json's test for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

func writeString(e *encodeState, f reflect.Value) bool {
	e.b = jsonobj.AppendString(e.b, f.String())
	return true
}

func writeBool(e *encodeState, f reflect.Value) bool {
	e.b = strconv.AppendBool(e.b, f.Bool())
	return true
}

func writeInt(e *encodeState, f reflect.Value) bool {
	e.b = strconv.AppendInt(e.b, f.Int(), 10)
	return true
}

func writeUint(e *encodeState, f reflect.Value) bool {
	e.b = strconv.AppendUint(e.b, f.Uint(), 10)
	return true
}

// writeFloat writes a float64 in encoding/json's 'f' format; a value it
// writes with an exponent (or refuses) goes through json.Marshal.
func writeFloat(e *encodeState, f reflect.Value) bool {
	x := f.Float()
	if abs := math.Abs(x); abs != 0 && (abs < 1e-6 || abs >= 1e21 || math.IsNaN(x)) {
		return e.marshalled(x)
	}
	e.b = strconv.AppendFloat(e.b, x, 'f', -1, 64)
	return true
}

// writeTime writes an edapp.Time as its MarshalJSON does.
func writeTime(e *encodeState, f reflect.Value) bool {
	t := f.Interface().(edapp.Time)
	if t.IsZero() {
		e.b = append(e.b, "null"...)
		return true
	}
	u := t.UTC()
	if y := u.Year(); y < 0 || y > 9999 {
		return false // MarshalJSON's error
	}
	e.finer = e.finer || u.Nanosecond()%1e6 != 0
	e.b = append(e.b, '"')
	e.b = u.AppendFormat(e.b, time.RFC3339) // seconds, then Z
	ms := u.Nanosecond() / 1e6
	e.b = append(e.b[:len(e.b)-1], '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z', '"')
	return true
}

func writeStrings(e *encodeState, f reflect.Value) bool {
	if f.IsNil() {
		e.b = append(e.b, "null"...)
		return true
	}
	e.b = append(e.b, '[')
	for i := range f.Len() {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = jsonobj.AppendString(e.b, f.Index(i).String())
	}
	e.b = append(e.b, ']')
	return true
}

func writeMarshalled(e *encodeState, f reflect.Value) bool {
	return e.marshalled(f.Interface())
}

// marshalled appends v as json.Marshal writes it, which is how
// encoding/json writes it as a struct's field.
func (e *encodeState) marshalled(v any) bool {
	m, err := json.Marshal(v)
	if err != nil {
		return false
	}
	e.b = append(e.b, m...)
	return true
}
