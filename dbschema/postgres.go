package dbschema

import "strings"

// PostgreSQL's text and jsonb cannot hold the NUL character (U+0000),
// which the service may send inside a string: a row holding one is
// refused, and with it the transaction. So that such a value costs only
// that character, each NUL becomes U+FFFD, the replacement character,
// before a row goes to PostgreSQL. SQLite stores it as it is.

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

// PostgresArgs makes a statement's arguments safe for PostgreSQL in place:
// PostgresJSON for the strings of the arguments isJSON reports (by index),
// PostgresText for the other strings.
func PostgresArgs(args []any, isJSON func(i int) bool) {
	for i, a := range args {
		if s, ok := a.(string); ok {
			if isJSON(i) {
				args[i] = PostgresJSON(s)
			} else {
				args[i] = PostgresText(s)
			}
		}
	}
}
