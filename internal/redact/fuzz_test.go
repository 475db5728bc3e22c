package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRedact checks that redaction never panics, that Excerpt keeps its
// bound, and that a secret of letters and digits never survives Secret.
func FuzzRedact(f *testing.F) {
	f.Add(`{"token":"abc"} x%2Fy \u0041`, "sk_live/Abc", 10)
	f.Add("https://w/l?token=abc&lesson=1", "abc123XYZ", 3)
	f.Add("tok%25%3D\\u00", "tok", 0)
	f.Fuzz(func(t *testing.T, s, secret string, n int) {
		n = max(0, n%200)
		clean := func(s string) string { return LaunchTokens(Secret(s, secret)) }
		if got := Excerpt(s, n, clean); len(got) > n {
			t.Fatalf("Excerpt(%q, %d) = %d bytes", s, n, len(got))
		}
		if len(secret) < 4 || !utf8.ValidString(s) || strings.Trim(secret, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
			return
		}
		if out := Secret(s, secret); strings.Contains(out, secret) {
			t.Fatalf("Secret(%q, %q) = %q", s, secret, out)
		}
	})
}
