package export

import (
	"context"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/edapp-go/edapp"
)

// pool is the export's requests in flight, across every kind and parent:
// a walk holds one slot for each request it may have in flight (its page
// concurrency), so the run never has more than the pool's size.
//
// The first walk of a run goes alone until its first page answers (open):
// a token the service refuses, or a host that does not answer, costs one
// request, and StopOn ends the run before the other kinds send any.
type pool struct {
	slots   chan struct{}
	started atomic.Bool
	gate    chan struct{}
	once    sync.Once
}

func newPool(n int) *pool { return &pool{slots: make(chan struct{}, n), gate: make(chan struct{})} }

// open lets the walks after the first one start.
func (p *pool) open() { p.once.Do(func() { close(p.gate) }) }

// take waits for one slot, then takes up to want-1 more that are free:
// a long walk started while the pool is idle fetches pages in parallel,
// one started while it is busy fetches page after page.
func (p *pool) take(ctx context.Context, want int) (int, error) {
	if p.started.Swap(true) {
		select {
		case <-p.gate:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err // ended by StopOn while the gate was shut
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	n := 1
	for n < want {
		select {
		case p.slots <- struct{}{}:
			n++
		default:
			return n, nil
		}
	}
	return n, nil
}

func (p *pool) give(n int) {
	for range n {
		<-p.slots
	}
}

// seqOf is what a walk ranges over: an SDK iterator.
type seqOf[T any] = iter.Seq2[T, error]

// walker is one walk's share of the pool: the request options that keep
// its requests within the slots it holds, and the Response its pages are
// counted from.
type walker struct {
	s     *stream
	p     *pool
	n     int
	resp  *edapp.Response
	opts  []edapp.RequestOption
	ended bool
}

// walker takes up to want slots for a walk whose requests count to s.
// each gives them back.
func (x *fetcher) walker(ctx context.Context, s *stream, want int) (*walker, error) {
	n, err := x.pool.take(ctx, want)
	if err != nil {
		return nil, err
	}
	r := new(edapp.Response)
	return &walker{s: s, p: x.pool, n: n, resp: r,
		opts: []edapp.RequestOption{edapp.WithBulk(), edapp.WithPageConcurrency(n), edapp.WithResponseInto(r)}}, nil
}

func (w *walker) release() {
	if !w.ended {
		w.ended = true
		w.p.give(w.n)
	}
}

// each walks seq, which must carry w.opts, calling fn on each item (nil:
// send it to the stream), counting each page as it comes, an empty one
// and one that failed included, then gives the walk's slots back.
func each[T any](w *walker, seq seqOf[T], fn func(T) error) error {
	defer w.release()
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

// one sends one request that is not a walk, counted to w's stream, within
// w's slots.
func one[T any](w *walker, call func(o []edapp.RequestOption) (T, error)) (T, error) {
	defer w.release()
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

// listAll walks a single list with as many of the pool's slots as are
// free (up to the concurrency), sending each item to s after seen (when
// not nil) has looked at it.
func listAll[T any](ctx context.Context, x *fetcher, s *stream, list func(o []edapp.RequestOption) seqOf[T], seen func(T)) error {
	w, err := x.walker(ctx, s, x.concurrency)
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
