package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRedact checks that redaction never panics, that Excerpt keeps its
// bound, and that a secret of letters and digits never survives Secret: a
// long one nowhere, a short one nowhere it stands whole.
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
		if secret == "" || !utf8.ValidString(s) || strings.Trim(secret, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
			return
		}
		out := Secret(s, secret)
		if len(secret) >= ShortSecret && strings.Contains(out, secret) || standsWhole(out, secret) {
			t.Fatalf("Secret(%q, %q) = %q", s, secret, out)
		}
	})
}

// standsWhole reports whether secret occurs in s bounded by its ends or by
// characters that cannot belong to a token.
func standsWhole(s, secret string) bool {
	for i := 0; ; i++ {
		j := strings.Index(s[i:], secret)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(secret)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if (start == 0 || !tokenChar(before, secret)) && (end == len(s) || !tokenChar(after, secret)) {
			return true
		}
		i = start
	}
}
