package edapp

import (
	"context"
	"testing"
)

// TestObserverUnsetCostsNothing: a client with no callback set has no
// observer at all, so no call pays for one (BenchmarkGetUserObserver
// measures the allocations side by side).
func TestObserverUnsetCostsNothing(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]Option{
		"no option":      nil,
		"empty Observer": {WithObserver(Observer{})},
		"a later WithObserver(Observer{}) turns it off": {WithObserver(Observer{CallEnd: func(context.Context, CallEvent) {}}), WithObserver(Observer{})},
	} {
		c, err := NewClient("t", opts...)
		if err != nil {
			t.Fatal(err)
		}
		if c.core.HasObserver() {
			t.Errorf("%s: the client has an observer", name)
		}
	}
	c, err := NewClient("t", WithObserver(Observer{Wait: func(context.Context, WaitEvent) {}}))
	if err != nil || !c.core.HasObserver() {
		t.Errorf("one callback set: no observer, err %v", err)
	}
}
