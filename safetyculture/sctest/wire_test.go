package sctest_test

import (
	"testing"

	"github.com/edapp-go/edapp/internal/wiregen"
)

// TestWireGenIsCurrent fails when wire_gen.go is stale: edited by hand,
// or wire.shapes changed without go generate.
func TestWireGenIsCurrent(t *testing.T) {
	t.Parallel()
	if err := wiregen.Check("sctest", "."); err != nil {
		t.Error(err)
	}
}
