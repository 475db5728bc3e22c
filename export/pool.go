package export

import (
	"context"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/edapp-go/edapp"
)

// pool is the export's requests in flight, across every kind and parent:
// each request holds one of its slots while it is sent and answered
// (edapp.WithInFlight), so the run never has more than the pool's size in
// flight, and the walks' pages queue for the slots together: a long walk
// gets every slot the others leave, whenever it started.
//
// The first walk of a run goes alone until its first page answers (open):
// a token the service refuses, or a host that does not answer, costs one
// request, and StopOn ends the run (halt) before the other kinds send any.
type pool struct {
	slots   chan struct{}
	started atomic.Bool
	gate    chan struct{}
	once    sync.Once
}

func newPool(n int) *pool { return &pool{slots: make(chan struct{}, n), gate: make(chan struct{})} }

// open lets the walks after the first one start, unless halt came first.
func (p *pool) open() { p.once.Do(func() { close(p.gate) }) }

// halt keeps the gate shut for good, when StopOn ends the run: cancelling
// the run reaches the kinds' contexts one at a time, so a kind already
// ended by it could open the gate to a walk whose context is not ended
// yet, and that walk would send a request the run does not want.
func (p *pool) halt() { p.once.Do(func() {}) }

// enter lets the run's first walk start at once, and the others once the
// first has an answer (open).
func (p *pool) enter(ctx context.Context) error {
	if p.started.Swap(true) {
		select {
		case <-p.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err() // ended by StopOn while the gate was shut
}

// seqOf is what a walk ranges over: an SDK iterator.
type seqOf[T any] = iter.Seq2[T, error]

// walker is one walk: the request options that make its pages take their
// slots from the pool, and the Response its pages are counted from.
type walker struct {
	s    *stream
	p    *pool
	resp *edapp.Response
	opts []edapp.RequestOption
}

// walker starts a walk whose requests count to s, as many of its pages in
// flight as the pool's slots allow.
func (x *fetcher) walker(ctx context.Context, s *stream) (*walker, error) {
	if err := x.pool.enter(ctx); err != nil {
		return nil, err
	}
	r := new(edapp.Response)
	return &walker{s: s, p: x.pool, resp: r, opts: []edapp.RequestOption{
		edapp.WithBulk(), edapp.WithInFlight(x.pool.slots), edapp.WithPageConcurrency(x.concurrency), edapp.WithResponseInto(r),
	}}, nil
}

// each walks seq, which must carry w.opts, calling fn on each item (nil:
// send it to the stream), counting each page as it comes, an empty one
// and one that failed included.
func each[T any](w *walker, seq seqOf[T], fn func(T) error) error {
	if fn == nil {
		fn = func(v T) error { return w.s.emit(v) }
	}
	for v, err := range seq {
		w.s.onPage(w.resp)
		if err != nil {
			return err
		}
		w.p.open()
		if err := fn(v); err != nil {
			return err
		}
	}
	w.s.onPage(w.resp) // a list with no items still had a page
	w.p.open()
	return nil
}

// one sends one request that is not a walk, counted to w's stream, in
// one of the pool's slots.
func one[T any](w *walker, call func(o []edapp.RequestOption) (T, error)) (T, error) {
	v, err := call(w.opts)
	w.s.onPage(w.resp)
	if err == nil {
		w.p.open()
	}
	return v, err
}

type kindKey struct{}

// KindFromContext returns the kind whose fetch made a call, from the
// context an [edapp.Observer] callback gets: the engine runs each kind's
// requests with a context that carries its name.
func KindFromContext(ctx context.Context) (string, bool) {
	k, ok := ctx.Value(kindKey{}).(string)
	return k, ok
}

func withKind(ctx context.Context, kind string) context.Context {
	return context.WithValue(ctx, kindKey{}, kind)
}

// listAll walks a single list, sending each item to s after seen (when
// not nil) has looked at it.
func listAll[T any](ctx context.Context, x *fetcher, s *stream, list func(o []edapp.RequestOption) seqOf[T], seen func(T)) error {
	w, err := x.walker(ctx, s)
	if err != nil {
		return err
	}
	return each(w, list(w.opts), func(v T) error {
		if seen != nil {
			seen(v)
		}
		return s.emit(v)
	})
}

// oneEach sends, for each parent, the records of one request that lists
// them (list), each as row makes it.
func oneEach[T any](ctx context.Context, x *fetcher, s *stream, parents []string,
	list func(context.Context, string, ...edapp.RequestOption) ([]T, error), row func(parent string, v T) any) error {
	return x.fanOut(ctx, s, parents, func(ctx context.Context, id string) error {
		w, err := x.walker(ctx, s)
		if err != nil {
			return err
		}
		items, err := one(w, func(o []edapp.RequestOption) ([]T, error) { return list(ctx, id, o...) })
		for _, v := range items {
			if err := s.emit(row(id, v)); err != nil {
				return err
			}
		}
		return err
	})
}
