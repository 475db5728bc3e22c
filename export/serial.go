package export

import (
	"context"
	"slices"
	"sync"
	"time"
)

// serialize makes each destination take one call at a time: the kinds'
// goroutines share it, the kinds earlier in ks first (see rankedLock). A
// ParallelDestination's Writes go beside its other calls instead, up to
// its MaxParallelWrites at once, by the same ranks.
func serialize(dests []Destination, ks []Kind) []Destination {
	rank := make(map[string]int, len(ks))
	for i, k := range ks {
		rank[k.Name] = i
	}
	out := make([]Destination, len(dests))
	for i, d := range dests {
		s := &serialDest{lock: rankedLock{rank: rank}, d: d}
		if p, ok := d.(ParallelDestination); ok && p.MaxParallelWrites() > 1 {
			s.writes = &rankedLock{rank: rank, size: p.MaxParallelWrites()}
		}
		out[i] = s
	}
	return out
}

type serialDest struct {
	lock   rankedLock
	writes *rankedLock // a ParallelDestination's places for Writes; nil: Writes take lock
	d      Destination
}

func (s *serialDest) Resume(ctx context.Context, k *Kind, r RunInfo) (Plan, error) {
	defer s.lock.acquire(k)()
	return s.d.Resume(ctx, k, r)
}

func (s *serialDest) Begin(ctx context.Context, k *Kind, p Plan) error {
	defer s.lock.acquire(k)()
	return s.d.Begin(ctx, k, p)
}

// Write runs beside the other calls for a ParallelDestination.
func (s *serialDest) Write(ctx context.Context, b *Batch) error {
	if s.writes != nil {
		defer s.writes.acquire(b.Kind)()
		return s.d.Write(ctx, b)
	}
	defer s.lock.acquire(b.Kind)()
	return s.d.Write(ctx, b)
}

// End lets the calls waiting for the destination go between the steps of
// an end that takes several, each time it calls yield: a database builds
// a kind's indexes at its end, one after another.
func (s *serialDest) End(ctx context.Context, k *Kind, r *KindResult, yield func()) error {
	release := s.lock.acquire(k)
	defer func() { release() }()
	return s.d.End(ctx, k, r, func() {
		yield()
		release()
		release = s.lock.acquire(k)
	})
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
