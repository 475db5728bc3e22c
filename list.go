package edapp

import (
	"context"
	"iter"
	"log/slog"
	"net/http"
	"strings"

	"github.com/edapp-go/edapp/internal/core"
	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/pager"
)

// ListOptions pages a list operation, of either client: the lists' option
// structs embed it. The service's pages are 1-based with 25 items by
// default and 1000 at most. The All iterators ask for 1000 unless PageSize
// is set.
//
// Fields: Page, 1-based (0: the first); PageSize (0: the service's
// default; 1000 at most).
type ListOptions = core.ListOptions

// MaxPageSize is the largest page the service serves.
const MaxPageSize = 1000

// DefaultPageConcurrency is how many pages an All iterator fetches at once
// when the service reports a total count (see WithPageConcurrency).
const DefaultPageConcurrency = 4

// Page is one page of a list, of either client. The AllX iterators walk
// every page; range over them with two variables, since an error is
// yielded as the second value (see the package doc, Pagination).
//
// Fields: Items; NextPage, the page to ask for next with the same
// PageSize, 0 when this page is the last: it came back empty, or with
// fewer items than asked for (a full page of the service's default 25,
// when its count says more follow, is taken for a service that ignored
// PageSize); the count never ends a list by itself, and the AllX
// iterators follow the same rule; Response, the answer the page came
// from. Method: Total() (int, bool), the service's count of all items of
// the list and whether it sent one: a hint, for progress (when the page's
// items contradict it, [Response.TotalContradicted] says so).
//
// Paging by hand sees one page at a time. What needs a walk's history is
// done by the AllX iterators only: yielding once an item met again on a
// later page, reading pages again when the list shifted under the walk, and
// noticing a service that answers the same page again and again.
type Page[T any] = core.Page[T]

// listPage fetches one page of a list operation.
func listPage[T any](ctx context.Context, c *Client, path ids.Path, query any, opts ...RequestOption) (*Page[T], error) {
	rc := core.NewRequestConfig(opts)
	var hash uint64
	if rc.BodyHash == nil {
		rc.BodyHash = &hash
	}
	var l pager.List[T]
	var resp *Response
	err := c.core.Do(ctx, request(http.MethodGet, path, query, nil), &rc, func(a *core.Answer) error {
		if err := a.DecodeJSON(ctx, &l); err != nil {
			return err
		}
		resp = a.Response()
		return nil
	})
	if err != nil {
		return nil, err
	}
	page, size := pagePosition(query)
	p := core.NewPage(l, resp, page, size, hash)
	if rc.Resp != nil {
		core.SetCount(rc.Resp, core.CountOf(resp))
	}
	if n := core.CountOf(resp); n.Contradicted {
		core.SetWarnCount(p, func(ctx context.Context) { c.warnCountContradicted(ctx, path.Path, page, n.Raw) })
	}
	c.core.Page(ctx, path.Route, pageNumber(query), len(p.Items))
	return p, nil
}

// pageNumber returns the page a list call asked for, from its options.
func pageNumber(query any) int {
	if lo, ok := core.ListOptionsIn(query); ok {
		return lo.Page
	}
	return 0
}

// pagePosition is the page and the page size that query asks for, as the
// service reads them.
func pagePosition(query any) (page, size int) {
	page, size = 1, pager.DefaultPageSize
	lo, ok := core.ListOptionsIn(query)
	if !ok {
		return page, size
	}
	if lo.Page > 0 {
		page = lo.Page
	}
	if lo.PageSize > 0 {
		size = min(lo.PageSize, MaxPageSize)
	}
	return page, size
}

// warnCountContradicted logs, once per walk, that a list's pages
// contradict the count the service sent.
func (c *Client) warnCountContradicted(ctx context.Context, path string, page, total int) {
	if c.logger != nil {
		c.logger.LogAttrs(ctx, slog.LevelWarn, "edapp: the list's items contradict its totalCount; reading on to its last page",
			slog.String("path", path), slog.Int("page", page), slog.Int("totalCount", total))
	}
}

// all turns a ListX method into its AllX iterator, which draws from the
// limiter's bulk lane.
func all[T any, O any, PO core.Paged[O]](ctx context.Context, opts PO, list func(context.Context, PO, ...RequestOption) (*Page[T], error), ropts []RequestOption) iter.Seq2[T, error] {
	return pages(ctx, opts, list, true, ropts)
}

// pages walks every page of list. It copies the caller's options once, and
// each page request gets a copy of its own, so neither the caller's struct
// nor a second range over the iterator is disturbed. The caller's
// WithResponseInto is filled by the goroutine running the loop, before each
// page's items are yielded, an empty last page's included. Items already
// yielded in the walk are dropped by their key (see walkKey).
func pages[T any, O any, PO core.Paged[O]](ctx context.Context, opts PO, list func(context.Context, PO, ...RequestOption) (*Page[T], error), bulk bool, ropts []RequestOption) iter.Seq2[T, error] {
	var base O
	if opts != nil {
		base = *opts
	}
	first := core.ListOptionsOf(PO(&base))
	size := first.PageSize
	if size <= 0 {
		size = MaxPageSize
	}
	rc := core.NewRequestConfig(ropts)
	if rc.Err != nil {
		return func(yield func(T, error) bool) {
			var zero T
			yield(zero, rc.Err)
		}
	}
	concurrency := rc.PageConcurrency
	if concurrency == 0 {
		concurrency = DefaultPageConcurrency
	}
	fetch := pageFetch(ctx, base, list, rc, bulk)
	return pager.All(ctx, pager.Walk[T]{
		FirstPage: first.Page, PageSize: min(size, MaxPageSize), Concurrency: concurrency,
		Fetch: fetch, Key: walkKeyOf[T](),
	})
}

// pageFetch fetches one page of list for a walk: base's options at that
// page, rc's request options without the caller's Response, which is
// filled before the page is yielded instead.
func pageFetch[T any, O any, PO core.Paged[O]](walkCtx context.Context, base O, list func(context.Context, PO, ...RequestOption) (*Page[T], error), rc core.RequestConfig, bulk bool) pager.Fetch[T] {
	into := rc.Resp
	perPage := func(c *core.RequestConfig) error {
		*c = rc
		c.Resp = nil
		c.Bulk = c.Bulk || bulk
		return nil
	}
	contradicted := false // a page of the walk contradicted its count; loop goroutine only
	return func(ctx context.Context, page, pageSize int) (*pager.Result[T], error) {
		o := base
		lo := core.ListOptionsOf(PO(&o))
		lo.Page, lo.PageSize = page, pageSize
		p, err := list(ctx, &o, perPage)
		if err != nil {
			var resp *Response
			if into != nil {
				resp = core.ResponseOf(err)
			}
			return &pager.Result[T]{BeforeYield: fillInto(into, resp, &contradicted)}, err
		}
		r := core.WalkResult(p)
		r.BeforeYield = fillInto(into, p.Response, &contradicted)
		if warn := core.WarnCount(p); warn != nil {
			r.WarnCountContradicted = func() {
				contradicted = true
				warn(walkCtx)
			}
		}
		return r, nil
	}
}

// walkKey is what identifies an item within a walk, so that an item met
// again (the list shifted while it was read) is yielded once. The kinds
// without an id of their own are keyed by what the service keeps one of
// per key; LessonProgressEvent has no such key and is never dropped.
type walkKeyed interface{ walkKey() string }

func (u User) walkKey() string                     { return u.ID }
func (g UserGroup) walkKey() string                { return g.ID }
func (c Course) walkKey() string                   { return c.ID } // and UserCourse
func (c CourseCollection) walkKey() string         { return c.ID }
func (l Lesson) walkKey() string                   { return l.ID }
func (w Webhook) walkKey() string                  { return w.ID }
func (a Attempt) walkKey() string                  { return a.ID }
func (q SurveyQuestionDefinition) walkKey() string { return q.ID }
func (a SurveyAnswer) walkKey() string             { return a.ID }
func (s CourseStatistics) walkKey() string         { return s.CourseID }
func (s LessonStatistics) walkKey() string         { return joinKey(s.CourseID, s.LessonID) }
func (p CourseProgress) walkKey() string           { return joinKey(p.UserID, p.CourseID) }
func (p UserLessonProgress) walkKey() string       { return joinKey(p.UserID, p.CourseID, p.LessonID) }

// joinKey joins the parts of a key; empty when one is missing, so that an
// item whose key did not decode is never taken for another.
func joinKey(parts ...string) string {
	for _, p := range parts {
		if p == "" {
			return ""
		}
	}
	return strings.Join(parts, "\x00")
}

// walkKeyOf returns T's walkKey, or nil when T has none.
func walkKeyOf[T any]() func(T) string {
	var zero T
	if _, ok := any(zero).(walkKeyed); !ok {
		return nil
	}
	return func(v T) string { return any(v).(walkKeyed).walkKey() }
}

// fillInto returns what copies resp into the caller's Response, or nil.
// Once a page of the walk contradicted its count, every later Response
// says so.
func fillInto(into, resp *Response, contradicted *bool) func() {
	if into == nil || resp == nil {
		return nil
	}
	return func() {
		*into = *resp
		if *contradicted {
			count := core.CountOf(into)
			count.Contradicted = true
			core.SetCount(into, count)
		}
	}
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
