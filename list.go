package edapp

import (
	"context"
	"iter"
	"net/http"

	"github.com/edapp-go/edapp/internal/pager"
)

// ListOptions pages a list operation. The service's pages are 1-based with
// 25 items by default and 1000 at most (not shown in the spec; documented by
// the vendor). The All iterators ask for 1000 unless PageSize is set.
type ListOptions struct {
	Page     int `url:"page,omitempty"`     // 1-based
	PageSize int `url:"pageSize,omitempty"` // service maximum 1000
}

// listOptions lets the generic iterator reach the ListOptions embedded in
// an operation's own options.
func (o *ListOptions) listOptions() *ListOptions { return o }

// MaxPageSize is the largest page the service serves.
const MaxPageSize = 1000

// Page is one page of a list. TotalCount is the service's count of all
// items, or -1 when the answer was a bare array that carried none.
type Page[T any] struct {
	Items      []T
	TotalCount int
}

// listPage fetches one page of a list operation.
func listPage[T any](ctx context.Context, c *Client, path string, opts any) (*Page[T], error) {
	var l pager.List[T]
	if err := c.Do(ctx, http.MethodGet, path, opts, nil, &l); err != nil {
		return nil, err
	}
	return &Page[T]{Items: l.Items, TotalCount: l.Total()}, nil
}

// all turns a ListX method into its AllX iterator. It copies the caller's
// options once, and each page request gets a copy of its own, so neither
// the caller's struct nor a second range over the iterator is disturbed.
func all[T any, O any, PO interface {
	*O
	listOptions() *ListOptions
}](ctx context.Context, opts PO, list func(context.Context, PO) (*Page[T], error)) iter.Seq2[T, error] {
	var base O
	if opts != nil {
		base = *opts
	}
	first := PO(&base).listOptions()
	size := first.PageSize
	if size <= 0 {
		size = MaxPageSize
	}
	return pager.All(ctx, first.Page, size, func(ctx context.Context, page, pageSize int) ([]T, int, error) {
		o := base
		lo := PO(&o).listOptions()
		lo.Page, lo.PageSize = page, pageSize
		p, err := list(ctx, &o)
		if err != nil {
			return nil, 0, err
		}
		return p.Items, p.TotalCount, nil
	})
}

// collect gathers every item of seq, or returns its error.
func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
