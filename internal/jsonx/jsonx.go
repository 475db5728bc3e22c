// Package jsonx decodes the service's JSON leniently: one odd field (a date
// in an unknown form, a number sent as an object) never fails the record or
// the page around it. Well-formed input that decodes cleanly takes the plain
// encoding/json path, at its speed; only a failed decode pays for the
// salvage.
package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strconv"
)

// Decode unmarshals data into v, a non-nil pointer. Malformed JSON is an
// error. When the JSON is well formed but some values do not fit their Go
// fields, Decode drops those values (whole fields, or elements of an array
// when a field cannot be saved) and decodes the rest; it returns the JSON
// paths of what it dropped, such as "items[3].completedDate".
//
// A v that implements Target is asked where data goes first: that lets one
// Go type take more than one JSON shape without a second pass.
func Decode(data []byte, v any) (dropped []string, err error) {
	if t, ok := v.(Target); ok {
		v = t.DecodeTarget(data)
	}
	err = json.Unmarshal(data, v)
	if err == nil {
		return nil, nil
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return nil, err
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, err
	}
	t := rv.Elem().Type()
	budget := maxProbes
	fits := func(candidate []byte) bool {
		if budget--; budget < 0 {
			return false // out of budget: give up on salvage
		}
		return json.Unmarshal(candidate, reflect.New(t).Interface()) == nil
	}
	cleaned, ok := clean(data, fits, "", 0, &dropped)
	if budget < 0 {
		return nil, err
	}
	if !ok {
		return nil, err
	}
	rv.Elem().SetZero()
	if err2 := json.Unmarshal(cleaned, v); err2 != nil {
		return nil, err
	}
	return dropped, nil
}

// Target is implemented by values that decode from more than one JSON shape:
// DecodeTarget returns the pointer that data should be decoded into.
type Target interface {
	DecodeTarget(data []byte) any
}

// Salvage is bounded, so a hostile or broken answer cannot make it costly:
// it looks at most maxDepth levels deep (a page, its items, a record, a
// field, its elements, theirs) and tries at most maxProbes decodes.
const (
	maxDepth  = 6
	maxProbes = 20000
)

// clean returns raw without the parts that do not fit. fits reports
// whether a candidate decodes in raw's position.
func clean(raw []byte, fits func([]byte) bool, path string, depth int, dropped *[]string) ([]byte, bool) {
	if fits(raw) {
		return raw, true
	}
	if depth >= maxDepth {
		return nil, false
	}
	// When raw itself is dropped in the end, the caller reports it alone,
	// not the parts inside it.
	mark := len(*dropped)
	out, ok := cleanParts(raw, fits, path, depth, dropped)
	if !ok {
		*dropped = (*dropped)[:mark]
	}
	return out, ok
}

func cleanParts(raw []byte, fits func([]byte) bool, path string, depth int, dropped *[]string) ([]byte, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, false
	}
	switch raw[0] {
	case '{':
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			return nil, false
		}
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			inField := func(x []byte) bool { return fits(object(k, x)) }
			c, ok := clean(fields[k], inField, path+"."+k, depth+1, dropped)
			if ok {
				fields[k] = c
			} else {
				delete(fields, k)
				*dropped = append(*dropped, trimDot(path+"."+k))
			}
		}
		out, err := json.Marshal(fields)
		if err != nil {
			return nil, false
		}
		return out, fits(out)
	case '[':
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) != nil {
			return nil, false
		}
		kept := make([]json.RawMessage, 0, len(elems))
		for i, e := range elems {
			inArray := func(x []byte) bool { return fits(array(x)) }
			p := path + "[" + strconv.Itoa(i) + "]"
			if c, ok := clean(e, inArray, p, depth+1, dropped); ok {
				kept = append(kept, c)
			} else {
				*dropped = append(*dropped, trimDot(p))
			}
		}
		out, err := json.Marshal(kept)
		if err != nil {
			return nil, false
		}
		return out, fits(out)
	}
	return nil, false
}

func object(key string, v []byte) []byte {
	k, _ := json.Marshal(key)
	b := make([]byte, 0, len(k)+len(v)+3)
	b = append(b, '{')
	b = append(b, k...)
	b = append(b, ':')
	b = append(b, v...)
	return append(b, '}')
}

func array(v []byte) []byte {
	b := make([]byte, 0, len(v)+2)
	b = append(b, '[')
	b = append(b, v...)
	return append(b, ']')
}

func trimDot(p string) string {
	if len(p) > 0 && p[0] == '.' {
		return p[1:]
	}
	return p
}
