package edapp

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"reflect"
	"strconv"
	"time"
)

// EventKey returns a stable key for deduplicating deliveries: the same for
// a redelivery of an event, different for two distinct events. It is 64
// lowercase hexadecimal digits, a SHA-256 digest of the event's identity:
//
//   - for the ten events: the event name, the user (userId), the subject
//     (courseId, lessonId, or quizId and quizSession; dueDate too for a
//     course reminder) and the timestamp, in UTC to the nanosecond, so that
//     two occurrences a microsecond apart keep apart. The other fields
//     (titles, names, score) describe the occurrence and do not change the
//     key;
//   - for one of the ten events without a timestamp, whose occurrences
//     nothing else tells apart: the name and every field;
//   - for an *UnknownEvent: the name and the canonical form of Raw (its JSON
//     with object members sorted and no spaces; Raw's bytes when it is not
//     JSON).
//
// A redelivery decodes to the same event whatever spelling or time zone it
// uses, so it gets the same key. The rule is the SDK's own (EdApp sends no
// delivery id) and stays the same across versions. A nil event gives "".
func EventKey(ev Event) string {
	if ev == nil || reflect.ValueOf(ev).IsNil() {
		return ""
	}
	h := sha256.New()
	if u, ok := ev.(*UnknownEvent); ok {
		writeKeyPart(h, "unknown")
		writeKeyPart(h, string(u.EventName))
		writeKeyPart(h, string(canonicalJSON(u.Raw)))
		return hex.EncodeToString(h.Sum(nil))
	}
	t := eventTypes[ev.Name()]
	v := reflect.ValueOf(ev).Elem()
	whole := v.FieldByName("Timestamp").Interface().(Time).IsZero()
	if whole {
		writeKeyPart(h, "whole")
	} else {
		writeKeyPart(h, "identity")
	}
	writeKeyPart(h, string(ev.Name()))
	for _, f := range t.fields {
		if f.identity || whole {
			writeKeyPart(h, f.key)
			writeKeyPart(h, keyValue(v.Field(f.index)))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeKeyPart writes s to h after its length, so that no two lists of
// parts write the same bytes.
func writeKeyPart(h hash.Hash, s string) {
	h.Write(binary.AppendUvarint(nil, uint64(len(s))))
	h.Write([]byte(s))
}

// keyValue is a field's value as EventKey writes it: a string as it is, a
// number in its shortest exact form, a datetime in UTC to the nanosecond
// ("" for zero).
func keyValue(v reflect.Value) string {
	switch x := v.Interface().(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case Time:
		if x.IsZero() {
			return ""
		}
		return x.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v.Interface())
}

// canonicalJSON returns raw with object members sorted and no spaces, and
// numbers as written; raw itself when it is not JSON.
func canonicalJSON(raw []byte) []byte {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}
