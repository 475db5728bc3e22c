// Package lenient decodes the service's JSON: in one encoding/json pass when
// the answer is clean, and leniently when it is not, so that one odd value
// (a date in an unknown form, a number sent as an object) costs that value
// only, never the record or the page around it.
//
// Record types take part through a convention and a table:
//
//   - A field named Extra (tagged `json:"-"`) of type
//     map[string]json.RawMessage, or of a type defined on it, receives the
//     object's members that no field takes.
//   - Alias declares the other spellings the service uses for a type's
//     fields. A clean answer is still one pass: into a struct made once
//     that embeds the record and takes the other spellings beside it.
package lenient

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"sort"
	"strconv"
	"sync"
)

// Decode unmarshals data into v, a non-nil pointer. Malformed JSON is an
// error. When the JSON is well formed but some values do not fit their Go
// fields, Decode drops those values (whole fields, or elements of an array
// when a field cannot be saved) and decodes the rest; it returns the JSON
// paths of what it dropped, such as "items[3].completedDateTime".
//
// A clean answer costs one encoding/json pass, which also notices unknown
// members; only when there are some does Decode look at the members again
// to fill Extra. Only a failed decode pays for the salvage.
//
// A v that implements Decoder decodes itself.
func Decode(data []byte, v any) (dropped []string, err error) {
	if d, ok := v.(Decoder); ok {
		return d.DecodeJSON(data)
	}
	return decode(data, v, true)
}

// decode is Decode without the Decoder check; with check false, it skips
// the one-pass decode that checks for unknown members (its caller has just
// tried it).
func decode(data []byte, v any, check bool) (dropped []string, err error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, json.Unmarshal(data, v) // json's InvalidUnmarshalError
	}
	if check && decodeKnownInto(data, rv) == nil {
		return nil, nil
	}
	// Unknown members, or a value that does not fit: decode again without
	// the check, which also surfaces an error that the first unknown member
	// hid.
	rv.Elem().SetZero()
	err = json.Unmarshal(data, v)
	if err == nil {
		finish(rv, data)
		return nil, nil
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return nil, err
	}
	// data as a whole does not fit, so the salvage starts with its parts;
	// the decode below is the check that the cleaned whole fits.
	s := salvage{typ: rv.Elem().Type()}
	budget := probesPerValue
	cleaned, ok := s.cleanParts(data, nil, nil, "", 0, &budget)
	if !ok {
		return nil, err
	}
	rv.Elem().SetZero()
	if json.Unmarshal(cleaned, v) != nil {
		return nil, err
	}
	finish(rv, cleaned)
	keepDropped(rv, data, s.dropped)
	return s.dropped, nil
}

// Decoder is implemented by values that decode themselves, as a page of a
// list does (see DecodeList), with Decode's contract.
type Decoder interface {
	DecodeJSON(data []byte) (dropped []string, err error)
}

var errTrailing = errors.New("lenient: data after the JSON value")

// decodeKnownInto is decodeKnown into rv, a pointer, through its type's
// wire when it has aliases.
func decodeKnownInto(data []byte, rv reflect.Value) error {
	w := wireOf(rv.Type().Elem())
	if w == nil {
		return decodeKnown(data, rv.Interface())
	}
	return w.decodeKnownInto(data, rv.Elem())
}

// decodeKnown decodes data into v in one pass and fails if any object
// member has no field to go to (or anything else is wrong).
func decodeKnown(data []byte, v any) error {
	k := knownDecoders.Get().(*knownDecoder)
	k.src = data
	start := k.dec.InputOffset()
	err := k.dec.Decode(v)
	read := k.dec.InputOffset() - start
	if err == nil && len(bytes.TrimLeft(data[read:], " \t\r\n")) > 0 {
		err = errTrailing
	}
	if err == nil && read == int64(len(data)) && len(data) <= maxReused {
		k.src = nil
		knownDecoders.Put(k)
	}
	return err
}

// knownDecoder is a json.Decoder that refuses unknown members, reading
// from src. It goes back to knownDecoders only after it has decoded one
// whole value and read nothing past it, so that the next answer pointed
// at by src starts it clean: a decode then costs no new decoder and no new
// buffer.
type knownDecoder struct {
	dec *json.Decoder
	src []byte
}

func (k *knownDecoder) Read(p []byte) (int, error) {
	if len(k.src) == 0 {
		return 0, io.EOF
	}
	n := copy(p, k.src)
	k.src = k.src[n:]
	return n, nil
}

var knownDecoders = sync.Pool{New: func() any {
	k := new(knownDecoder)
	k.dec = json.NewDecoder(k)
	k.dec.DisallowUnknownFields()
	return k
}}

// maxReused is the largest answer after which a decoder is reused: its
// buffer has grown to hold the answer, and a large one is let go.
const maxReused = 64 << 10

// Salvage is bounded, so a hostile or broken answer cannot make it costly:
// it looks at most maxDepth levels deep (a page, its items, a record, a
// field, its elements, theirs, ...), and each value, and each element of
// an array, may try at most probesPerValue decodes of its own. A value out
// of probes is dropped whole.
const (
	maxDepth       = 8
	probesPerValue = 1000
)

// salvage removes from a JSON answer the parts that do not decode into typ.
// It probes each part in its place: the part wrapped in its parents'
// brackets and keys, without its siblings, decoded into a fresh typ.
type salvage struct {
	typ     reflect.Type
	buf     []byte
	dropped []string
}

func (s *salvage) fits(pre, x, suf []byte, budget *int) bool {
	if *budget <= 0 {
		return false
	}
	*budget--
	s.buf = append(append(append(s.buf[:0], pre...), x...), suf...)
	return json.Unmarshal(s.buf, reflect.New(s.typ).Interface()) == nil
}

// clean returns raw, which sits between pre and suf, without the parts that
// do not fit; false when nothing of it can be kept.
func (s *salvage) clean(raw, pre, suf []byte, path string, depth int, budget *int) ([]byte, bool) {
	if s.fits(pre, raw, suf, budget) {
		return raw, true
	}
	if q, ok := numberText(raw); ok && s.fits(pre, q, suf, budget) {
		return q, true // a number where a string is expected keeps its text, as sent
	}
	if depth >= maxDepth || *budget <= 0 {
		return nil, false
	}
	// When raw itself is dropped in the end, the caller reports it alone,
	// not the parts inside it.
	mark := len(s.dropped)
	out, ok := s.cleanParts(raw, pre, suf, path, depth, budget)
	if !ok {
		s.dropped = s.dropped[:mark]
	}
	return out, ok
}

// numberText is the JSON number raw as a JSON string of its text ("42"
// for 42), so that an id sent as a number is kept, not dropped and left
// empty; false when raw is not a number.
func numberText(raw []byte) ([]byte, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') || !json.Valid(raw) {
		return nil, false
	}
	return strconv.AppendQuote(nil, string(raw)), true
}

// cleanParts cleans each member of the object, or element of the array,
// raw; false when raw is neither or its cleaned form does not fit.
func (s *salvage) cleanParts(raw, pre, suf []byte, path string, depth int, budget *int) ([]byte, bool) {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return nil, false
	}
	var out []byte
	switch raw[0] {
	case '{':
		out = s.cleanMembers(raw, pre, suf, path, depth, budget)
	case '[':
		out = s.cleanElems(raw, pre, suf, path, depth)
	}
	return out, out != nil && (depth == 0 || s.fits(pre, out, suf, budget))
}

// cleanMembers returns the object raw without the members that cannot be
// kept, each probed within the object's budget; nil when raw is not an
// object.
func (s *salvage) cleanMembers(raw, pre, suf []byte, path string, depth int, budget *int) []byte {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		key, _ := json.Marshal(k)
		in := join(pre, []byte("{"), key, []byte(":"))
		p := path + "." + k
		if c, ok := s.clean(fields[k], in, join([]byte("}"), suf), p, depth+1, budget); ok {
			fields[k] = c
		} else {
			delete(fields, k)
			s.dropped = append(s.dropped, trimDot(p))
		}
	}
	out, _ := json.Marshal(fields)
	return out
}

// cleanElems returns the array raw without the elements that cannot be
// kept; each element, a page's item say, has a budget of its own. nil when
// raw is not an array.
func (s *salvage) cleanElems(raw, pre, suf []byte, path string, depth int) []byte {
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil {
		return nil
	}
	in, after := join(pre, []byte("[")), join([]byte("]"), suf)
	kept := make([]json.RawMessage, 0, len(elems))
	for i, e := range elems {
		own := probesPerValue
		p := path + "[" + strconv.Itoa(i) + "]"
		if c, ok := s.clean(e, in, after, p, depth+1, &own); ok {
			kept = append(kept, c)
		} else {
			s.dropped = append(s.dropped, trimDot(p))
		}
	}
	out, _ := json.Marshal(kept)
	return out
}

func join(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func trimDot(p string) string {
	if len(p) > 0 && p[0] == '.' {
		return p[1:]
	}
	return p
}
