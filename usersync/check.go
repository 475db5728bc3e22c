package usersync

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/edapp-go/edapp"
)

// Problem is one thing wrong with the input, on a line of the file (0 when
// it concerns the whole input).
type Problem struct {
	Line int
	Msg  string
}

func (p *Problem) Error() string {
	if p.Line == 0 {
		return p.Msg
	}
	return fmt.Sprintf("line %d: %s", p.Line, p.Msg)
}

// InputError lists every problem found in an input that cannot be right.
// Nothing was changed.
type InputError struct {
	Problems []Problem
}

func (e *InputError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problem(s) in the input; nothing was changed:", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.Error())
	}
	return b.String()
}

func (e *InputError) add(line int, format string, args ...any) {
	e.Problems = append(e.Problems, Problem{Line: line, Msg: fmt.Sprintf(format, args...)})
}

// err returns e sorted by line, or nil when it holds no problem.
func (e *InputError) err() error {
	if len(e.Problems) == 0 {
		return nil
	}
	sort.SliceStable(e.Problems, func(i, j int) bool { return e.Problems[i].Line < e.Problems[j].Line })
	return e
}

// checkRows finds what is wrong with the rows on their own: no rows at all
// (a truncated file would otherwise delete every managed user), a missing,
// duplicate or suspicious external id, a duplicate username, an unknown
// role.
func checkRows(rows []Row, bad *InputError) {
	if len(rows) == 0 {
		bad.add(0, "the input has no data rows: refusing to sync to an empty list of users (a truncated file?)")
		return
	}
	extLine := map[string]Row{}  // by idKey
	userLine := map[string]int{} // lower-cased username
	for _, row := range rows {
		checkExternalID(row, extLine, bad)
		if u := strings.ToLower(row.Username); u != "" {
			if prev, dup := userLine[u]; dup {
				bad.add(row.Line, "duplicate username %q (first on line %d)", row.Username, prev)
			} else {
				userLine[u] = row.Line
			}
		}
		for _, n := range row.Roles {
			if !slices.Contains(edapp.Roles(), edapp.Role(strings.ToLower(n))) {
				bad.add(row.Line, "unknown role %q", n)
			}
		}
	}
}

func checkExternalID(row Row, seen map[string]Row, bad *InputError) {
	id := row.ExternalID
	if id == "" {
		bad.add(row.Line, "missing externalId")
		return
	}
	if why := suspicious(id); why != "" {
		bad.add(row.Line, "externalId %+q %s", id, why) // %+q: escaped to ASCII, so a look-alike shows
		return
	}
	prev, dup := seen[idKey(id)]
	switch {
	case !dup:
		seen[idKey(id)] = row
	case prev.ExternalID == id:
		bad.add(row.Line, "duplicate externalId %q (first on line %d)", id, prev.Line)
	default:
		bad.add(row.Line, "duplicate externalId %q (first on line %d as %q: case and surrounding space do not count)", id, prev.Line, prev.ExternalID)
	}
}

// idKey is the form in which external ids are compared, on both sides:
// without surrounding space, and with each letter replaced by the smallest
// of its Unicode simple case folding orbit, so that two ids have the same
// key exactly when strings.EqualFold holds for their trimmed forms. There
// is no Unicode normalisation (NFC): an id with combining marks is refused
// by suspicious instead.
func idKey(id string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, strings.TrimSpace(id))
}

// lookAlike are the scripts with letters drawn like Latin ones: Cyrillic
// "Е" and Greek "Ε" pass for "E".
var lookAlike = []*unicode.RangeTable{unicode.Cyrillic, unicode.Greek, unicode.Armenian, unicode.Cherokee}

// suspicious says why an external id cannot be trusted to match the one the
// service holds, or "" when it can. It refuses what a reader cannot see or
// tell apart: invalid UTF-8, control and format characters (zero-width,
// bidirectional), spaces other than U+0020, combining marks (the same text
// can be written two ways), full-width forms, and letters of a look-alike
// script mixed with ASCII.
func suspicious(id string) string {
	if !utf8.ValidString(id) {
		return "is not valid UTF-8"
	}
	var ascii, alike bool
	for _, r := range id {
		switch {
		case r < utf8.RuneSelf && (r >= 0x20 && r != 0x7f):
			ascii = true
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Co, unicode.Cs) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs):
			return "holds a control, format or unassigned character"
		case unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp):
			return "holds a space other than U+0020"
		case unicode.In(r, unicode.Mn, unicode.Me):
			return "holds a combining mark"
		case r >= 0xff00 && r <= 0xffef:
			return "holds a full-width or half-width form"
		case unicode.In(r, lookAlike...):
			alike = true
		}
	}
	if ascii && alike {
		return "mixes ASCII with Cyrillic, Greek, Armenian or Cherokee letters that look like Latin ones"
	}
	return ""
}
