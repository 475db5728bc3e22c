package sqldest

import (
	"cmp"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/edapp-go/edapp"
)

// Normalizer returns s in Unicode Normalization Form C, as norm.NFC.String
// of golang.org/x/text/unicode/norm does. This module leaves Unicode's
// tables to its caller: without one (WithNormalizer), strings are
// compared as they are held.
type Normalizer func(s string) string

// asHeld is the Normalizer used when none is given.
func asHeld(s string) string { return s }

// WithNormalizer sets the Normalizer that emails (identities) and names
// (the move report) are brought to NFC with before they are compared.
// A nil Normalizer is an OpenDatabase error wrapping edapp.ErrInvalidInput.
func WithNormalizer(n Normalizer) DatabaseOption {
	return func(x *Database) {
		if n == nil {
			x.optErr = cmp.Or(x.optErr, fmt.Errorf("export: %w: WithNormalizer(nil)", edapp.ErrInvalidInput))
			return
		}
		x.nfc = n
	}
}

// emailKeys are the ways an email address is compared.
type emailKeys struct {
	// match is the address in NFC with ASCII letters folded to lower
	// case and nothing else: the key two addresses match on.
	match string
	// look is match with every letter case-folded: two addresses with
	// the same look and different match keys only look alike (a Kelvin
	// sign K, a dotted capital İ), which makes a conflict, never a match.
	look string
	// risky is whether the address holds a non-ASCII rune that NFC or a
	// case fold turns into ASCII: an address equal to another only
	// through such a rune is a look-alike too.
	risky bool
}

func keysOfEmail(email string, nfc Normalizer) emailKeys {
	s := strings.TrimSpace(email)
	if s == "" {
		return emailKeys{}
	}
	n := nfc(s)
	k := emailKeys{match: asciiLower(n), look: asciiLower(foldLetters(n))}
	for _, r := range s {
		if r >= utf8.RuneSelf && (foldRune(r) < utf8.RuneSelf || isASCII(nfc(string(r)))) {
			k.risky = true
			break
		}
	}
	return k
}

// asciiLower folds the letters A to Z to lower case, and no other.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}

// foldLetters folds every letter's case, as caseless matching would.
func foldLetters(s string) string { return strings.Map(foldRune, s) }

func foldRune(r rune) rune { return unicode.ToLower(unicode.ToUpper(r)) }

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// nameKey is how the move report compares a person's name: trimmed, in
// NFC and case-folded; "" for a blank name or SafetyCulture's "NA" (the
// migration's placeholder for one), which never pair.
func nameKey(name string, nfc Normalizer) string {
	k := foldLetters(nfc(strings.Join(strings.Fields(name), " ")))
	if k == "na" {
		return ""
	}
	return k
}
