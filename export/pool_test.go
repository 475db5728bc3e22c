package export

import (
	"context"
	"testing"
	"time"
)

// TestPoolTake: the first walk takes the free slots it wants; the next
// waits for the first answer (open), then takes what is left, at least
// one; a walk whose run ended takes none.
func TestPoolTake(t *testing.T) {
	p := newPool(4)
	ctx := context.Background()
	if n, err := p.take(ctx, 3); n != 3 || err != nil {
		t.Fatalf("first take: %d, %v", n, err)
	}
	got := make(chan int)
	go func() {
		n, _ := p.take(ctx, 4)
		got <- n
	}()
	select {
	case n := <-got:
		t.Fatalf("a second walk took %d slots before the first answer", n)
	case <-time.After(20 * time.Millisecond):
	}
	p.open()
	if n := <-got; n != 1 {
		t.Errorf("second take: %d slots, want the 1 left", n)
	}
	p.give(3)
	if n, _ := p.take(ctx, 8); n != 3 {
		t.Errorf("third take: %d slots, want the 3 free", n)
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if n, err := p.take(ended, 1); n != 0 || err == nil {
		t.Errorf("take after the run ended: %d, %v", n, err)
	}
}
