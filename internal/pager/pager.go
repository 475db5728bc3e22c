// Package pager holds the one list decoder and the one page iterator that
// every list operation of the SDK uses.
package pager

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/edapp-go/edapp/internal/lenient"
)

// List is one page as the service sends it: the {"items", "totalCount"}
// envelope, or a bare JSON array. Decode it with lenient.Decode, which calls
// DecodeJSON: the items are read one by one in a single pass, and a bad
// value costs that value only (see lenient.DecodeList).
type List[T any] struct {
	Items      []T  `json:"items"`
	TotalCount *int `json:"totalCount"`
}

// DecodeJSON decodes a page in either form; it returns the JSON paths of
// the values it dropped, such as "items[3].completedDateTime".
func (l *List[T]) DecodeJSON(data []byte) (dropped []string, err error) {
	return lenient.DecodeList(data, &l.Items, &l.TotalCount)
}

// Total is the service's count of all items, or -1 when it sent none.
func (l *List[T]) Total() int {
	if l.TotalCount == nil {
		return -1
	}
	return *l.TotalCount
}

// Result is one fetched page.
type Result[T any] struct {
	Items   []T
	Sent    int    // items in the answer, those dropped whole included
	Total   int    // the service's count; meaningful when Counted
	Counted bool   // the service sent a count
	Digest  uint64 // of the answer's body
	OnYield func() // nil, or run before the page's first item (or its error) is yielded
}

// Fetch returns one page. On error the Result may still carry OnYield.
type Fetch[T any] func(ctx context.Context, page, pageSize int) (*Result[T], error)

// ErrRepeatedPage is a counted page that came back the same as the page
// before it: a server that ignores the page number would otherwise be read
// forever.
var ErrRepeatedPage = errors.New("the service answered the same page twice")

// All walks the pages from firstPage on, pageSize items at a time, and
// yields every item, in order. It stops:
//   - on an empty page;
//   - once it has read the pages the reported total needs (a total that
//     grows while the walk is under way extends it);
//   - on a short page when no total was reported;
//   - on an uncounted page that repeats the one before (an unpaged array);
//   - after yielding an error once: a fetch error, ctx's error, a negative
//     total, or a counted page that repeats the one before;
//   - when the consumer stops, cancelling pages in flight.
//
// When the first page reports a total, up to concurrency pages are in
// flight at once, and at most that many are held in memory.
func All[T any](ctx context.Context, firstPage, pageSize, concurrency int, fetch Fetch[T]) iter.Seq2[T, error] {
	firstPage = max(firstPage, 1)
	concurrency = max(concurrency, 1)
	return func(yield func(T, error) bool) {
		var zero T
		ctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		defer func() {
			cancel()
			wg.Wait()
		}()
		fail := func(r *Result[T], err error) {
			if r != nil && r.OnYield != nil {
				r.OnYield()
			}
			yield(zero, err)
		}
		// emit yields a page's items; false: stop.
		emit := func(r *Result[T]) bool {
			if len(r.Items) > 0 && r.OnYield != nil {
				r.OnYield()
			}
			for _, it := range r.Items {
				if !yield(it, nil) {
					return false
				}
			}
			return true
		}

		type slot struct {
			page int
			res  *Result[T]
			err  error
			done chan struct{}
		}
		var queue []*slot
		launch := func(page int) {
			s := &slot{page: page, done: make(chan struct{})}
			queue = append(queue, s)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(s.done)
				s.res, s.err = fetch(ctx, page, pageSize)
			}()
		}

		var prev *Result[T]
		lastPage := 0 // by the reported total; 0: unknown
		width := pageSize
		next := firstPage
		for {
			parallel := prev != nil && lastPage > 0 && concurrency > 1
			for (parallel && len(queue) < concurrency && next <= lastPage) || len(queue) == 0 {
				if err := ctx.Err(); err != nil {
					yield(zero, err)
					return
				}
				launch(next)
				next++
				if !parallel {
					break
				}
			}
			s := queue[0]
			queue = queue[1:]
			<-s.done
			if s.err != nil {
				fail(s.res, s.err)
				return
			}
			r := s.res
			if r.Counted && r.Total < 0 {
				fail(r, fmt.Errorf("page %d: the service reported a negative count (%d)", s.page, r.Total))
				return
			}
			if prev != nil && r.Digest == prev.Digest && max(r.Sent, len(r.Items)) > 0 {
				if !r.Counted {
					return // an unpaged array: the service ignores the page number
				}
				fail(r, fmt.Errorf("page %d: %w", s.page, ErrRepeatedPage))
				return
			}
			// Decisions go by what the service sent, so an item dropped
			// because it did not decode never makes a page look short.
			sent := max(r.Sent, len(r.Items))
			if prev == nil && sent > 0 && sent < pageSize && r.Counted && r.Total > sent {
				// The service caps the page size below ours: page numbers
				// count its pages.
				width = sent
			}
			if !emit(r) {
				return
			}
			// A total of 0 next to items is not believable: treat it as unknown.
			known := r.Counted && r.Total > 0
			if known {
				lastPage = max(lastPage, (r.Total+width-1)/width)
			}
			switch {
			case sent == 0:
				return
			case known && s.page >= lastPage && len(queue) == 0 && next > lastPage:
				return
			case sent < width:
				return // short: the last page, or the rest is gone
			}
			prev = r
		}
	}
}
