package redact

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

const launch = "3f2a9c1e-7b4d-4e0a-9c8f-1a2b3c4d5e6f"

func TestLaunchTokensInEveryEncoding(t *testing.T) {
	link := "https://web.edapp.com/launch-lesson?token=" + launch + "&lesson=l-1"
	jsonLink, _ := json.Marshal(map[string]string{"launchURI": link}) // & as \u0026
	nested, _ := json.Marshal(map[string]string{"body": `{"token":"` + launch + `"}`})
	for _, in := range []string{
		link,
		url.QueryEscape(link),                  // token%3D…%26lesson%3Dl-1
		url.QueryEscape(url.QueryEscape(link)), // token%253D…
		string(jsonLink),                       // token=…\u0026lesson
		`{"token":"` + launch + `","lesson":"l-1"}`,     // a member
		`{"Token" : "` + launch + `"}`,                  // spaced, any case
		`{"userToken":"` + launch + `"}`,                // a name ending in token
		string(nested),                                  // escaped inside a JSON string
		`{"q":"token\u003d` + launch + `\u0026x=1"}`,    // an escaped =
		`token%22%3A%22` + launch + `%22`,               // URL-encoded JSON
		`<a href="/launch?TOKEN=` + launch + `">go</a>`, // HTML
		"token=" + strings.ReplaceAll(launch, "-", "%2D") + "&lesson=l-1",
		`{"token":"` + strings.ReplaceAll(launch, "-", `\u002d`) + `"}`,
	} {
		got := LaunchTokens(in)
		for _, part := range strings.Split(launch, "-") {
			if strings.Contains(got, part) {
				t.Errorf("LaunchTokens(%s) = %s: keeps %q", in, got, part)
			}
		}
		if !strings.Contains(got, "REDACTED") {
			t.Errorf("LaunchTokens(%s) = %s: nothing redacted", in, got)
		}
	}
}

func TestLaunchTokensKeepsTheRest(t *testing.T) {
	for in, want := range map[string]string{
		"https://w/launch-lesson?token=abc&lesson=l-1":            "https://w/launch-lesson?token=REDACTED&lesson=l-1",
		"launch-lesson%3Ftoken%3Dabc%26lesson%3Dl-1":              "launch-lesson%3Ftoken%3DREDACTED%26lesson%3Dl-1",
		`{"token":"abc","lesson":"l-1"}`:                          `{"token":"REDACTED","lesson":"l-1"}`,
		`{"b":"{\"token\":\"abc\",\"lesson\":\"l-1\"}"}`:          `{"b":"{\"token\":\"REDACTED\",\"lesson\":\"l-1\"}"}`,
		`"token=abc\u0026lesson=l-1"`:                             `"token=REDACTED\u0026lesson=l-1"`,
		"no secret here, not even a tokenizer":                    "no secret here, not even a tokenizer",
		`{"message":"invalid token","token":null,"expired":true}`: `{"message":"invalid token","token":null,"expired":true}`,
	} {
		if got := LaunchTokens(in); got != want {
			t.Errorf("LaunchTokens(%s)\n = %s\nwant %s", in, got, want)
		}
	}
}

func TestSecretInEveryEncoding(t *testing.T) {
	const tok = "sk_live/AbC+dé=x\"y\\z 😀"
	js, _ := json.Marshal(tok)
	var ascii strings.Builder // every character \u-escaped
	for _, r := range tok {
		if r > 0xffff {
			ascii.WriteString(`\ud83d\ude00`)
			continue
		}
		fmt.Fprintf(&ascii, `\u%04X`, r)
	}
	var pctAll strings.Builder // every byte percent-encoded, lower case
	for _, c := range []byte(tok) {
		fmt.Fprintf(&pctAll, "%%%02x", c)
	}
	for _, enc := range []string{
		tok,
		string(js[1 : len(js)-1]),
		strings.ReplaceAll(string(js[1:len(js)-1]), "/", `\/`),
		ascii.String(),
		url.QueryEscape(tok),
		url.PathEscape(tok),
		url.QueryEscape(url.QueryEscape(tok)),
		pctAll.String(),
	} {
		in := "before " + enc + " after"
		got := Secret(in, tok)
		if got != "before [REDACTED] after" {
			t.Errorf("Secret(%q) = %q", in, got)
		}
	}
	if got := Secret("a \xffb tok", "\xffb"); got != "a [REDACTED] tok" {
		t.Errorf("invalid UTF-8 secret: %q", got)
	}
	if got := Secret("nothing % here", tok); got != "nothing % here" {
		t.Errorf("got %q", got)
	}
}

// A token that crosses the cut is redacted whole, in every encoding.
func TestExcerptRedactsBeforeCutting(t *testing.T) {
	const tok = "tok-abcdefghijklmnopqrstuvwxyz-0123456789"
	clean := func(s string) string { return LaunchTokens(Secret(s, tok)) }
	for _, enc := range []string{tok, url.QueryEscape(tok), `\u0074` + tok[1:], "token=" + launch} {
		for shift := 1; shift < len(enc); shift += 3 {
			body := strings.Repeat("x", 100-shift) + enc + strings.Repeat("y", 50)
			got := Excerpt(body, 100, clean)
			if len(got) > 100 {
				t.Fatalf("excerpt of %d bytes", len(got))
			}
			for _, part := range []string{tok[:5], tok[len(tok)-5:], launch[:5]} {
				if strings.Contains(got, part) {
					t.Fatalf("cut at %d of %q keeps %q: %q", shift, enc, part, got)
				}
			}
		}
	}
	if got := Excerpt("héllo", 2, strings.ToUpper); got != "H" {
		t.Errorf("rune boundary: %q", got)
	}
	if got := Excerpt("short", 10, strings.ToUpper); got != "SHORT" {
		t.Errorf("%q", got)
	}
}

// Random tokens in random encodings at random places never survive.
func TestSecretProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+=~:é"
	runes := []rune(alphabet)
	for i := range 500 {
		var tb strings.Builder
		for range 8 + rng.IntN(40) {
			tb.WriteRune(runes[rng.IntN(len(runes))])
		}
		tok := tb.String()
		var enc strings.Builder
		for _, r := range tok {
			switch rng.IntN(4) {
			case 0:
				enc.WriteRune(r)
			case 1:
				for _, c := range []byte(string(r)) {
					fmt.Fprintf(&enc, "%%%02X", c)
				}
			case 2:
				fmt.Fprintf(&enc, `\u%04x`, r)
			default:
				b, _ := json.Marshal(string(r))
				enc.Write(b[1 : len(b)-1])
			}
		}
		in := fmt.Sprintf(`{"n":%d,"echo":"%s","tail":"%%"}`, i, enc.String())
		got := Secret(in, tok)
		want := fmt.Sprintf(`{"n":%d,"echo":"[REDACTED]","tail":"%%"}`, i)
		if got != want {
			t.Fatalf("token %q as %q: %s", tok, enc.String(), got)
		}
	}
}

// A short secret is replaced where it stands whole, and only there.
func TestSecretShortStandsWhole(t *testing.T) {
	for _, tc := range []struct{ in, secret, want string }{
		{"dial tcp 127.0.0.1:1: connect: connection refused", "t", "dial tcp 127.0.0.1:1: connect: connection refused"},
		{"GET /v2/users?token=t", "t", "GET /v2/users?token=[REDACTED]"},
		{"t", "t", "[REDACTED]"},
		{`{"token":"t","tt":"t t"}`, "t", `{"token":"[REDACTED]","tt":"[REDACTED] [REDACTED]"}`},
		{"Bearer%20t%2C", "t", "Bearer%20[REDACTED]%2C"},
		{`say \u0074!`, "t", `say [REDACTED]!`},
		{"a1-b a1-b2 xa1-b a1-b.", "a1-b", "[REDACTED] a1-b2 xa1-b [REDACTED]."},
		{"short1 inside longshort1", "short1", "[REDACTED] inside longshort1"},
		{"eight888 inside xeight888x", "eight888", "[REDACTED] inside x[REDACTED]x"},
	} {
		if got := Secret(tc.in, tc.secret); got != tc.want {
			t.Errorf("Secret(%q, %q)\n = %q\nwant %q", tc.in, tc.secret, got, tc.want)
		}
	}
	// The SDK's usual form: LaunchTokens after Secret.
	if got := LaunchTokens(Secret("https://x/launch?token=t&lesson=l-1", "t")); got != "https://x/launch?token=REDACTED&lesson=l-1" {
		t.Errorf("got %q", got)
	}
}
