package lenient

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// DecodeList decodes a page of a list: the {"items", "totalCount"} envelope
// or a bare array. It reads the page item by item with one json.Decoder,
// so the clean items cost one pass and a small buffer. An item that does
// not decode cleanly, or has members no field takes, is decoded again on
// its own by Decode, within a salvage budget of its own: a bad value costs
// that value, never its neighbours. An item that cannot be decoded at all
// is left out and reported ("items[3]"). A total that does not decode is
// dropped (reported as "totalCount") and *total stays nil.
//
// An answer of any other shape (unexpected members in the envelope, say)
// takes Decode's path on the whole page, which is as tolerant, only slower.
func DecodeList[T any](data []byte, items *[]T, total **int) (dropped []string, err error) {
	return DecodeListEach(data, items, total, nil, nil)
}

// DecodeListEach is DecodeList that hands each, if set, every item kept
// with its index and its bytes as sent (both valid only during the call),
// as Items does. Only the common shapes, read item by item, call each: an
// answer that takes Decode's path on the whole page does not.
//
// whole, if set, is handed every item dropped whole, with its index and its
// bytes as sent: an item encoding/json cannot read at all (nested deeper
// than it reads, say) costs that item, found by the scanner, not its page.
func DecodeListEach[T any](data []byte, items *[]T, total **int, each func(i int, raw []byte, item *T), whole func(i int, raw []byte)) (dropped []string, err error) {
	if dropped, ok := streamList(data, items, total, each); ok {
		return dropped, nil
	}
	if dropped, ok, err := scanList(data, items, total, each, whole); ok {
		return dropped, err
	}
	if b := bytes.TrimLeft(data, " \t\r\n"); len(b) > 0 && b[0] == '[' {
		var list []T
		dropped, err = Decode(data, &list)
		*items, *total = list, nil
		return dropped, err
	}
	var env struct {
		Items      []T  `json:"items"`
		TotalCount *int `json:"totalCount"`
	}
	dropped, err = Decode(data, &env)
	*items, *total = env.Items, env.TotalCount
	return dropped, err
}

// MaxListItems bounds the items of one page that scanList reads.
const MaxListItems = 100_000

// scanList reads a list whose items encoding/json cannot all follow, a
// bare array or the {"items", "totalCount"} envelope, with the scanner,
// item by item (see Items); false when data is of neither shape, or its
// items are not an array.
func scanList[T any](data []byte, items *[]T, total **int, each func(int, []byte, *T), whole func(int, []byte)) (dropped []string, ok bool, err error) {
	*items, *total = nil, nil
	var list []T
	var its []string
	read := func(v []byte) error {
		list, its, ok, err = Items(v, MaxListItems, each, whole)
		return err
	}
	if b := bytes.TrimLeft(data, " \t\r\n"); len(b) > 0 && b[0] == '[' {
		err = read(data)
	} else if _, err = Members(data, func(key string, v []byte) error {
		switch key {
		case "items":
			its = nil
			return read(v)
		case "totalCount":
			if json.Unmarshal(v, total) != nil {
				*total = nil
				dropped = append(dropped, "totalCount")
			}
		}
		return nil
	}); err == nil && ok {
		for i := range its {
			its[i] = "items" + its[i]
		}
	}
	if !ok {
		return nil, false, nil
	}
	*items = list
	return append(its, dropped...), true, err
}

// streamList decodes the common shapes item by item; false means the page
// needs the general path.
func streamList[T any](data []byte, items *[]T, total **int, each func(int, []byte, *T)) (dropped []string, ok bool) {
	*items, *total = nil, nil
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	tok, err := d.Token()
	if err != nil {
		return nil, false
	}
	switch tok {
	case json.Delim('['):
		dropped, ok = streamItems(d, data, "", items, each)
	case json.Delim('{'):
		dropped, ok = streamEnvelope(d, data, items, total, each)
	}
	if !ok || len(bytes.TrimLeft(data[d.InputOffset():], " \t\r\n")) > 0 {
		return nil, false
	}
	return dropped, true
}

// streamEnvelope decodes the members of the {"items", "totalCount"} object
// d has just entered, and its end; false when a member is repeated, or
// items is not an array or null, or anything else does not fit.
func streamEnvelope[T any](d *json.Decoder, data []byte, items *[]T, total **int, each func(int, []byte, *T)) (dropped []string, ok bool) {
	seen := map[string]bool{}
	for d.More() {
		tok, err := d.Token()
		key, _ := tok.(string)
		if err != nil || seen[key] {
			return nil, false
		}
		seen[key] = true
		switch key {
		case "items":
			if dropped, ok = streamItemsMember(d, data, items, each); !ok {
				return nil, false
			}
		case "totalCount":
			if d.Decode(total) != nil {
				return nil, false
			}
		default:
			// encoding/json would match these without regard to case.
			if strings.EqualFold(key, "items") || strings.EqualFold(key, "totalCount") {
				return nil, false
			}
			var skip json.RawMessage
			if d.Decode(&skip) != nil {
				return nil, false
			}
		}
	}
	if tok, err := d.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	return dropped, true
}

// streamItemsMember decodes the value of the envelope's items: an array,
// or null.
func streamItemsMember[T any](d *json.Decoder, data []byte, items *[]T, each func(int, []byte, *T)) (dropped []string, ok bool) {
	tok, err := d.Token()
	switch {
	case err != nil:
		return nil, false
	case tok == nil:
		*items = nil
		return nil, true
	case tok == json.Delim('['):
		return streamItems(d, data, "items", items, each)
	}
	return nil, false
}

// streamItems decodes the items of the array d has just entered.
func streamItems[T any](d *json.Decoder, data []byte, path string, items *[]T, each func(int, []byte, *T)) (dropped []string, ok bool) {
	list := []T{} // as encoding/json: [] is empty, not nil
	next := itemDecoder[T](d)
	kept := func(i int, raw []byte) {
		if each != nil {
			each(i, raw, &list[len(list)-1])
		}
	}
	for i := 0; d.More(); i++ {
		start := d.InputOffset()
		var zero T
		list = append(list, zero)
		err := next(&list[len(list)-1])
		raw := trimItem(data[start:d.InputOffset()])
		if err == nil {
			kept(i, raw)
			continue
		}
		var syn *json.SyntaxError
		if errors.As(err, &syn) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, false
		}
		// Unknown members or a value that does not fit: this item again, on
		// its own.
		list[len(list)-1] = zero
		its, ok := decodeItem(raw, &list[len(list)-1], path+"["+strconv.Itoa(i)+"]")
		dropped = append(dropped, its...)
		if !ok {
			list = list[:len(list)-1]
			continue
		}
		kept(i, raw)
	}
	if tok, err := d.Token(); err != nil || tok != json.Delim(']') {
		return nil, false
	}
	*items = list
	return dropped, true
}

// decodeItem decodes one item, the array's at, on its own: it returns the
// paths of the values it dropped, and false when it dropped the item.
func decodeItem[T any](raw []byte, v *T, at string) (dropped []string, ok bool) {
	its, err := decode(raw, v, false)
	if err != nil {
		return []string{at}, false
	}
	for _, p := range its {
		if p[0] != '[' {
			p = "." + p
		}
		dropped = append(dropped, at+p)
	}
	return dropped, true
}

// itemDecoder returns what decodes the next item of d into a T: d itself,
// or through T's wire when it has aliases.
func itemDecoder[T any](d *json.Decoder) func(*T) error {
	w := wireOf(reflect.TypeFor[T]())
	if w == nil {
		return func(item *T) error { return d.Decode(item) }
	}
	wv := w.new()
	return func(item *T) error {
		wv.Elem().SetZero()
		if err := d.Decode(wv.Interface()); err != nil {
			return err
		}
		w.unwire(wv.Elem(), reflect.ValueOf(item).Elem())
		return nil
	}
}
