package export

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

// holder is a goroutine that waits for a rankedLock for a kind (""
// before any kind), says so on took, and holds it until release closes.
type holder struct {
	release chan struct{}
}

// wait starts a holder for name and returns once it waits on l, which
// must be held.
func wait(l *rankedLock, name string, took chan<- string) *holder {
	h := &holder{release: make(chan struct{})}
	l.mu.Lock()
	n := len(l.waiting)
	l.mu.Unlock()
	go func() {
		var k *Kind
		if name != "" {
			k = &Kind{Name: name}
		}
		release := l.acquire(k)
		took <- name
		<-h.release
		release()
	}()
	for queued := false; !queued; runtime.Gosched() {
		l.mu.Lock()
		queued = len(l.waiting) > n
		l.mu.Unlock()
	}
	return h
}

// TestRankedLock: waiters take the lock by their kinds' ranks, whatever
// order they came in; a call before any kind (the budget's) goes first.
func TestRankedLock(t *testing.T) {
	t.Parallel()
	l := &rankedLock{rank: map[string]int{"users": 0, "groups": 1, "attempts": 2}}
	release := l.acquire(&Kind{Name: "attempts"})
	took := make(chan string, 4)
	var hs []*holder
	for _, name := range []string{"attempts", "groups", "users", ""} {
		hs = append(hs, wait(l, name, took))
	}
	for _, h := range hs {
		close(h.release)
	}
	release()
	for _, want := range []string{"", "users", "groups", "attempts"} {
		if got := <-took; got != want {
			t.Fatalf("took the lock: %q, want %q", got, want)
		}
	}
}

// TestRankedLockBoundsTheWait: a waiter that later, earlier-ranked ones
// went before maxPassed times goes next.
func TestRankedLockBoundsTheWait(t *testing.T) {
	t.Parallel()
	l := &rankedLock{rank: map[string]int{"users": 0, "attempts": 2}}
	took := make(chan string, maxPassed+2)
	release := l.acquire(&Kind{Name: "users"})
	attempts := wait(l, "attempts", took)
	for range maxPassed {
		u := wait(l, "users", took)
		release()
		if got := <-took; got != "users" {
			t.Fatalf("%s took the lock before it was passed %d times", got, maxPassed)
		}
		release = func() { close(u.release) }
	}
	last := wait(l, "users", took)
	release()
	got := <-took
	if got != "attempts" {
		t.Errorf("after %d passes %s took the lock, want attempts", maxPassed, got)
	}
	close(attempts.release)
	close(last.release)
	<-took
}

// TestRankedLockPlaces: a lock of size places lets that many hold it at
// once; the next waits, and takes the first place freed.
func TestRankedLockPlaces(t *testing.T) {
	t.Parallel()
	l := &rankedLock{rank: map[string]int{"users": 0, "groups": 1}, size: 2}
	first := l.acquire(&Kind{Name: "groups"})
	second := l.acquire(&Kind{Name: "groups"})
	took := make(chan string, 2)
	groups := wait(l, "groups", took)
	users := wait(l, "users", took)
	first()
	if got := <-took; got != "users" {
		t.Fatalf("the freed place went to %s, want users", got)
	}
	second()
	if got := <-took; got != "groups" {
		t.Fatalf("the next freed place went to %s, want groups", got)
	}
	close(users.release)
	close(groups.release)
}

// TestRankedLockAcquireCtx: a waiter whose ctx ends gives up with its
// error and leaves the queue; the place it waited for goes to the next.
func TestRankedLockAcquireCtx(t *testing.T) {
	t.Parallel()
	l := &rankedLock{size: 1}
	release := l.acquire(nil)
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() {
		_, err := l.acquireCtx(ctx, &Kind{Name: "users"})
		gaveUp <- err
	}()
	for queued := false; !queued; runtime.Gosched() {
		l.mu.Lock()
		queued = len(l.waiting) == 1
		l.mu.Unlock()
	}
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("acquireCtx: %v, want context.Canceled", err)
	}
	if n := len(l.waiting); n != 0 {
		t.Fatalf("%d waiters left after the only one gave up", n)
	}
	release()
	again, err := l.acquireCtx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	again()
	if l.held != 0 {
		t.Errorf("held %d after every place was released, want 0", l.held)
	}
}

// endSteps is a destination whose End takes two steps, and yields its
// turn between them; each call says what it did on did.
type endSteps struct {
	Destination
	did       chan<- string
	firstStep <-chan struct{} // End's first step waits for it
}

func (d *endSteps) End(_ context.Context, k *Kind, _ *KindResult, yield func()) error {
	<-d.firstStep
	d.did <- "end " + k.Name + ": first step"
	yield()
	d.did <- "end " + k.Name + ": second step"
	return nil
}

func (d *endSteps) Write(_ context.Context, b *Batch) error {
	d.did <- "write " + b.Kind.Name
	return nil
}

// TestSerialDestEndYields: a write that waits for the destination while a
// kind ends goes between the end's steps, not after them all.
func TestSerialDestEndYields(t *testing.T) {
	t.Parallel()
	ks := []Kind{{Name: "attempts"}, {Name: "lesson_progress_events"}}
	did, firstStep := make(chan string, 3), make(chan struct{})
	s := serialize([]Destination{&endSteps{did: did, firstStep: firstStep}}, ks)[0].(*serialDest)
	ended := make(chan error, 1)
	go func() { ended <- s.End(context.Background(), &ks[0], &KindResult{}, func() {}) }()
	for held := false; !held; runtime.Gosched() { // End holds the lock
		s.lock.mu.Lock()
		held = s.lock.held > 0
		s.lock.mu.Unlock()
	}
	go s.Write(context.Background(), &Batch{Kind: &ks[1]})
	for queued := false; !queued; runtime.Gosched() {
		s.lock.mu.Lock()
		queued = len(s.lock.waiting) > 0
		s.lock.mu.Unlock()
	}
	close(firstStep)
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	want := []string{"end attempts: first step", "write lesson_progress_events", "end attempts: second step"}
	for _, w := range want {
		if got := <-did; got != w {
			t.Fatalf("did %q, want %q (in the order %q)", got, w, want)
		}
	}
}
