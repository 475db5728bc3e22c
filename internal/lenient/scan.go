package lenient

import (
	"encoding/json"
	"errors"
)

// The scanner below finds where JSON values begin and end without
// decoding them, and without recursion: it counts brackets and skips
// strings. A page's items are found with it, so an item that
// encoding/json refuses (nested past its depth limit, say) costs that
// item only, never its neighbours. It does not validate: each value it
// hands out is decoded, and checked, by encoding/json.

// ErrNotJSON is data whose structure the scanner cannot follow: an
// unterminated string or bracket, or a member without its colon.
var ErrNotJSON = errors.New("lenient: malformed JSON")

// skipSpace returns the index of the first non-space byte from i.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// valueEnd returns the end of the JSON value that starts at data[i].
func valueEnd(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, ErrNotJSON
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		return containerEnd(data, i)
	}
	// A literal or a number: up to the next delimiter.
	j := i
	for j < len(data) && !isDelim(data[j]) {
		j++
	}
	if j == i {
		return 0, ErrNotJSON
	}
	return j, nil
}

func isDelim(b byte) bool {
	switch b {
	case ',', ']', '}', ':', ' ', '\t', '\r', '\n', '"', '[', '{':
		return true
	}
	return false
}

// stringEnd returns the end of the string that starts at data[i] ('"').
func stringEnd(data []byte, i int) (int, error) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, ErrNotJSON
}

// containerEnd returns the end of the object or array that starts at
// data[i], however deep it is nested.
func containerEnd(data []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(data); j++ {
		switch data[j] {
		case '"':
			end, err := stringEnd(data, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, ErrNotJSON
}

// Members calls f with each member of the JSON object data, its key
// unescaped and its value as sent, in order; false when data is not an
// object (f is not called). f's error ends the walk and is returned.
func Members(data []byte, f func(key string, value []byte) error) (bool, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false, nil
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return true, trailing(data, i+1)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return true, ErrNotJSON
		}
		kend, err := stringEnd(data, i)
		if err != nil {
			return true, err
		}
		key, err := keyOf(data[i:kend])
		if err != nil {
			return true, err
		}
		i = skipSpace(data, kend)
		if i >= len(data) || data[i] != ':' {
			return true, ErrNotJSON
		}
		start := skipSpace(data, i+1)
		end, err := valueEnd(data, start)
		if err != nil {
			return true, err
		}
		if err := f(key, data[start:end]); err != nil {
			return true, err
		}
		if i, err = next(data, end, '}'); err != nil || i < 0 {
			return true, err
		}
	}
}

// Elements calls f with each element of the JSON array data, as sent, in
// order; false when data is not an array (f is not called). f's error
// ends the walk and is returned.
func Elements(data []byte, f func(i int, elem []byte) error) (bool, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return false, nil
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return true, trailing(data, i+1)
	}
	for n := 0; ; n++ {
		end, err := valueEnd(data, i)
		if err != nil {
			return true, err
		}
		if err := f(n, data[i:end]); err != nil {
			return true, err
		}
		if i, err = next(data, end, ']'); err != nil || i < 0 {
			return true, err
		}
	}
}

// next reads what follows a value at i: a comma, then the start of the
// next one (its index), or the closing bracket, then the end of data (-1).
func next(data []byte, i int, closing byte) (int, error) {
	i = skipSpace(data, i)
	switch {
	case i < len(data) && data[i] == ',':
		return skipSpace(data, i+1), nil
	case i < len(data) && data[i] == closing:
		return -1, trailing(data, i+1)
	}
	return 0, ErrNotJSON
}

// trailing fails when anything but space follows i.
func trailing(data []byte, i int) error {
	if skipSpace(data, i) != len(data) {
		return ErrNotJSON
	}
	return nil
}

// keyOf is a member's key, from its quoted form.
func keyOf(quoted []byte) (string, error) {
	inner := quoted[1 : len(quoted)-1]
	plain := true
	for _, b := range inner {
		if b == '\\' || b < ' ' || b >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		return string(inner), nil
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return "", ErrNotJSON
	}
	return s, nil
}
