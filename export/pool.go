package export

import (
	"context"
	"sync"
	"sync/atomic"
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
