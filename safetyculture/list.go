package safetyculture

import (
	"cmp"
	"context"
	"iter"
	"net/http"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/core"
	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/pager"
)

// MaxPageSize is the largest page the All iterators ask for.
const MaxPageSize = 1000

// get sends a GET whose answer is decoded into out.
func (c *Client) get(ctx context.Context, p ids.Path, query, out any, opts []edapp.RequestOption) error {
	_, err := c.send(ctx, getOp(p, query), out, true, opts)
	return err
}

// listPage fetches one page of a paged list.
func listPage[T any, O any, PO core.Paged[O]](ctx context.Context, c *Client, p ids.Path, opts PO, reqOpts []edapp.RequestOption) (*edapp.Page[T], error) {
	pg, _, err := fetchPage[T](ctx, c, p, opts, reqOpts)
	return pg, err
}

// fetchPage fetches one page, and returns the call's Response also when
// it failed.
func fetchPage[T any, O any, PO core.Paged[O]](ctx context.Context, c *Client, p ids.Path, opts PO, reqOpts []edapp.RequestOption) (*edapp.Page[T], *edapp.Response, error) {
	l := pager.List[T]{Each: keepRawItem[T]}
	var hash uint64
	resp, err := c.send(ctx, getOp(p, opts), &l, false, reqOpts, core.WithBodyHash(&hash))
	if err != nil {
		return nil, resp, err
	}
	page, size := 1, pager.DefaultPageSize
	if opts != nil {
		lo := core.ListOptionsOf(opts)
		page, size = max(lo.Page, 1), cmpOr(lo.PageSize, size)
	}
	pg := core.NewPage(l, resp, page, size, hash)
	c.core.Page(ctx, p.Route, page, len(pg.Items))
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
func all[T any, O any, PO core.Paged[O]](ctx context.Context, c *Client, p ids.Path, opts PO, reqOpts []edapp.RequestOption, key func(T) string) iter.Seq2[T, error] {
	rc := core.NewRequestConfig(reqOpts)
	if rc.Err != nil {
		return failed[T](rc.Err)
	}
	into := rc.Resp
	perPage := []edapp.RequestOption{func(c *core.RequestConfig) error {
		*c = rc
		c.Resp, c.Bulk = nil, true
		return nil
	}}
	var base O
	if opts != nil {
		base = *opts
	}
	first := core.ListOptionsOf(PO(&base))
	size := min(cmpOr(first.PageSize, MaxPageSize), MaxPageSize)
	fetch := func(ctx context.Context, page, pageSize int) (*pager.Result[T], error) {
		o := base
		lo := core.ListOptionsOf(PO(&o))
		lo.Page, lo.PageSize = page, pageSize
		pg, resp, err := fetchPage[T](ctx, c, p, PO(&o), perPage)
		fill := func() {
			if into != nil && resp != nil {
				*into = *resp
			}
		}
		if err != nil {
			return &pager.Result[T]{BeforeYield: fill}, err
		}
		r := core.WalkResult(pg)
		r.BeforeYield = fill
		return r, nil
	}
	return pager.All(ctx, pager.Walk[T]{FirstPage: first.Page, PageSize: size, Concurrency: cmp.Or(rc.PageConcurrency, edapp.DefaultPageConcurrency), Fetch: fetch, Key: key})
}

// getOne fetches one record by id, sent bare or as {envelope: {...}}.
func getOne[T any](ctx context.Context, c *Client, route, idName, id, envelope string, reqOpts []edapp.RequestOption) (*T, error) {
	if err := ids.Require(idName, id); err != nil {
		return nil, err
	}
	out := oneOf[T]{key: envelope}
	if err := c.get(ctx, ids.Fill(route, id), nil, &out, reqOpts); err != nil {
		return nil, err
	}
	return &out.v, nil
}

// getOp is a GET of p.
func getOp(p ids.Path, query any) core.Operation {
	return core.Operation{Method: http.MethodGet, Route: p.Route, Path: p.Path, Query: query}
}
