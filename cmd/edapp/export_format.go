package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/edapp-go/edapp"
)

// record is one exported record: an SDK record struct (or one of the
// export's own rows), read through the codec of its type.
type record struct {
	v reflect.Value // the struct
	c *codec
}

// codec knows, for one struct type, where each JSON field is, and where
// the fields the SDK did not decode are kept (Extra), if anywhere.
type codec struct {
	fields map[string][]int // JSON name -> field index
	extra  []int            // nil: no Extra field
}

var (
	codecs    sync.Map // reflect.Type -> *codec
	timeType  = reflect.TypeFor[edapp.Time]()
	extraType = reflect.TypeFor[edapp.RawFields]()
)

func codecFor(t reflect.Type) *codec {
	if c, ok := codecs.Load(t); ok {
		return c.(*codec)
	}
	c := &codec{fields: map[string][]int{}}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		if f.Name == "Extra" && f.Type == extraType {
			c.extra = f.Index
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := c.fields[name]; !dup {
			c.fields[name] = f.Index
		}
	}
	codecs.Store(t, c)
	return c
}

func newRecord(v any) (record, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return record{}, fmt.Errorf("export: %T is not a record", v)
	}
	return record{v: rv, c: codecFor(rv.Type())}, nil
}

func (r record) extra() edapp.RawFields {
	if r.c.extra == nil {
		return nil
	}
	return r.v.FieldByIndex(r.c.extra).Interface().(edapp.RawFields)
}

// cell renders the named field for CSV: strings as they are, empty dates
// and absent values as empty, numbers and booleans as JSON writes them,
// lists of strings joined by ";", and anything else as compact JSON. A
// name the SDK does not know is looked up among the fields it kept.
func (r record) cell(name string) string {
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
			return f.Interface().(edapp.Time).String()
		}
	case reflect.Slice:
		if f.Type().Elem().Kind() == reflect.String {
			parts := make([]string, f.Len())
			for i := range parts {
				parts[i] = f.Index(i).String()
			}
			return strings.Join(parts, ";")
		}
	}
	b, err := json.Marshal(f.Interface())
	if err != nil {
		return ""
	}
	return rawCell(b)
}

// time returns the named date field, or the zero time.
func (r record) time(name string) time.Time {
	if idx, ok := r.c.fields[name]; ok {
		if f := r.v.FieldByIndex(idx); f.Type() == timeType {
			return f.Interface().(edapp.Time).Time
		}
	}
	return time.Time{}
}

// json encodes the record with every field: the ones the SDK knows, as it
// encodes them, and the ones it kept in Extra, as sent. A known field wins
// over an Extra field of the same name.
func (r record) json() ([]byte, error) {
	b, err := json.Marshal(r.v.Interface())
	if err != nil {
		return nil, err
	}
	extra := r.extra()
	if len(extra) == 0 {
		return b, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	for k, x := range extra {
		if _, known := fields[k]; !known {
			fields[k] = x
		}
	}
	return json.Marshal(fields)
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

// recordWriter writes records in one format.
type recordWriter interface {
	write(r record) error
	flush() error
}

func newRecordWriter(w io.Writer, format string, columns []string) (recordWriter, error) {
	switch format {
	case "csv":
		cw := csv.NewWriter(w)
		if err := cw.Write(columns); err != nil {
			return nil, err
		}
		return &csvWriter{w: cw, columns: columns, row: make([]string, len(columns))}, nil
	case "jsonl":
		return &jsonlWriter{w: w}, nil
	}
	return nil, fmt.Errorf("unknown format %q", format)
}

type csvWriter struct {
	w       *csv.Writer
	columns []string
	row     []string
}

func (c *csvWriter) write(r record) error {
	for i, col := range c.columns {
		c.row[i] = r.cell(col)
	}
	return c.w.Write(c.row)
}

func (c *csvWriter) flush() error {
	c.w.Flush()
	return c.w.Error()
}

type jsonlWriter struct{ w io.Writer }

func (j *jsonlWriter) write(r record) error {
	b, err := r.json()
	if err != nil {
		return err
	}
	if _, err := j.w.Write(append(b, '\n')); err != nil {
		return err
	}
	return nil
}

func (j *jsonlWriter) flush() error { return nil }

// recordKey identifies a record by the named fields, as CSV renders them.
// It is a digest, so that the keys of a large export stay small in memory
// and on disk.
type recordKey [16]byte

func keyOf(r record, fields []string) recordKey {
	h := sha256.New()
	for _, f := range fields {
		h.Write([]byte(r.cell(f)))
		h.Write([]byte{0x1f})
	}
	var k recordKey
	copy(k[:], h.Sum(nil))
	return k
}
