package edapp

// The decoding and encoding machinery of the event structs of events.go:
// ParseEvent and their JSON methods build on it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/edapp-go/edapp/internal/core"
)

// eventType is what ParseEvent and the JSON methods need of one event
// struct, worked out once from its row of eventTable.
type eventType struct {
	new    func() Event
	plain  reflect.Type // the struct's fields without its methods
	fields []eventField
}

// eventField is one field of an event struct (a string, float64 or Time):
// its index, its slot in wireType, its JSON name, and whether it identifies
// an occurrence of the event (EventKey).
type eventField struct {
	index, slot int
	key         string
	identity    bool
}

// wireType has a field of type wireValue for eventName and for each JSON name
// any event has, names that differ only in case sharing one, so that one pass
// of encoding/json finds every value, whichever event the payload is.
var eventTypes, wireType = buildEventTypes()

func buildEventTypes() (map[EventName]*eventType, reflect.Type) {
	types := map[EventName]*eventType{}
	slots := map[string]int{}
	var wire []reflect.StructField
	slotOf := func(key string) int {
		slot, ok := slots[strings.ToLower(key)]
		if !ok {
			slot = len(wire)
			slots[strings.ToLower(key)] = slot
			wire = append(wire, reflect.StructField{Name: "F" + strconv.Itoa(slot),
				Type: reflect.TypeFor[wireValue](), Tag: reflect.StructTag(`json:"` + key + `"`)})
		}
		return slot
	}
	slotOf("eventName") // slot 0
	for _, row := range eventTable {
		fields := reflect.VisibleFields(reflect.TypeOf(row.new()).Elem())
		t := &eventType{new: row.new, plain: reflect.StructOf(fields)}
		for i, f := range fields {
			key := f.Tag.Get("json")
			t.fields = append(t.fields, eventField{index: i, slot: slotOf(key), key: key,
				identity: slices.Contains(row.identity, key)})
		}
		types[row.name] = t
	}
	return types, reflect.StructOf(wire)
}

// wireValue keeps a value as sent, to be decoded once the event is known: a
// value that does not fit counts only for an event that has the field. It
// points into the payload, which must not change until the event is filled.
type wireValue []byte

func (v *wireValue) UnmarshalJSON(b []byte) error {
	*v = b
	return nil
}

// decodeWire checks that payload is one JSON object and returns a wireType
// holding the values of the names events have.
func decodeWire(payload []byte) (reflect.Value, error) {
	if trimmed := bytes.TrimLeft(payload, " \t\r\n"); len(trimmed) == 0 {
		return reflect.Value{}, errors.New("edapp: event payload is empty")
	} else if trimmed[0] != '{' {
		return reflect.Value{}, errors.New("edapp: event payload is not a JSON object")
	}
	w := reflect.New(wireType)
	if err := json.Unmarshal(payload, w.Interface()); err != nil {
		return reflect.Value{}, fmt.Errorf("edapp: malformed event payload: %w", err)
	}
	return w.Elem(), nil
}

// eventName returns the eventName of w, a decoded wireType.
func eventName(w reflect.Value) (EventName, error) {
	v := w.Field(0).Bytes()
	if len(v) == 0 || v[0] == 'n' {
		return "", errors.New("edapp: event payload has no eventName")
	}
	if v[0] != '"' {
		return "", fmt.Errorf("edapp: event payload: field \"eventName\": want a string, got %s", kindOf(v))
	}
	name := EventName(unquote(v))
	if name == "" {
		return "", errors.New("edapp: event payload has an empty eventName")
	}
	return name, nil
}

// fill sets every field of ev from w, a decoded wireType. Absent fields are
// zero.
func fill(ev Event, w reflect.Value) error {
	v := reflect.ValueOf(ev).Elem()
	v.SetZero()
	for _, f := range eventTypes[ev.Name()].fields {
		raw := w.Field(f.slot).Bytes()
		if len(raw) == 0 || raw[0] == 'n' {
			continue // absent or null
		}
		var err error
		switch dst := v.Field(f.index).Addr().Interface().(type) {
		case *string:
			*dst, err = decodeText(raw)
		case *float64:
			*dst, err = decodeNumber(raw)
		case *Time:
			err = decodeTime(raw, dst)
		}
		if err != nil {
			return fmt.Errorf("edapp: %s: field %q: %w", ev.Name(), f.key, err)
		}
	}
	return nil
}

// decodeText decodes a string, or a number kept as written.
func decodeText(raw []byte) (string, error) {
	switch kindOf(raw) {
	case "a string":
		return unquote(raw), nil
	case "a number":
		return string(raw), nil
	}
	return "", fmt.Errorf("want a string, got %s", kindOf(raw))
}

// decodeNumber decodes a JSON number, or a string holding one (surrounding
// spaces allowed). "" gives 0.
func decodeNumber(raw []byte) (float64, error) {
	s := string(raw)
	switch kindOf(raw) {
	case "a string":
		if s = strings.TrimSpace(unquote(raw)); s == "" {
			return 0, nil
		}
		if kindOf([]byte(s)) != "a number" || !json.Valid([]byte(s)) {
			return 0, fmt.Errorf("invalid number %q", core.Excerpt(s, 64))
		}
	case "a number":
	default:
		return 0, fmt.Errorf("want a number, got %s", kindOf(raw))
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("number %s out of range", core.Excerpt(s, 64))
	}
	return n, nil
}

// decodeTime decodes a datetime string in any form Time accepts.
func decodeTime(raw []byte, t *Time) error {
	if raw[0] != '"' {
		return fmt.Errorf("want a datetime string, got %s", kindOf(raw))
	}
	parsed, err := ParseTime(unquote(raw))
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "edapp: "))
	}
	*t = parsed
	return nil
}

// unquote decodes a JSON string that encoding/json has checked. Strings
// without escapes and with valid UTF-8, the usual case, are copied directly.
func unquote(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(raw, &s) // cannot fail on a checked string
	return s
}

// kindOf names the JSON type of a raw value for error messages.
func kindOf(v []byte) string {
	if k := jsonKinds[v[0]]; k != "" {
		return k
	}
	return "a number"
}

var jsonKinds = [256]string{'"': "a string", '{': "an object", '[': "an array", 't': "a boolean", 'f': "a boolean", 'n': "null"}

// marshalEvent is the MarshalJSON of the event structs: their fields, with
// eventName in front.
func marshalEvent(ev Event) ([]byte, error) {
	plain := reflect.ValueOf(ev).Elem().Convert(eventTypes[ev.Name()].plain)
	b, err := json.Marshal(plain.Interface())
	if err != nil {
		return nil, err
	}
	out := appendEventName(make([]byte, 0, len(b)+len(ev.Name())+16), ev.Name(), ',')
	return append(out, b[1:]...), nil
}

// appendEventName appends {"eventName":"name" and then next.
func appendEventName(b []byte, name EventName, next byte) []byte {
	b = append(b, `{"eventName":`...)
	nb, _ := json.Marshal(string(name)) // a string always encodes
	b = append(b, nb...)
	return append(b, next)
}

// unmarshalEvent is the UnmarshalJSON of the event structs. The payload's
// eventName is not checked. As encoding/json expects, null leaves ev
// unchanged.
func unmarshalEvent(b []byte, ev Event) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	w, err := decodeWire(b)
	if err != nil {
		return err
	}
	return fill(ev, w)
}
