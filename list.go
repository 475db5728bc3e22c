package edapp

import (
	"context"
	"iter"
	"net/http"
	"strings"

	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/pager"
)

// ListOptions pages a list operation. The service's pages are 1-based with
// 25 items by default and 1000 at most. The All iterators ask for 1000
// unless PageSize is set.
type ListOptions struct {
	Page     int `url:"page,omitempty"`     // 1-based
	PageSize int `url:"pageSize,omitempty"` // service maximum 1000
}

// listOptions lets the generic iterator reach the ListOptions embedded in
// an operation's own options.
func (o *ListOptions) listOptions() *ListOptions { return o }

// MaxPageSize is the largest page the service serves.
const MaxPageSize = 1000

// DefaultPageConcurrency is how many pages an All iterator fetches at once
// when the service reports a total count (see WithPageConcurrency).
const DefaultPageConcurrency = 4

// Page is one page of a list. The AllX iterators walk every page; range
// over them with two variables, since an error is yielded as the second
// value (see the package doc, Pagination). TotalCount is the service's count of all
// items, or -1 when the answer was a bare array that carried none.
// Response is the answer the page came from.
type Page[T any] struct {
	Items      []T
	TotalCount int
	Response   *Response

	digest  uint64 // of the answer's body: a page the same as the last one is a loop
	counted bool   // the service sent a count, even a nonsensical one
	sent    int    // items in the answer, those dropped whole included
}

// listPage fetches one page of a list operation.
func listPage[T any](ctx context.Context, c *Client, path ids.Path, query any, opts ...RequestOption) (*Page[T], error) {
	rc := newRequestConfig(opts)
	p := new(Page[T])
	var l pager.List[T]
	err := c.do(ctx, request(http.MethodGet, path, query, nil), &rc, func(a *answer) error {
		if err := a.decodeJSON(ctx, &l); err != nil {
			return err
		}
		resp := a.response()
		p.digest = a.digest()
		p.Items, p.TotalCount, p.counted = l.Items, l.Total(), l.TotalCount != nil
		p.sent = len(p.Items) + droppedWhole(resp.Dropped)
		resp.TotalCount = p.TotalCount
		p.Response = resp
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.observer.page(ctx, path.Route, query, len(p.Items))
	return p, nil
}

// all turns a ListX method into its AllX iterator, which draws from the
// limiter's bulk lane.
func all[T any, O any, PO interface {
	*O
	listOptions() *ListOptions
}](ctx context.Context, opts PO, list func(context.Context, PO, ...RequestOption) (*Page[T], error), ropts []RequestOption) iter.Seq2[T, error] {
	return pages(ctx, opts, list, true, ropts)
}

// pages walks every page of list. It copies the caller's options once, and
// each page request gets a copy of its own, so neither the caller's struct
// nor a second range over the iterator is disturbed. The caller's
// WithResponseInto is filled by the goroutine running the loop, before each
// page's first item is yielded.
func pages[T any, O any, PO interface {
	*O
	listOptions() *ListOptions
}](ctx context.Context, opts PO, list func(context.Context, PO, ...RequestOption) (*Page[T], error), bulk bool, ropts []RequestOption) iter.Seq2[T, error] {
	var base O
	if opts != nil {
		base = *opts
	}
	first := PO(&base).listOptions()
	size := first.PageSize
	if size <= 0 {
		size = MaxPageSize
	}
	rc := newRequestConfig(ropts)
	if rc.err != nil {
		return func(yield func(T, error) bool) {
			var zero T
			yield(zero, rc.err)
		}
	}
	into := rc.resp
	perPage := func(c *requestConfig) {
		*c = rc
		c.resp = nil
		c.bulk = c.bulk || bulk
	}
	concurrency := rc.pageConcurrency
	if concurrency == 0 {
		concurrency = DefaultPageConcurrency
	}
	return pager.All(ctx, first.Page, size, concurrency, func(ctx context.Context, page, pageSize int) (*pager.Result[T], error) {
		o := base
		lo := PO(&o).listOptions()
		lo.Page, lo.PageSize = page, pageSize
		p, err := list(ctx, &o, perPage)
		if err != nil {
			var resp *Response
			if into != nil {
				resp = responseOf(err)
			}
			return &pager.Result[T]{OnYield: fillInto(into, resp)}, err
		}
		return &pager.Result[T]{
			Items: p.Items, Sent: p.sent, Total: p.TotalCount, Counted: p.counted, Digest: p.digest,
			OnYield: fillInto(into, p.Response),
		}, nil
	})
}

// fillInto returns what copies resp into the caller's Response, or nil.
func fillInto(into, resp *Response) func() {
	if into == nil || resp == nil {
		return nil
	}
	return func() { *into = *resp }
}

// droppedWhole counts the items dropped whole ("items[3]", or "[3]" from a
// bare array) among a page's dropped paths.
func droppedWhole(paths []string) int {
	n := 0
	for _, p := range paths {
		p = strings.TrimPrefix(p, "items")
		if strings.HasPrefix(p, "[") && strings.IndexByte(p, ']') == len(p)-1 {
			n++
		}
	}
	return n
}

// listAll reads every page of a list that serves one interactive call
// (a user's courses, a course's lessons), from the interactive lane.
func listAll[T any](ctx context.Context, c *Client, path ids.Path, opts []RequestOption) ([]T, error) {
	return collect(pages(ctx, (*ListOptions)(nil), func(ctx context.Context, o *ListOptions, ro ...RequestOption) (*Page[T], error) {
		return listPage[T](ctx, c, path, o, ro...)
	}, false, opts))
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
