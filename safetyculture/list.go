package safetyculture

import (
	"context"
	"iter"
	"net/http"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/bridge"
	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/pager"
)

// ListOptions page a list: the Training API's lists take a 1-based page
// and a pageSize, and answer {"totalCount", "items"}.
type ListOptions struct {
	Page     int `url:"page,omitempty"`     // 1-based; 0: the first
	PageSize int `url:"pageSize,omitempty"` // 0: the service's default
}

func (o *ListOptions) listOptions() *ListOptions { return o }

// MaxPageSize is the largest page the All iterators ask for.
const MaxPageSize = 1000

// Page is one page of a list. NextPage is the page to ask for next, 0
// when this one is the last: the walk ends on an empty or a short page,
// never on the count alone.
type Page[T any] struct {
	Items    []T
	NextPage int
	Response *edapp.Response // the answer this page came from

	total    int
	hasTotal bool
	received int    // items the answer held, those dropped whole included
	hash     uint64 // the body's digest
}

// Total is the service's totalCount, when it sent one.
func (p *Page[T]) Total() (int, bool) { return p.total, p.hasTotal }

// pagedOptions are the option structs that embed ListOptions.
type pagedOptions[O any] interface {
	*O
	listOptions() *ListOptions
}

// get sends a GET whose answer is decoded into out.
func (c *Client) get(ctx context.Context, p ids.Path, query, out any, opts []edapp.RequestOption) error {
	_, err := c.send(ctx, &bridge.Call{Method: http.MethodGet, Route: p.Route, Path: p.Path, Query: query, Out: out, Record: true, Options: opts})
	return err
}

// listPage fetches one page of a paged list.
func listPage[T any, O any, PO pagedOptions[O]](ctx context.Context, c *Client, p ids.Path, opts PO, ropts []edapp.RequestOption) (*Page[T], error) {
	pg, _, err := fetchPage[T](ctx, c, p, opts, ropts)
	return pg, err
}

// fetchPage fetches one page, and returns the call's Response also when
// it failed.
func fetchPage[T any, O any, PO pagedOptions[O]](ctx context.Context, c *Client, p ids.Path, opts PO, ropts []edapp.RequestOption) (*Page[T], *edapp.Response, error) {
	var l pager.List[T]
	pg := new(Page[T])
	call := &bridge.Call{Method: http.MethodGet, Route: p.Route, Path: p.Path, Query: opts, Out: &l, Options: ropts, BodyHash: &pg.hash}
	resp, err := c.send(ctx, call)
	if err != nil {
		return nil, resp, err
	}
	pg.Items, pg.Response = l.Items, resp
	pg.total, pg.hasTotal = l.Total()
	if pg.hasTotal {
		bridge.SetTotal(resp, pg.total) // the walk's Response tells it (Response.Total)
	}
	pg.received = len(l.Items) + pager.DroppedWhole(resp.Dropped)
	page, size := 1, pager.DefaultPageSize
	if opts != nil {
		lo := PO(opts).listOptions()
		page, size = max(lo.Page, 1), cmpOr(lo.PageSize, size)
	}
	raw := 0
	if l.TotalCount != nil {
		raw = *l.TotalCount
	}
	pg.NextPage = pager.Judge(page, size, pg.received, raw, l.TotalCount != nil).Next
	c.pageEvent(ctx, p.Route, page, len(pg.Items))
	return pg, resp, nil
}

func cmpOr(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

// all walks every page of a list from the options' page on, from the
// limiter's bulk lane, with edapp.WithPageConcurrency pages in flight once
// the service's count allows (4 by default). It copies the caller's
// options; the caller's WithResponseInto is filled before each page's
// items are yielded. An item met twice (the list shifted while it was
// read) is yielded once when it has an id.
func all[T any, O any, PO pagedOptions[O]](ctx context.Context, c *Client, p ids.Path, opts PO, ropts []edapp.RequestOption, key func(T) string) iter.Seq2[T, error] {
	walk := bridge.NewWalk(ropts)
	if walk.Err != nil {
		return failed[T](walk.Err)
	}
	var base O
	if opts != nil {
		base = *opts
	}
	first := PO(&base).listOptions()
	size := min(cmpOr(first.PageSize, MaxPageSize), MaxPageSize)
	perPage := walk.PerPage.([]edapp.RequestOption)
	fetch := func(ctx context.Context, page, pageSize int) (*pager.Result[T], error) {
		o := base
		lo := PO(&o).listOptions()
		lo.Page, lo.PageSize = page, pageSize
		pg, resp, err := fetchPage[T](ctx, c, p, PO(&o), perPage)
		fill := func() { walk.Fill(resp) }
		if err != nil {
			return &pager.Result[T]{BeforeYield: fill}, err
		}
		return &pager.Result[T]{Items: pg.Items, Received: pg.received, Total: pg.total, HasTotal: pg.hasTotal, BodyHash: pg.hash, BeforeYield: fill}, nil
	}
	return pager.All(ctx, pager.Walk[T]{FirstPage: first.Page, PageSize: size, Concurrency: walk.PageConcurrency, Fetch: fetch, Key: key})
}

// getOne fetches one record by id, sent bare or as {envelope: {...}}.
func getOne[T any](ctx context.Context, c *Client, route, idName, id, envelope string, ropts []edapp.RequestOption) (*T, error) {
	if err := ids.Require(idName, id); err != nil {
		return nil, err
	}
	out := oneOf[T]{key: envelope}
	if err := c.get(ctx, ids.Fill(route, id), nil, &out, ropts); err != nil {
		return nil, err
	}
	return &out.v, nil
}

// pageEvent reports a page to the Observer.
func (c *Client) pageEvent(ctx context.Context, template string, page, items int) {
	if r, err := c.route(http.MethodGet, template); err == nil {
		r.caller.Page(ctx, template, page, items)
	}
}
