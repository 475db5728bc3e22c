package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// docLink is one Markdown link of a page: its target as written and the
// line it is on.
type docLink struct {
	line   int
	target string
}

var (
	inlineCode   = regexp.MustCompile("`[^`\n]*`")
	markdownLink = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
)

// docLinks returns the links of a Markdown page outside code blocks and
// code spans, images included.
func docLinks(text string) []docLink {
	var links []docLink
	prose := inlineCode.ReplaceAllString(stripFences(text), "")
	for _, m := range markdownLink.FindAllStringSubmatchIndex(prose, -1) {
		links = append(links, docLink{
			line:   strings.Count(prose[:m[0]], "\n") + 1,
			target: prose[m[2]:m[3]],
		})
	}
	return links
}

// stripFences blanks the lines of fenced code blocks, keeping the line
// count.
func stripFences(text string) string {
	lines := strings.Split(text, "\n")
	inFence := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			inFence = !inFence
			lines[i] = ""
		} else if inFence {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// headingAnchors returns the anchors GitHub gives the headings of a page:
// lower case, punctuation dropped, spaces as hyphens, and -1, -2, ... on
// a repeated one.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, l := range strings.Split(stripFences(text), "\n") {
		title, ok := strings.CutPrefix(strings.TrimLeft(l, "#"), " ")
		if !ok || !strings.HasPrefix(l, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(title)) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// linkedPages are the pages whose links must resolve: the README, docs/
// and docs/bench/, and the other Markdown files at the root.
func linkedPages(t *testing.T) []string {
	t.Helper()
	var pages []string
	for _, pattern := range []string{"../../*.md", "../../docs/*.md", "../../docs/bench/*.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, m...)
	}
	return pages
}

// TestDocLinks checks that every relative link of the Markdown pages names
// a file that exists and, with #anchor, a heading of that page.
func TestDocLinks(t *testing.T) {
	t.Parallel()
	for _, page := range linkedPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range docLinks(string(b)) {
			if msg := checkDocLink(page, string(b), l.target); msg != "" {
				t.Errorf("%s:%d: link %s: %s", strings.TrimPrefix(page, "../../"), l.line, l.target, msg)
			}
		}
	}
}

// checkDocLink says what is wrong with target, a link of page (whose text
// is text), or "" when it resolves.
func checkDocLink(page, text, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	file, anchor, _ := strings.Cut(target, "#")
	if file != "" {
		path := filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
		if _, err := os.Stat(path); err != nil {
			return "no such file"
		}
		if anchor == "" {
			return ""
		}
		if !strings.HasSuffix(file, ".md") {
			return "an anchor in a file that is not Markdown"
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err.Error()
		}
		text = string(b)
	}
	if anchor != "" && !headingAnchors(text)[anchor] {
		return "no heading has the anchor #" + anchor
	}
	return ""
}

func TestDocLinks_skipsCode(t *testing.T) {
	t.Parallel()
	got := docLinks("see [a](a.md) and `[b](b.md)`\n```go\n[c](c.md)\n```\n[d\ne](#e) ![f](f.png)\n")
	want := []docLink{{1, "a.md"}, {5, "#e"}, {6, "f.png"}}
	if !slices.Equal(got, want) {
		t.Errorf("docLinks = %v, want %v", got, want)
	}
}

func TestHeadingAnchors(t *testing.T) {
	t.Parallel()
	got := headingAnchors("# Title\n## One budget from the command line: `--redis` and `--budget`\n" +
		"### `edapp export`\n## This repository's own tests\n## Title\n```sh\n# not a heading\n```\n")
	for _, want := range []string{"title", "one-budget-from-the-command-line---redis-and---budget",
		"edapp-export", "this-repositorys-own-tests", "title-1"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a comment in a code block is a heading")
	}
}
