package placeholder

import "testing"

func TestNumbered(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"a = ? AND b = ?": "a = $1 AND b = $2",
		"no placeholders": "no placeholders",
		"é = ?, ü IN (?)": "é = $1, ü IN ($2)",
	} {
		if got := Numbered(q); got != want {
			t.Errorf("Numbered(%q) = %q, want %q", q, got, want)
		}
	}
}
