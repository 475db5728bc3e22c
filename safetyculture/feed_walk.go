package safetyculture

import (
	"errors"
	"fmt"
	"hash/maphash"
	"net/url"
	"slices"
	"strings"

	"github.com/edapp-go/edapp/internal/redact"
)

// MaxFeedPages bounds the pages one walk of a feed reads (an All
// iterator, or an export's walk): at the course-progress feed's largest
// page, 100 million rows. A walk that would read more ends with
// [ErrFeedTooLong], naming the feed.
const MaxFeedPages = 100_000

// ErrFeedTooLong is a feed walk that went past what it may read: more
// pages than [MaxFeedPages], or, when the feed sends
// metadata.remaining_records, more than twice the rows its first page
// announced, plus a page. A feed whose next_page keeps changing while it
// cycles through the same rows would otherwise be read for ever.
var ErrFeedTooLong = errors.New("safetyculture: the feed walk went past its bound")

// cursorParams are the query parameters that say where a feed page
// starts; feedParams are all those a feed is known to take. A next_page
// is known by these alone (see cursorKey), so a page asked again with a
// parameter that changes on every answer, or spelled another way, is
// still the same page.
var (
	cursorParams = []string{"cursor", "next_page_token", "page_token", "offset", "page", "after"}
	feedParams   = append([]string{"limit", "completion_status", "completionStatus", "courseId", "userId",
		"modifiedAfter", "modified_after", "include_inactive", "include_deleted", "show_only_leaf_nodes"}, cursorParams...)
)

// cursorKey is the normalised form of a resolved next_page (path and raw
// query): its path, and its known parameters, decoded and sorted. A
// next_page that carries none of the cursor parameters is known by all its
// parameters, so that a cursor under a name of its own is never ignored.
func cursorKey(path, rawQuery string) string {
	q, _ := url.ParseQuery(rawQuery) // the pairs that parse; next_page was sent as it is
	known := slices.ContainsFunc(cursorParams, func(p string) bool { return q.Has(p) })
	names := make([]string, 0, len(q))
	for name := range q {
		if !known || slices.Contains(feedParams, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString(path)
	for _, name := range names {
		vs := slices.Clone(q[name])
		slices.Sort(vs)
		for _, v := range vs {
			b.WriteString("\x00" + name + "=" + v)
		}
	}
	return b.String()
}

// feedWalk is what a walk remembers to end: the pages it followed (by
// cursorKey, hashed), the empty pages in a row, and the rows it may read.
type feedWalk struct {
	route string
	seed  maphash.Seed
	seen  map[uint64]struct{}
	pages int
	empty int
	rows  int64
	// allowed is the rows the walk may read, from the first page's
	// remaining_records; 0: no bound from the feed.
	allowed int64
}

func newFeedWalk(route string) *feedWalk {
	return &feedWalk{route: route, seed: maphash.MakeSeed(), seen: map[uint64]struct{}{}}
}

// page takes one page read; an error ends the walk.
func (w *feedWalk) page(rows int, remaining *int64) error {
	w.pages++
	w.rows += int64(rows)
	if w.pages == 1 && remaining != nil && *remaining >= 0 {
		announced := w.rows + *remaining
		w.allowed = 2*announced + int64(max(rows, 1))
	}
	switch {
	case w.allowed > 0 && w.rows > w.allowed:
		return fmt.Errorf("%w: GET %s: %d rows read, more than twice the %d its first page announced", ErrFeedTooLong, w.route, w.rows, (w.allowed-1)/2)
	case w.pages >= MaxFeedPages:
		return fmt.Errorf("%w: GET %s: %d pages read, the most a walk reads", ErrFeedTooLong, w.route, w.pages)
	}
	if rows > 0 {
		w.empty = 0
	} else if w.empty++; w.empty >= maxEmptyPages {
		return fmt.Errorf("%w: GET %s", ErrEmptyPages, w.route)
	}
	return nil
}

// follow takes the next_page the walk is about to follow, resolved;
// following a page it has already read is ErrRepeatedCursor. The set is
// bounded by MaxFeedPages, as the walk is.
func (w *feedWalk) follow(c *Client, path, rawQuery string) error {
	h := maphash.String(w.seed, cursorKey(path, rawQuery))
	if _, again := w.seen[h]; again {
		return fmt.Errorf("%w: GET %s: %q", ErrRepeatedCursor, w.route, c.redactURL(path+"?"+rawQuery))
	}
	w.seen[h] = struct{}{}
	return nil
}

// redactURL is a URL of a next_page fit for an error: its token
// parameters and the client's own token hidden, then cut short.
func (c *Client) redactURL(s string) string {
	return cut(c.core.Redact(redact.LaunchTokens(s)), 200)
}

// leavesPrefix reports whether path (relative to the base URL's path, as
// it is sent after it) has a segment a server may take as "." or "..":
// after percent-decoding, and with a backslash read as a slash.
func leavesPrefix(path string) bool {
	plain, err := url.PathUnescape(path)
	if err != nil {
		return true
	}
	for _, seg := range strings.FieldsFunc(plain, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}
