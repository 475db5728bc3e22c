// Package sdkwalk walks the SDKs' lists for the export's sources: each
// request in a place of the run's pool, each page counted to its kind.
package sdkwalk

import (
	"context"
	"iter"
	"net/http"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
)

// Seq is what a walk ranges over: an SDK iterator.
type Seq[T any] = iter.Seq2[T, error]

// Walker is one walk: the request options that make its pages take their
// places from the run's pool, and the Response its pages are counted
// from.
type Walker struct {
	f    *export.Fetch
	resp *edapp.Response
	// Opts are the options every request of the walk carries.
	Opts []edapp.RequestOption
}

// Start starts a walk whose requests count to f, as many of its pages in
// flight as the pool's places allow, once the run lets it (Fetch.Enter).
// A walk asks for one page more than the pool has places: an iterator
// holds the page its consumer is taking, so with only as many pages as
// places a walk alone (the run's last) would leave a place idle each time
// it hands a page on; the pool still bounds the requests in flight.
func Start(ctx context.Context, f *export.Fetch) (*Walker, error) {
	if err := f.Enter(ctx); err != nil {
		return nil, err
	}
	r := new(edapp.Response)
	return &Walker{f: f, resp: r, Opts: []edapp.RequestOption{
		edapp.WithBulk(), edapp.WithInFlight(f.InFlight()), edapp.WithPageConcurrency(f.Concurrency() + 1), edapp.WithResponseInto(r),
	}}, nil
}

// count counts the page resp holds, once: an iterator fills resp before
// the first item of each page, so a resp with Attempts set is a page not
// counted yet.
func (w *Walker) count() {
	resp := w.resp
	if resp.Attempts == 0 {
		return
	}
	total, counted := resp.Total()
	w.f.Count(export.Answer{Attempts: resp.Attempts, Waited: resp.Waited, Dropped: len(resp.Dropped), Refused: resp.DroppedRecords,
		Date: serviceTime(resp), Total: total, Counted: counted})
	resp.Attempts, resp.DroppedRecords = 0, nil
}

// serviceTime is the time the service answered, from its Date header, so
// that a skewed local clock moves no cursor; zero when it sent none.
func serviceTime(resp *edapp.Response) (t time.Time) {
	d, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return t
	}
	return d.UTC()
}

// Each walks seq, which must carry w.Opts, calling fn on each item (nil:
// emit it), counting each page as it comes, an empty one and one that
// failed included.
func Each[T any](w *Walker, seq Seq[T], fn func(T) error) error {
	if fn == nil {
		fn = func(v T) error { return export.Emit(w.f, v) }
	}
	for v, err := range seq {
		w.count()
		if err != nil {
			return err
		}
		w.f.Answered()
		if err := fn(v); err != nil {
			return err
		}
	}
	w.count() // a list with no items still had a page
	w.f.Answered()
	return nil
}

// One sends one request that is not a walk, counted to w's kind, in one
// of the pool's places.
func One[T any](w *Walker, call func(o []edapp.RequestOption) (T, error)) (T, error) {
	v, err := call(w.Opts)
	w.count()
	if err == nil {
		w.f.Answered()
	}
	return v, err
}

// List walks a single list, emitting each item after seen (when not nil)
// has looked at it.
func List[T any](ctx context.Context, f *export.Fetch, list func(o []edapp.RequestOption) Seq[T], seen func(T)) error {
	w, err := Start(ctx, f)
	if err != nil {
		return err
	}
	return Each(w, list(w.Opts), func(v T) error {
		if seen != nil {
			seen(v)
		}
		return export.Emit(f, v)
	})
}

// PerParent walks, for each parent, the list walk makes of it, each item
// emitted as row makes it.
func PerParent[T, R any](ctx context.Context, f *export.Fetch, parents []string, walk func(ctx context.Context, parent string, o []edapp.RequestOption) Seq[T], row func(parent string, v T) R) error {
	return f.EachParent(ctx, parents, func(ctx context.Context, id string) error {
		w, err := Start(ctx, f)
		if err != nil {
			return err
		}
		return Each(w, walk(ctx, id, w.Opts), func(v T) error { return export.Emit(f, row(id, v)) })
	})
}

// OneEach emits, for each parent, the records of one request that lists
// them (list), each as row makes it.
func OneEach[T, R any](ctx context.Context, f *export.Fetch, parents []string,
	list func(context.Context, string, ...edapp.RequestOption) ([]T, error), row func(parent string, v T) R) error {
	return f.EachParent(ctx, parents, func(ctx context.Context, id string) error {
		w, err := Start(ctx, f)
		if err != nil {
			return err
		}
		items, err := One(w, func(o []edapp.RequestOption) ([]T, error) { return list(ctx, id, o...) })
		for _, v := range items {
			if err := export.Emit(f, row(id, v)); err != nil {
				return err
			}
		}
		return err
	})
}
