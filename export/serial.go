package export

import (
	"context"
	"slices"
	"sync"
	"time"
)

// serialize makes each destination take one call at a time: the kinds'
// goroutines share it, the kinds earlier in ks first (see rankedLock).
func serialize(dests []Destination, ks []Kind) []Destination {
	rank := make(map[string]int, len(ks))
	for i, k := range ks {
		rank[k.Name] = i
	}
	out := make([]Destination, len(dests))
	for i, d := range dests {
		out[i] = &serialDest{lock: rankedLock{rank: rank}, d: d}
		if r, ok := d.(interface{ rankKinds(map[string]int) }); ok {
			r.rankKinds(rank)
		}
	}
	return out
}

type serialDest struct {
	lock rankedLock
	d    Destination
}

func (s *serialDest) Resume(ctx context.Context, k *Kind, r RunInfo) (Plan, error) {
	defer s.lock.acquire(k)()
	return s.d.Resume(ctx, k, r)
}

func (s *serialDest) Begin(ctx context.Context, k *Kind, p Plan) error {
	defer s.lock.acquire(k)()
	return s.d.Begin(ctx, k, p)
}

// Write runs beside the other calls for a destination that says it may.
func (s *serialDest) Write(ctx context.Context, b *Batch) error {
	if p, ok := s.d.(interface{ writesInParallel() bool }); ok && p.writesInParallel() {
		return s.d.Write(ctx, b)
	}
	defer s.lock.acquire(b.Kind)()
	return s.d.Write(ctx, b)
}

// End lets the calls waiting for the destination go between the steps of
// an end that takes several (yieldTurn): a database builds a kind's
// indexes at its end, one after another.
func (s *serialDest) End(ctx context.Context, k *Kind, r *KindResult) error {
	release := s.lock.acquire(k)
	defer func() { release() }()
	ctx = context.WithValue(ctx, turnKey{}, func() {
		release()
		release = s.lock.acquire(k)
	})
	return s.d.End(ctx, k, r)
}

// turnKey is the context key of a serialDest's End's yield.
type turnKey struct{}

// yieldTurn lets the calls waiting for the destination go first, and
// takes it back after them, within a serialDest's End; elsewhere it does
// nothing.
func yieldTurn(ctx context.Context) {
	if yield, ok := ctx.Value(turnKey{}).(func()); ok {
		yield()
	}
}

// SavedBudget and SaveBudget pass a BudgetKeeper's calls on, under the
// same lock (before any kind's call); for another destination they keep
// nothing.
func (s *serialDest) SavedBudget(ctx context.Context) ([]time.Time, error) {
	k, ok := s.d.(BudgetKeeper)
	if !ok {
		return nil, nil
	}
	defer s.lock.acquire(nil)()
	return k.SavedBudget(ctx)
}

func (s *serialDest) SaveBudget(ctx context.Context, admissions []time.Time) error {
	k, ok := s.d.(BudgetKeeper)
	if !ok {
		return nil
	}
	defer s.lock.acquire(nil)()
	return k.SaveBudget(ctx, admissions)
}

// rankedLock is a mutex, or a semaphore of size places, whose waiters
// take it by their kinds' ranks, the earliest first. The kinds plan at
// once, and a database plans them one at a time, a transaction each: so
// the kinds listed first (users, the longest walk of a re-run, which
// group_members waits for) start their fetches first, and their last
// writes at the end of a run go before the others'. A waiter that later
// ones went before maxPassed times goes next, so that a kind with batches
// always ready cannot hold the others back for its whole run.
type rankedLock struct {
	rank    map[string]int
	size    int // how many hold it at once; 0: one
	mu      sync.Mutex
	held    int
	waiting []*rankedWaiter // in the order they came
}

type rankedWaiter struct {
	rank   int
	passed int
	ready  chan struct{}
}

// maxPassed bounds how many times later waiters go before one.
const maxPassed = 16

// acquire waits for the lock, for k (nil: before any kind), and returns
// its release.
func (l *rankedLock) acquire(k *Kind) (release func()) {
	release, _ = l.acquireCtx(context.Background(), k)
	return release
}

// acquireCtx is acquire, which gives up with ctx's error when ctx ends
// first.
func (l *rankedLock) acquireCtx(ctx context.Context, k *Kind) (release func(), err error) {
	l.mu.Lock()
	rank := -1
	if k != nil {
		rank = l.rank[k.Name]
	}
	if l.held < max(l.size, 1) {
		l.held++
		l.mu.Unlock()
		return l.release, nil
	}
	w := &rankedWaiter{rank: rank, ready: make(chan struct{})}
	l.waiting = append(l.waiting, w)
	l.mu.Unlock()
	select {
	case <-w.ready:
		return l.release, nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := slices.Index(l.waiting, w); i >= 0 {
		l.waiting = slices.Delete(l.waiting, i, i+1)
	} else {
		l.handOn() // handed to w as ctx ended: to the next, then
	}
	return nil, ctx.Err()
}

// setRank sets the kinds' ranks.
func (l *rankedLock) setRank(rank map[string]int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rank = rank
}

// release hands the place to the next waiter, or frees it.
func (l *rankedLock) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.handOn()
}

// handOn is release, with mu held.
func (l *rankedLock) handOn() {
	if len(l.waiting) == 0 {
		l.held--
		return
	}
	next := l.next()
	for _, w := range l.waiting[:next] {
		w.passed++ // came before next, which goes first
	}
	close(l.waiting[next].ready)
	l.waiting = slices.Delete(l.waiting, next, next+1)
}

// next is the index of the waiter to go next: the first that later ones
// went before maxPassed times, else the first of the earliest rank.
func (l *rankedLock) next() int {
	best := 0
	for i, w := range l.waiting {
		if w.passed >= maxPassed {
			return i
		}
		if w.rank < l.waiting[best].rank {
			best = i
		}
	}
	return best
}
