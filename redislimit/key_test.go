package redislimit

import (
	"strings"
	"testing"
)

func TestKeyForToken(t *testing.T) {
	const token = "tok_9f2c1e7a4b3d" // a made-up token
	k := KeyForToken(token)
	// Pinned: a change would split the budget between processes of two
	// versions that run on one token.
	if want := "edapp:budget:ddb6f7a2ff4de25fe827d5499abda52a"; k != want {
		t.Errorf("KeyForToken = %q, want %q", k, want)
	}
	if again := KeyForToken(token); again != k {
		t.Errorf("KeyForToken is not stable: %q, then %q", k, again)
	}
	if other := KeyForToken(token + "x"); other == k {
		t.Errorf("two tokens share the key %q", k)
	}
	for _, part := range []string{token, token[4:], token[:8], "9f2c1e7a"} {
		if strings.Contains(k, part) {
			t.Errorf("KeyForToken = %q shows %q of the token", k, part)
		}
	}
}
