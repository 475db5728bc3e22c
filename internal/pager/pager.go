// Package pager holds the one list decoder and the one page iterator that
// every list operation of the SDK uses.
package pager

import (
	"context"
	"iter"

	"github.com/edapp-go/edapp/internal/jsonx"
)

// List is one page as the service sends it: the {"items", "totalCount"}
// envelope, or a bare JSON array. Decode it with jsonx.Decode, which calls
// DecodeJSON: the items are read one by one in a single pass, and a bad
// value costs that value only (see jsonx.DecodeList).
type List[T any] struct {
	Items      []T  `json:"items"`
	TotalCount *int `json:"totalCount"`
}

// DecodeJSON decodes a page in either form; it returns the JSON paths of
// the values it dropped, such as "items[3].completedDateTime".
func (l *List[T]) DecodeJSON(data []byte) (dropped []string, err error) {
	return jsonx.DecodeList(data, &l.Items, &l.TotalCount)
}

// Total is the service's count of all items, or -1 when it sent none.
func (l *List[T]) Total() int {
	if l.TotalCount == nil {
		return -1
	}
	return *l.TotalCount
}

// Fetch returns one page: its items and the total the service reported (-1
// when it reported none).
type Fetch[T any] func(ctx context.Context, page, pageSize int) (items []T, total int, err error)

// All walks the pages from firstPage on, pageSize items at a time, and
// yields every item. It stops:
//   - on an empty page;
//   - once it has yielded the reported total;
//   - on a short page when no total was reported;
//   - after yielding an error once (a fetch error, or ctx's error, which is
//     checked between pages);
//   - when the consumer stops.
//
// A server that keeps answering full pages past its own total cannot make it
// loop: it never asks beyond the page that should hold the last item. A
// total of 0 reported next to items is treated as unknown.
func All[T any](ctx context.Context, firstPage, pageSize int, fetch Fetch[T]) iter.Seq2[T, error] {
	if firstPage < 1 {
		firstPage = 1
	}
	return func(yield func(T, error) bool) {
		var zero T
		seen, widest := 0, 0
		for page := firstPage; ; page++ {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			items, total, err := fetch(ctx, page, pageSize)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			seen += len(items)
			widest = max(widest, len(items))
			// A total of 0 next to items is not believable: treat it as unknown.
			known := total > 0
			switch {
			case len(items) == 0:
				return
			case known && seen >= total-(firstPage-1)*pageSize:
				return
			case known && page >= (total+widest-1)/widest:
				// Measured by the widest page seen, so a server that
				// caps the page size below ours is still read to the end.
				return
			case !known && pageSize > 0 && len(items) < pageSize:
				return
			}
		}
	}
}
