package testskip

import (
	"slices"
	"testing"
)

// TestSkipRecordsTheTestAndItsReason: outside CI a test that misses a tool
// skips, and the list holds its name under the reason given.
func TestSkipRecordsTheTestAndItsReason(t *testing.T) {
	t.Setenv("CI", "")
	l := New("example.com/pkg")
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) { l.Skip(t, "no tool") })
	}
	t.Run("c", func(t *testing.T) { l.Skip(t, "no other tool") })
	if !slices.Equal(l.reasons, []string{"no tool", "no other tool"}) ||
		!slices.Equal(l.tests["no tool"], []string{t.Name() + "/a", t.Name() + "/b"}) {
		t.Errorf("reasons %q, tests %q", l.reasons, l.tests)
	}
}
