package lenient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrTooManyItems is an array with more items than Items may read.
var ErrTooManyItems = errors.New("lenient: too many items")

// Items decodes the JSON array data one item at a time, in order, and
// returns the items that decoded. An item with values that do not fit
// costs those values (reported as "[3].completedDateTime"); one that does
// not decode at all, such as one nested deeper than encoding/json reads,
// is reported ("[3]") and left out, and its neighbours are read. each, if
// set, is handed every item kept, with its index and its bytes as sent
// (both valid only during the call). More than max items is
// ErrTooManyItems, with no item past max decoded. isArray is false when
// data is not an array; a page whose structure cannot be followed is
// ErrNotJSON.
//
// A clean page costs one encoding/json pass, item by item through one
// json.Decoder, straight into T; an item with a member in another
// spelling (see Alias) or one no field takes is decoded again on its own,
// as Decode does, and only an item encoding/json cannot read at all sends
// the rest of the page to a scanner that finds each item's end itself.
func Items[T any](data []byte, max int, each func(i int, raw []byte, item *T)) (items []T, dropped []string, isArray bool, err error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if tok, err := d.Token(); err != nil || tok != json.Delim('[') {
		return nil, nil, false, nil
	}
	r := itemReader[T]{max: max, each: each, items: []T{}}
	for i := 0; d.More(); i++ {
		if i >= max {
			return r.items, r.dropped, true, r.tooMany()
		}
		start := d.InputOffset()
		var zero T
		r.items = append(r.items, zero)
		err := d.Decode(&r.items[len(r.items)-1])
		if err == nil {
			r.kept(i, trimItem(data[start:d.InputOffset()]))
			continue
		}
		r.items = r.items[:len(r.items)-1]
		var syn *json.SyntaxError
		if errors.As(err, &syn) || errors.Is(err, io.ErrUnexpectedEOF) {
			// The decoder cannot go on past this item: the scanner can.
			err := r.scan(data, int(start), i)
			return r.items, r.dropped, true, err
		}
		r.alone(trimItem(data[start:d.InputOffset()]), i)
	}
	if tok, err := d.Token(); err != nil || tok != json.Delim(']') || trailing(data, int(d.InputOffset())) != nil {
		return r.items, r.dropped, true, ErrNotJSON
	}
	return r.items, r.dropped, true, nil
}

// itemReader is what Items has read so far.
type itemReader[T any] struct {
	max     int
	each    func(int, []byte, *T)
	items   []T
	dropped []string
}

func (r *itemReader[T]) tooMany() error {
	return fmt.Errorf("%w: more than %d", ErrTooManyItems, r.max)
}

// kept hands the item just appended to each.
func (r *itemReader[T]) kept(i int, raw []byte) {
	if r.each != nil {
		r.each(i, raw, &r.items[len(r.items)-1])
	}
}

// trimItem is an item's bytes without the comma and space before it.
func trimItem(b []byte) []byte { return bytes.TrimLeft(b, " \t\r\n,") }

// alone decodes item i on its own, with Decode's salvage.
func (r *itemReader[T]) alone(raw []byte, i int) {
	at := "[" + strconv.Itoa(i) + "]"
	var zero T
	r.items = append(r.items, zero)
	its, err := decode(raw, &r.items[len(r.items)-1], false)
	if err != nil {
		r.items = r.items[:len(r.items)-1]
		r.dropped = append(r.dropped, at)
		return
	}
	for _, p := range its {
		if p[0] != '[' {
			p = "." + p
		}
		r.dropped = append(r.dropped, at+p)
	}
	r.kept(i, raw)
}

// scan reads the items of data from item i, which starts at off, finding
// each one's end with the scanner.
func (r *itemReader[T]) scan(data []byte, off, i int) error {
	off = skipSpace(data, off)
	if off < len(data) && data[off] == ',' {
		off = skipSpace(data, off+1)
	}
	for ; ; i++ {
		if i >= r.max {
			return r.tooMany()
		}
		end, err := valueEnd(data, off)
		if err != nil {
			return err
		}
		r.alone(data[off:end], i)
		if off, err = next(data, end, ']'); err != nil || off < 0 {
			return err
		}
	}
}
