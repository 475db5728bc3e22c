package jsonobj

import (
	"encoding/json"
	"testing"
)

// TestAppendString: AppendString writes json.Marshal's bytes, for plain
// strings and for those encoding/json escapes.
func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "abc", "ünïcode ✓", "a\"b", `back\slash`, "<b>&amp;</b>", "tab\there", "\x00\x1f\x7f", "\u2028\u2029", "bad \xff utf-8", "😀"} {
		want, _ := json.Marshal(s)
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("AppendString(%q) = %s, want x%s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("plain")
	f.Add("<\u2028\xff>")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}
