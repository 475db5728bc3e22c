// Package redact hides secrets in text that may echo them back, such as an
// error body or a header: the API token, and launch or user tokens, in
// their plain, URL-encoded and JSON-escaped forms.
package redact

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Margin is how far past a cut redaction must look so that a secret which
// crosses the cut is seen whole: text is redacted first and cut after, and
// the part beyond the cut plus Margin may be dropped unseen. It covers a
// secret of up to 10 KiB in its longest encoding (\uXXXX, 6 bytes a byte).
const Margin = 64 << 10

// Tail is how much of a cut-off text may hold the start of a secret that
// the cut split: a reader that stopped mid-body drops this much of the end
// before redacting, so no part of a split secret survives. It covers a
// secret of up to 680 bytes in its longest encoding (\uXXXX, 6 bytes a byte).
const Tail = 4 << 10

// tokenParam matches the value of a token parameter or member, whatever
// the name ends with ("token", "launchToken", "access_token"), as it appears
// in a URL (token=…), a URL-encoded URL (token%3D…, token%253D…), a JSON
// string (token\u003d…) or a JSON object ("token":"…", also escaped inside
// another JSON string). The value runs until a character that ends a URL
// parameter or a JSON string, plain or encoded.
var tokenParam = regexp.MustCompile(`(?i)(token(?:=|%3d|%253d|\\u003d|\\?"\s*:\s*\\?"|%22%3a%22))` +
	`(?:[^&"'\s<>\\%]` + // a plain character
	`|%(?:[013-9a-f][0-9a-f]|2[1348-9a-f]|3[0-9abdf])` + // %XX, but not & " ' % space < >
	`|\\u(?:[1-9a-f][0-9a-f]{3}|0[1-9a-f][0-9a-f]{2}|00[013-9a-f][0-9a-f]|002[1348-9a-f]|003[0-9abdf])` + // \uXXXX, the same
	`|\\/)+`)

// LaunchTokens replaces the value of every token parameter or member in s
// (token=..., "token": "...", and their percent- and JSON-escaped forms)
// with REDACTED, keeping the name.
func LaunchTokens(s string) string {
	if !strings.Contains(strings.ToLower(s), "token") {
		return s
	}
	return tokenParam.ReplaceAllString(s, "${1}REDACTED")
}

// ShortSecret is the length under which a secret is replaced only where it
// stands whole (see Secret): a secret that short also occurs by chance
// inside ordinary words and numbers, which must stay readable.
const ShortSecret = 8

// Secret replaces every occurrence of secret in s with [REDACTED]: as it
// is, and with any of its characters percent-encoded (once or twice, hex
// in either case, a space as +), \u-escaped or JSON-escaped. A secret of
// fewer than ShortSecret bytes is replaced only where it stands whole:
// bounded on each side by an end of s or by a character that cannot belong
// to a token (a letter, a digit, '-', '_' or one of the secret's own
// characters). So the token "t" leaves "dial tcp" alone,
// while "?token=t" loses it.
func Secret(s, secret string) string {
	if secret == "" {
		return s
	}
	var re *regexp.Regexp
	if strings.ContainsAny(s, `%\+`) {
		re = secretPattern(secret)
	}
	if len(secret) >= ShortSecret {
		if re == nil {
			return strings.ReplaceAll(s, secret, "[REDACTED]")
		}
		return re.ReplaceAllLiteralString(s, "[REDACTED]")
	}
	return replaceWhole(s, secret, re)
}

// replaceWhole replaces the occurrences of secret (the matches of re when
// not nil) that stand whole.
func replaceWhole(s, secret string, re *regexp.Regexp) string {
	var spans [][]int
	if re != nil {
		spans = re.FindAllStringIndex(s, -1)
	} else {
		for i := 0; ; {
			j := strings.Index(s[i:], secret)
			if j < 0 {
				break
			}
			spans = append(spans, []int{i + j, i + j + len(secret)})
			i += j + len(secret)
		}
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		before := lastChar(s[:sp[0]])
		after, _ := utf8.DecodeRuneInString(s[sp[1]:]) // an escape after starts with % or \: no token character
		if sp[0] > 0 && tokenChar(before, secret) || sp[1] < len(s) && tokenChar(after, secret) {
			continue
		}
		b.WriteString(s[last:sp[0]])
		b.WriteString("[REDACTED]")
		last = sp[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// escapedTail matches an escape at the end of a text: %XX, %25XX or \uXXXX.
var escapedTail = regexp.MustCompile(`(?:%(?:25)?([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4}))$`)

// lastChar is the last character of s, decoded when s ends with an escape,
// so that "%20t" counts the space before t.
func lastChar(s string) rune {
	if m := escapedTail.FindStringSubmatch(s[max(0, len(s)-6):]); m != nil {
		v, _ := strconv.ParseUint(m[1]+m[2], 16, 32)
		return rune(v)
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// tokenChar reports whether r may belong to a token: a letter, a digit, '-',
// '_', or any character of the secret itself. Anything else (a space, '=',
// ':', '/', a quote) ends a token.
func tokenChar(r rune, secret string) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || strings.ContainsRune(secret, r)
}

// Excerpt returns s with its secrets replaced by clean, cut to at most n
// bytes on a rune boundary. Only the first n+Margin bytes are looked at, so
// a huge body costs no more than a short one; clean runs before the cut, so
// a secret that crosses it is gone whole.
func Excerpt(s string, n int, clean func(string) string) string {
	if len(s) > n+Margin {
		s = s[:n+Margin]
	}
	return Cut(clean(s), n)
}

// Cut shortens s to at most n bytes, on a rune boundary.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Patterns are kept per secret: a process has few API tokens. Past
// maxCached secrets, patterns are built afresh on each call.
const maxCached = 64

var (
	cacheMu sync.Mutex
	cache   = map[string]*regexp.Regexp{}
)

// secretPattern returns the pattern for secret, or nil when secret is not
// valid UTF-8 (then only its plain form can be matched).
func secretPattern(secret string) *regexp.Regexp {
	if !utf8.ValidString(secret) {
		return nil
	}
	cacheMu.Lock()
	re, ok := cache[secret]
	cacheMu.Unlock()
	if ok {
		return re
	}
	re = regexp.MustCompile(secretExpr(secret))
	cacheMu.Lock()
	if len(cache) < maxCached {
		cache[secret] = re
	}
	cacheMu.Unlock()
	return re
}

// secretExpr builds a pattern that matches secret with each character in
// any of its encodings.
func secretExpr(secret string) string {
	var b strings.Builder
	for _, r := range secret {
		alts := []string{regexp.QuoteMeta(string(r))}
		var pct strings.Builder
		for _, c := range []byte(string(r)) {
			fmt.Fprintf(&pct, `%%(?:25)?(?i:%02x)`, c)
		}
		alts = append(alts, pct.String())
		if r < 0x10000 {
			alts = append(alts, fmt.Sprintf(`\\u(?i:%04x)`, r))
		} else {
			r1, r2 := utf16.EncodeRune(r)
			alts = append(alts, fmt.Sprintf(`\\u(?i:%04x)\\u(?i:%04x)`, r1, r2))
		}
		switch r {
		case '/', '"', '\\':
			alts = append(alts, regexp.QuoteMeta(`\`+string(r)))
		case ' ':
			alts = append(alts, `\+`, `%(?:25)?(?i:2b)`)
		}
		b.WriteString("(?:" + strings.Join(alts, "|") + ")")
	}
	return b.String()
}
