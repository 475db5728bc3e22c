package sqldest

import (
	"encoding/json"
	"testing"
)

// TestSeenJSON: the keys a walk saw are stored as json.Marshal writes
// them, byte for byte.
func TestSeenJSON(t *testing.T) {
	t.Parallel()
	for _, seen := range [][][]string{
		nil,
		{},
		{nil},
		{{}},
		{{"u1", "edapp"}, {"<odd>&\"key\"", "\xff\u2028"}},
		{{"a"}, nil, {"b", "c", "d"}},
	} {
		want, _ := json.Marshal(seen)
		if got := seenJSON(seen); string(got) != string(want) {
			t.Errorf("seenJSON(%q) = %s, want %s", seen, got, want)
		}
	}
}

func FuzzSeenJSON(f *testing.F) {
	f.Add("id", "source", "x")
	f.Add("<&>", "\xfe", "")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		seen := [][]string{{a, b}, {c}, {}}
		want, _ := json.Marshal(seen)
		if got := seenJSON(seen); string(got) != string(want) {
			t.Fatalf("seenJSON(%q) = %s, want %s", seen, got, want)
		}
	})
}
