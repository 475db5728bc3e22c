package safetyculture

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/lenient"
)

// MaxFeedItems bounds the rows of one feed page (the service sends at
// most 1000); a page with more is an error wrapping [ErrPageTooLarge],
// naming the feed, read no further.
const MaxFeedItems = 10_000

// MaxExtraBytes bounds what one feed row keeps in its Extra: the members
// no field takes, keys and values as sent. Members past it are left out,
// in key order, and reported as dropped.
const MaxExtraBytes = 16 << 10

// ErrPageTooLarge is a feed page with more rows than [MaxFeedItems].
var ErrPageTooLarge = errors.New("safetyculture: the feed page holds more rows than a page may")

// errNotAPage is a feed answer that is not a JSON object.
var errNotAPage = errors.New("a feed page is a JSON object")

// DecodeJSON decodes a feed page record by record, in one pass for a
// clean record: the rows are found by a scanner that decodes nothing, and
// each is decoded on its own, so a record that cannot be read (nested
// deeper than encoding/json goes, say) costs that record only
// ("data[3]"), and the page's memory is its rows, within MaxFeedItems and
// MaxExtraBytes. It implements lenient.Decoder.
func (a *feedAnswer[T]) DecodeJSON(data []byte) (dropped []string, err error) {
	*a = feedAnswer[T]{}
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil, nil
	}
	isObject, err := lenient.Members(data, func(key string, v []byte) error {
		switch {
		case strings.EqualFold(key, "data"):
			return a.decodeData(v, &dropped)
		case strings.EqualFold(key, "metadata"):
			a.decodeMetadata(v, &dropped)
		}
		return nil
	})
	if !isObject {
		return nil, errNotAPage
	}
	return dropped, err
}

// decodeMetadata decodes a page's metadata; one that does not decode is
// dropped whole ("metadata"), which the walk refuses (ErrBadNextPage).
func (a *feedAnswer[T]) decodeMetadata(v []byte, dropped *[]string) {
	its, err := lenient.Decode(v, &a.Metadata)
	if err != nil {
		a.Metadata = feedMetadata{}
		*dropped = append(*dropped, "metadata")
		return
	}
	for _, p := range its {
		*dropped = append(*dropped, "metadata."+p)
	}
}

// decodeData decodes the page's rows one by one.
func (a *feedAnswer[T]) decodeData(v []byte, dropped *[]string) error {
	a.Data, a.received = nil, 0
	if bytes.Equal(v, []byte("null")) {
		return nil
	}
	rows, its, isArray, err := lenient.Items(v, MaxFeedItems, func(i int, raw []byte, row *T) {
		boundExtra(extraOf(row), "data["+strconv.Itoa(i)+"]", dropped)
		if k, ok := any(row).(rawKeeper); ok {
			k.keepRaw(raw)
		}
	})
	a.Data = rows
	if !isArray {
		*dropped = append(*dropped, "data")
		return nil
	}
	for _, p := range its {
		*dropped = append(*dropped, "data"+p)
	}
	if errors.Is(err, lenient.ErrTooManyItems) {
		return fmt.Errorf("%w: more than %d", ErrPageTooLarge, MaxFeedItems)
	}
	a.received = len(a.Data) + countWhole(its)
	return err
}

// countWhole counts the items dropped whole ("[3]") among dropped paths.
func countWhole(paths []string) int {
	n := 0
	for _, p := range paths {
		if strings.IndexByte(p, ']') == len(p)-1 {
			n++
		}
	}
	return n
}

// extraOf is a feed row's Extra.
func extraOf(row any) *edapp.RawFields {
	switch r := row.(type) {
	case *CourseProgress:
		return &r.Extra
	case *User:
		return &r.Extra
	case *Group:
		return &r.Extra
	case *GroupUser:
		return &r.Extra
	case *Site:
		return &r.Extra
	case *SiteMember:
		return &r.Extra
	}
	return nil
}

// boundExtra keeps *extra within MaxExtraBytes, its members in key order,
// and reports those it leaves out under at.
func boundExtra(extra *edapp.RawFields, at string, dropped *[]string) {
	if extra == nil || len(*extra) == 0 {
		return
	}
	size := 0
	for k, v := range *extra {
		size += len(k) + len(v)
	}
	if size <= MaxExtraBytes {
		return
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range *extra {
			if !yield(k) {
				return
			}
		}
	})
	kept := 0
	for _, k := range keys {
		if n := len(k) + len((*extra)[k]); kept+n <= MaxExtraBytes {
			kept += n
			continue
		}
		delete(*extra, k)
		*dropped = append(*dropped, at+"."+k)
	}
}
