package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
)

// record is one exported record: its JSON object with every field, known
// or not, and the same fields by name.
type record struct {
	json   []byte
	fields map[string]json.RawMessage
}

// extraIndex caches, per record type, the index of its Extra field (the
// fields the SDK did not decode), or -1.
var extraIndex sync.Map // reflect.Type -> int

func extraOf(v reflect.Value) map[string]json.RawMessage {
	t := v.Type()
	idx, ok := extraIndex.Load(t)
	if !ok {
		i := -1
		if f, found := t.FieldByName("Extra"); found && len(f.Index) == 1 && f.Type == reflect.TypeFor[map[string]json.RawMessage]() {
			i = f.Index[0]
		}
		extraIndex.Store(t, i)
		idx = i
	}
	if i := idx.(int); i >= 0 {
		return v.Field(i).Interface().(map[string]json.RawMessage)
	}
	return nil
}

// toRecord encodes v (an SDK record struct) with every field: the ones the
// SDK knows, as it encodes them, and the ones it kept in Extra, as sent.
// A known field wins over an Extra field of the same name.
func toRecord(v any) (record, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return record{}, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return record{}, err
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	if rv.Kind() == reflect.Struct {
		if extra := extraOf(rv); len(extra) > 0 {
			for k, x := range extra {
				if _, known := fields[k]; !known {
					fields[k] = x
				}
			}
			if b, err = json.Marshal(fields); err != nil {
				return record{}, err
			}
		}
	}
	return record{json: b, fields: fields}, nil
}

// cell renders one field for CSV: strings as they are, null as empty,
// numbers and booleans as JSON writes them, lists of strings joined by ";",
// and anything else as compact JSON.
func cell(raw json.RawMessage) string {
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
		c.row[i] = cell(r.fields[col])
	}
	return c.w.Write(c.row)
}

func (c *csvWriter) flush() error {
	c.w.Flush()
	return c.w.Error()
}

type jsonlWriter struct{ w io.Writer }

func (j *jsonlWriter) write(r record) error {
	if _, err := j.w.Write(r.json); err != nil {
		return err
	}
	_, err := j.w.Write([]byte{'\n'})
	return err
}

func (j *jsonlWriter) flush() error { return nil }

// recordKey identifies a record by the named fields' JSON values. It is a
// digest, so that the keys of a large export stay small in memory and on
// disk.
type recordKey [16]byte

func keyOf(r record, fields []string) recordKey {
	h := sha256.New()
	for _, f := range fields {
		h.Write(r.fields[f])
		h.Write([]byte{0x1f})
	}
	var k recordKey
	copy(k[:], h.Sum(nil))
	return k
}
