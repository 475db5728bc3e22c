package jsonobj

import (
	"encoding/json"
	"unicode/utf8"
)

// AppendString appends s quoted as encoding/json writes it, HTML escaping
// included: a string of plain characters as it is, any other through
// json.Marshal, so the bytes are always json.Marshal's.
func AppendString(b []byte, s string) []byte {
	if !plain(s) {
		m, _ := json.Marshal(s) // a string always marshals
		return append(b, m...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plain reports whether encoding/json writes s between quotes as it is.
func plain(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}
