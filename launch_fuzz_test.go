package edapp

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

func FuzzParseLaunchLink(f *testing.F) {
	for _, s := range []string{
		"https://web.edapp.com/launch-lesson?token=abc&lesson=1",
		"https://web.edapp.com/launch-lesson?lesson=1",
		"http://x/launch-lesson?token=a%20b&lesson=%2F",
		"%zz", "", "https://h?token=t&token=u&lesson=l", "https://h/launch-lesson?token=t",
	} {
		f.Add(s)
	}
	issued := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, uri string) {
		l, err := ParseLaunchLink(uri, issued)
		if err != nil {
			return
		}
		if l.Token.Value() == "" || l.LessonID == "" {
			t.Fatalf("accepted a link without token or lesson: %q", uri)
		}
		if !l.ExpiresAt().Equal(issued.Add(LaunchTokenLifetime)) {
			t.Fatal("wrong expiry")
		}
		// The token parameter reads REDACTED, and the token shows nowhere
		// else unless the link itself repeats it outside that parameter.
		shown, err := url.Parse(l.String())
		if err != nil {
			t.Fatalf("String() is not a URL: %v", err)
		}
		if got := shown.Query()["token"]; len(got) == 0 || got[0] != "REDACTED" {
			t.Fatalf("token parameter %q in %s", got, l.String())
		}
		q := shown.Query()
		q.Del("token")
		shown.RawQuery = q.Encode()
		u, _ := url.Parse(l.URL.Value())
		q = u.Query()
		q.Del("token")
		u.RawQuery = q.Encode()
		if tok := l.Token.Value(); strings.Contains(shown.String(), tok) && !strings.Contains(u.String(), tok) {
			t.Fatalf("String() shows the token %q: %s", tok, l.String())
		}
	})
}
