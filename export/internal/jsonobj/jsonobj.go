// Package jsonobj edits the JSON objects of records: the members a record
// kept aside added to its encoding, compacted for a line of JSONL; and it
// writes strings as encoding/json does, for the encoders that append.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/edapp-go/edapp"
)

// Compact is v, valid JSON, without the line breaks a line of JSONL
// cannot hold.
func Compact(v json.RawMessage) json.RawMessage {
	if !bytes.ContainsAny(v, "\r\n") {
		return v
	}
	var c bytes.Buffer
	_ = json.Compact(&c, v)
	return c.Bytes()
}

// Splice is the JSON object b with extra's members that known does
// not name added before its closing brace, in key order (cheaper than a
// round trip through a map); each is as sent, compacted when it holds a
// line break (a line of JSONL holds none).
func Splice(b []byte, extra edapp.RawFields, known func(string) bool) []byte {
	if len(extra) == 0 || len(b) < 2 || b[len(b)-1] != '}' {
		return b
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if !known(k) && json.Valid(extra[k]) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := b[:len(b)-1]
	for _, k := range keys {
		if len(out) > 1 {
			out = append(out, ',')
		}
		name, _ := json.Marshal(k)
		out = append(append(out, name...), ':')
		out = append(out, Compact(extra[k])...) // valid, checked above
	}
	return append(out, '}')
}
