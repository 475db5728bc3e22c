package safetyculture

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/edapp-go/edapp/internal/lenient"
)

// listOf decodes a list sent as {key: [...]}, {"items": [...]} or a bare
// array, each item leniently: an odd value costs that value only.
type listOf[T any] struct {
	key   string
	items []T
}

func (l *listOf[T]) DecodeJSON(data []byte) ([]string, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		return l.decodeItems(data)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, err
	}
	raw, ok := env[l.key]
	if !ok {
		raw, ok = env["items"]
	}
	if !ok || len(raw) == 0 {
		return nil, nil
	}
	return l.decodeItems(raw)
}

// decodeItems decodes the array data item by item, each record keeping its
// bytes as received; anything else as Decode does.
func (l *listOf[T]) decodeItems(data []byte) ([]string, error) {
	items, dropped, isArray, err := lenient.Items(data, maxListItems, keepRawItem[T], nil)
	if !isArray || errors.Is(err, lenient.ErrNotJSON) {
		l.items = nil
		return lenient.Decode(data, &l.items)
	}
	l.items = items
	return dropped, err
}

// maxListItems bounds the items of one unpaged list (a course's lessons).
const maxListItems = 100_000

// oneOf decodes a record sent bare or as {key: {...}}.
type oneOf[T any] struct {
	key string
	v   T
}

func (o *oneOf[T]) DecodeJSON(data []byte) ([]string, error) {
	var env map[string]json.RawMessage
	if err := json.Unmarshal(data, &env); err == nil {
		if raw, ok := env[o.key]; ok && len(env) == 1 && len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '{' {
			return lenient.Decode(raw, &o.v)
		}
	}
	return lenient.Decode(data, &o.v)
}
