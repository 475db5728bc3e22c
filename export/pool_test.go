package export

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestPoolEnter: the first walk enters at once; the next waits for the
// first answer (open); a walk whose run ended does not enter.
func TestPoolEnter(t *testing.T) {
	t.Parallel()
	p := newPool(4)
	ctx := context.Background()
	if err := p.enter(ctx); err != nil {
		t.Fatalf("first walk: %v", err)
	}
	entered := enterLater(t, p, ctx, "a second walk entered before the first answer")
	p.open()
	if err := <-entered; err != nil {
		t.Errorf("second walk after open: %v", err)
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if err := p.enter(ended); err == nil {
		t.Error("a walk entered after the run ended")
	}
}

// TestPoolHalt: once a run is halted (StopOn), open lets no walk in; the
// walks waiting at the gate end with their contexts.
func TestPoolHalt(t *testing.T) {
	t.Parallel()
	p := newPool(4)
	if err := p.enter(context.Background()); err != nil {
		t.Fatalf("first walk: %v", err)
	}
	p.halt()
	p.open()
	ctx, cancel := context.WithCancel(context.Background())
	entered := enterLater(t, p, ctx, "a walk entered a halted pool")
	cancel()
	if err := <-entered; !errors.Is(err, context.Canceled) {
		t.Errorf("the waiting walk ended with %v, want context.Canceled", err)
	}
}

// enterLater starts a walk's p.enter(ctx), fails the test with msg if it
// returns within 20 ms, and returns the channel its result comes on.
func enterLater(t *testing.T, p *pool, ctx context.Context, msg string) <-chan error {
	t.Helper()
	entered := make(chan error, 1)
	go func() { entered <- p.enter(ctx) }()
	select {
	case err := <-entered:
		t.Fatalf("%s: %v", msg, err)
	case <-time.After(20 * time.Millisecond):
	}
	return entered
}
