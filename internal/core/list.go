package core

import (
	"context"

	"github.com/edapp-go/edapp/internal/pager"
)

// ListCount is a page's totalCount and the verdict of its items on it.
type ListCount struct {
	Raw          int  // as sent, negative included
	Sent         bool // the answer carried one
	Contradicted bool
}

// Total is the count as Total reports it: a negative one is none.
func (c ListCount) Total() (int, bool) {
	if !c.Sent || c.Raw < 0 {
		return 0, false
	}
	return c.Raw, true
}

// JudgePage judges one page of a list by pager.Judge, the rule the All
// iterators of both clients follow: it returns the page to ask for next (0
// when this is the last) and the count's verdict. page and size are what
// the call asked for, received the items the answer held (those dropped
// whole included), and total the answer's totalCount, if any.
func JudgePage(page, size, received int, total *int) (next int, count ListCount) {
	count.Sent = total != nil
	if total != nil {
		count.Raw = *total
	}
	v := pager.Judge(page, size, received, count.Raw, count.Sent)
	count.Contradicted = v.CountContradicted
	return v.Next, count
}

// Total is the service's count of all items of a list, and whether it sent
// one; false for a call that is not a list.
func (r *Response) Total() (int, bool) { return r.count.Total() }

// TotalContradicted reports whether the page's items contradict the count
// it carries: more items than the count, a last page that ends before it,
// or a negative count. An All iterator reads on to the last page whatever
// the count says, and logs a warning the first time a page contradicts it.
func (r *Response) TotalContradicted() bool { return r.count.Contradicted }

// CountOf is the list count r carries. It is a function, not a method, so
// that it stays out of the public Response's method set.
func CountOf(r *Response) ListCount { return r.count }

// SetCount sets the list count r carries.
func SetCount(r *Response, c ListCount) { r.count = c }

// Page is one page of a list (see edapp.Page).
type Page[T any] struct {
	Items    []T
	NextPage int
	Response *Response

	count    ListCount
	received int    // items in the answer, those dropped whole included
	bodyHash uint64 // of the answer's body: a page the same as the last one is a loop

	warnCount func(context.Context) // logs that the items contradict the count
}

// Total is the service's count of all items of the list, and whether it
// sent one.
func (p *Page[T]) Total() (int, bool) { return p.count.Total() }

// NewPage makes the page that l, decoded from the answer resp, is: asked
// for as page of size items, with bodyHash its body's digest. It judges the
// page by JudgePage and sets resp's count.
func NewPage[T any](l pager.List[T], resp *Response, page, size int, bodyHash uint64) *Page[T] {
	p := &Page[T]{Items: l.Items, Response: resp, bodyHash: bodyHash}
	p.received = len(l.Items) + pager.DroppedWhole(resp.Dropped)
	p.NextPage, p.count = JudgePage(page, size, p.received, l.TotalCount)
	SetCount(resp, p.count)
	return p
}

// SetWarnCount sets what logs that p's items contradict its count.
func SetWarnCount[T any](p *Page[T], warn func(context.Context)) { p.warnCount = warn }

// WarnCount is what logs that p's items contradict its count; nil when
// they do not.
func WarnCount[T any](p *Page[T]) func(context.Context) { return p.warnCount }

// WalkResult is p as a walk's page.
func WalkResult[T any](p *Page[T]) *pager.Result[T] {
	return &pager.Result[T]{Items: p.Items, Received: p.received, Total: p.count.Raw, HasTotal: p.count.Sent, BodyHash: p.bodyHash}
}

// ListOptions pages a list (see edapp.ListOptions, its alias): both
// clients' lists take a 1-based page and a pageSize.
type ListOptions struct {
	Page     int `url:"page,omitempty"`     // 1-based
	PageSize int `url:"pageSize,omitempty"` // service maximum 1000
}

// listOptions lets the generic helpers reach the ListOptions embedded in
// an operation's own options. Unexported, it is promoted to every struct
// that embeds ListOptions, in any package, and adds nothing to the public
// type's method set.
func (o *ListOptions) listOptions() *ListOptions { return o }

// Paged is a pointer to an option struct that embeds ListOptions (or to
// ListOptions itself).
type Paged[O any] interface {
	*O
	listOptions() *ListOptions
}

// ListOptionsOf is the ListOptions that o embeds.
func ListOptionsOf[O any, PO Paged[O]](o PO) *ListOptions { return PO(o).listOptions() }

// ListOptionsIn is the ListOptions that query, a list call's options,
// embeds; false when it embeds none or is nil.
func ListOptionsIn(query any) (*ListOptions, bool) {
	q, ok := query.(interface{ listOptions() *ListOptions })
	if !ok || IsNil(q) {
		return nil, false
	}
	return q.listOptions(), true
}
