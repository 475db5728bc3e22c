package redislimit

import (
	"strings"
	"testing"
)

func TestKeyForToken(t *testing.T) {
	t.Parallel()
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

func TestKeyForRoute(t *testing.T) {
	t.Parallel()
	const token = "tok_9f2c1e7a4b3d" // a made-up token
	k := KeyForRoute(token, "GET /training/courses/v1")
	if !strings.HasPrefix(k, "edapp:budget:") || len(k) != len("edapp:budget:")+32 {
		t.Errorf("KeyForRoute = %q", k)
	}
	if again := KeyForRoute(token, "GET /training/courses/v1"); again != k {
		t.Errorf("KeyForRoute is not stable: %q, then %q", k, again)
	}
	for _, other := range []string{KeyForRoute(token, "GET /feed/users"), KeyForRoute(token+"x", "GET /training/courses/v1"), KeyForToken(token)} {
		if other == k {
			t.Errorf("two budgets share the key %q", k)
		}
	}
	if KeyForRoute("a", "bc") == KeyForRoute("ab", "c") {
		t.Error("the token and the route run together")
	}
	if strings.Contains(k, "9f2c1e7a") {
		t.Errorf("KeyForRoute = %q shows the token", k)
	}
}
