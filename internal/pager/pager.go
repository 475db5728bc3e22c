// Package pager holds the one list decoder, the one rule for what a single
// page decides, and the one page iterator that every list operation of the
// SDK uses.
package pager

import (
	"errors"
	"math"
	"strconv"

	"github.com/edapp-go/edapp/internal/lenient"
)

// List is one page as the service sends it: the {"items", "totalCount"}
// envelope, or a bare JSON array. Decode it with lenient.Decode, which calls
// DecodeJSON: the items are read one by one in a single pass, and a bad
// value costs that value only (see lenient.DecodeList).
type List[T any] struct {
	Items      []T  `json:"items"`
	TotalCount *int `json:"totalCount"`
	// Each, if set, is handed every item kept, with its bytes as sent (see
	// lenient.DecodeListEach).
	Each func(i int, raw []byte, item *T) `json:"-"`

	whole []DroppedRecord
}

// DroppedRecords is the items dropped whole, with their bytes as sent.
func (l *List[T]) DroppedRecords() []DroppedRecord { return l.whole }

// DecodeJSON decodes a page in either form; it returns the JSON paths of
// the values it dropped, such as "items[3].completedDateTime".
func (l *List[T]) DecodeJSON(data []byte) (dropped []string, err error) {
	l.whole = nil
	return lenient.DecodeListEach(data, &l.Items, &l.TotalCount, l.Each, func(i int, raw []byte) {
		l.whole = append(l.whole, NewDroppedRecord("items["+strconv.Itoa(i)+"]", raw))
	})
}

// Total is the service's count of all items, and whether it sent one. A
// negative count is no count at all: Judge reports it as contradicted.
func (l *List[T]) Total() (int, bool) {
	if l.TotalCount == nil || *l.TotalCount < 0 {
		return 0, false
	}
	return *l.TotalCount, true
}

// ErrRepeatedPage is a counted page that came back the same as the page
// before it: a server that ignores the page number would otherwise be read
// forever.
var ErrRepeatedPage = errors.New("the service answered the same page twice")

// Verdict is what one page decides on its own, without the walk's history.
type Verdict struct {
	// Next is the page to read after this one; 0 when this one is the last.
	Next int
	// CountContradicted: the count the page carries disagrees with the
	// page's items (fewer than the items up to this page, more than there
	// are on a last page, or negative).
	CountContradicted bool
}

// DefaultPageSize is the page the service serves when pageSize is unset.
const DefaultPageSize = 25

// Judge is the one rule for what a single page decides: Page.NextPage is
// filled by it and the iterators follow it, so paging by hand and
// iterating never disagree. A page is the last when it came back empty or
// with fewer than pageSize items; received counts every item the service
// sent, those that failed to decode included, so a dropped item never makes
// a page look short. One exception keeps a service that ignores pageSize
// from being cut short: a page of exactly DefaultPageSize items, when more
// were asked for, whose count says more follow at that size, is read on
// from. Otherwise the count is never a reason to stop or to go on: it
// serves prefetching, and is reported when the page contradicts it.
// rawTotal is the count as sent (meaningful when hasTotal), negative
// included.
func Judge(page, pageSize, received, rawTotal int, hasTotal bool) Verdict {
	width := pageSize
	if hasTotal && ignoresPageSize(page, pageSize, received, rawTotal) {
		width = DefaultPageSize
	}
	var v Verdict
	last := received <= 0 || received < width || page >= math.MaxInt || page < 1
	if !last {
		v.Next = page + 1
	}
	if hasTotal {
		v.CountContradicted = contradicts(page, width, received, rawTotal, last)
		if v.CountContradicted && width > DefaultPageSize && received < DefaultPageSize {
			// Perhaps the last page of a service that ignores pageSize.
			v.CountContradicted = contradicts(page, DefaultPageSize, received, rawTotal, last)
		}
	}
	return v
}

// ignoresPageSize reports whether a page looks like one of a service that
// serves DefaultPageSize items whatever was asked: exactly that many, fewer
// than asked, and a count that says more follow.
func ignoresPageSize(page, pageSize, received, total int) bool {
	return pageSize > DefaultPageSize && received == DefaultPageSize &&
		total > itemsThrough(page, DefaultPageSize, received)
}

// contradicts reports whether a page's items disagree with its count. A
// page with items proves that the pages before it are full, so there are at
// least as many items as up to its end, and exactly that many when it is the
// last. An empty page proves only that there are no more than the pages
// before it can hold.
func contradicts(page, pageSize, received, total int, last bool) bool {
	through := itemsThrough(page, pageSize, received)
	switch {
	case total < 0:
		return true
	case received <= 0:
		return total > through
	case through > total:
		return true
	}
	return last && through < total
}

// itemsThrough is how many items the pages up to and including page hold,
// when pages before it are full; it saturates instead of overflowing.
func itemsThrough(page, pageSize, received int) int {
	received = max(received, 0)
	before := page - 1
	if before <= 0 || pageSize <= 0 {
		return received
	}
	if before > (math.MaxInt-received)/pageSize {
		return math.MaxInt
	}
	return before*pageSize + received
}

// pagesFor is how many pages of pageSize items hold total items; it never
// overflows.
func pagesFor(total, pageSize int) int {
	if total <= 0 || pageSize <= 0 {
		return 0
	}
	n := total / pageSize
	if total%pageSize != 0 {
		n++
	}
	return n
}
