package dbwrite

import (
	"strings"
	"unicode/utf8"

	"github.com/edapp-go/edapp/export/dbschema"
)

// A value the service sends may hold bytes that are not UTF-8 (inside a
// field the SDK does not know, kept raw) or, on PostgreSQL, the NUL
// character (U+0000), which its text and jsonb cannot hold: PostgreSQL
// refuses such a row, and with it the transaction, on every run. So that
// such a value costs only those bytes, each becomes U+FFFD, the
// replacement character, before a row goes to either database: the same
// rows on both.

// ValidUTF8 returns s with each byte that is not part of valid UTF-8
// replaced by U+FFFD: one for each bad byte, so the damage shows its size.
func ValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// PostgresText returns s with each NUL character replaced by U+FFFD.
func PostgresText(s string) string {
	if !strings.Contains(s, "\x00") {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// PostgresJSON returns the JSON text s with each escape \u0000 replaced by
// \ufffd, and each raw NUL (which valid JSON never holds) by U+FFFD.
func PostgresJSON(s string) string {
	s = PostgresText(s)
	if !strings.Contains(s, `\u0000`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		// A backslash starts an escape: copy it whole, so that an escaped
		// backslash followed by "u0000" is left alone.
		if s[i+1] == 'u' && strings.HasPrefix(s[i+2:], "0000") {
			b.WriteString(`\ufffd`)
			i += 5
			continue
		}
		b.WriteString(s[i : i+2])
		i++
	}
	return b.String()
}

// CleanArgs makes a statement's string arguments safe for d in place:
// ValidUTF8 on both dialects; then, on PostgreSQL, PostgresJSON for the
// arguments isJSON reports (by index) and PostgresText for the others.
// It is the one place the export's rows and the inbox's pass through.
func CleanArgs(d dbschema.Dialect, args []any, isJSON func(i int) bool) {
	for i, a := range args {
		s, ok := a.(string)
		if !ok {
			continue
		}
		c := ValidUTF8(s)
		switch {
		case d != dbschema.Postgres:
		case isJSON(i):
			c = PostgresJSON(c)
		default:
			c = PostgresText(c)
		}
		// Almost every value comes back as it was: putting it back in the
		// interface would allocate for each one.
		if c != s {
			args[i] = c
		}
	}
}
