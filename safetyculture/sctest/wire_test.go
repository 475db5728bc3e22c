package sctest_test

import (
	"flag"
	"testing"

	"github.com/edapp-go/edapp/internal/wiregen"
)

var update = flag.Bool("update", false, "rewrite wire_gen.go from wire.shapes")

// TestWireGenIsCurrent fails when wire_gen.go is stale: edited by hand,
// or wire.shapes changed without go generate.
func TestWireGenIsCurrent(t *testing.T) {
	t.Parallel()
	if err := wiregen.Check("sctest", ".", *update); err != nil {
		t.Error(err)
	}
}
