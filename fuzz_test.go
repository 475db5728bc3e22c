package edapp

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/edapp-go/edapp/internal/pager"
)

// Fuzz targets for the decoders: none may panic, and what they accept must
// hold together. Run one with, for example:
//
//	go test -run '^$' -fuzz '^FuzzTime$' -fuzztime 5m .

func FuzzTime(f *testing.F) {
	for _, s := range []string{
		`"2019-03-07T05:10:36.187Z"`, `"2019-03-07T05:10:36"`, `"2019-03-07T15:10:36+10:00"`,
		`null`, `""`, `"2019-03-07"`, `"\u0032019-03-07"`, `12`,
		`"\/"`,                               // valid JSON, but an escape strconv refuses
		`"a` + strings.Repeat("é", 40) + `"`, // the error's excerpt cuts on a rune boundary
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var tm Time
		if err := json.Unmarshal(data, &tm); err != nil {
			return
		}
		// Whatever was accepted marshals and reads back to the same instant
		// (to the millisecond, which is what goes out).
		b, err := json.Marshal(tm)
		if err != nil {
			if tm.Year() < 0 || tm.Year() > 9999 {
				return // outside RFC 3339's years
			}
			t.Fatalf("marshal %v: %v", tm, err)
		}
		var back Time
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("round trip of %s: %v", b, err)
		}
		if !back.Equal(tm.Truncate(time.Millisecond)) && !tm.IsZero() {
			t.Fatalf("round trip changed %v to %v", tm.Time, back.Time)
		}
	})
}

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

type fuzzRecord struct {
	ID    string            `json:"id"`
	When  Time              `json:"when"`
	N     float64           `json:"n"`
	Tags  []string          `json:"tags"`
	Extra map[string]string `json:"extra"`
}

func FuzzListDecode(f *testing.F) {
	for _, s := range []string{
		`{"totalCount":2,"items":[{"id":"a","when":"2019-03-07T05:10:36.187Z","n":1},{"id":"b","when":"bad"}]}`,
		`[{"id":"a"},{"n":"x"}]`, `{"items":null}`, `[]`, `{}`, `"x"`, `{"items":[1,2]}`,
		`{"items":[{"id":"a","zz":1,"when":5},{"ID":"b","Tags":[1,"t"]}],"totalCount":"2","page":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var l pager.List[fuzzRecord]
		dropped, err := lenient.Decode(data, &l)
		if err == nil && !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		var plain struct {
			Items      []fuzzRecord `json:"items"`
			TotalCount *int         `json:"totalCount"`
		}
		target := any(&plain)
		if b := bytes.TrimLeft(data, " \t\r\n"); len(b) > 0 && b[0] == '[' {
			target = &plain.Items
		}
		if json.Unmarshal(data, target) == nil && (err != nil || len(dropped) > 0) {
			t.Fatalf("encoding/json decodes %q, Decode: %v, dropped %q", data, err, dropped)
		}
	})
}

func FuzzErrorBody(f *testing.F) {
	for _, s := range []string{`{"message":"x"}`, `{"error":"y"}`, `{"error":{"a":1}}`, `<html>`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_ = messageOf(body)
		e := &APIError{StatusCode: 500, Method: "GET", Path: "/x", Body: body}
		_ = e.Error()
	})
}

// decodeAll runs data through every v2 response decoder, as a page and as
// a single record, the way Do does.
func decodeAll(data []byte) {
	decodeAs[User](data)
	decodeAs[UserCourse](data)
	decodeAs[UserGroup](data)
	decodeAs[CourseCollection](data)
	decodeAs[Course](data)
	decodeAs[Lesson](data)
	decodeAs[Attempt](data)
	decodeAs[CourseProgress](data)
	decodeAs[CourseStatistics](data)
	decodeAs[LessonProgressEvent](data)
	decodeAs[UserLessonProgress](data)
	decodeAs[LessonStatistics](data)
	decodeAs[SurveyQuestionDefinition](data)
	decodeAs[SurveyAnswer](data)
	decodeAs[Webhook](data)
}

func decodeAs[T any](data []byte) {
	var one T
	_, _ = lenient.Decode(data, &one)
	var page pager.List[T]
	_, _ = lenient.Decode(data, &page)
}

// FuzzResponseDecoders feeds every fixture, and what the fuzzer makes of
// them, to every response decoder: none may panic.
func FuzzResponseDecoders(f *testing.F) {
	fixtures, _ := filepath.Glob("testdata/*/*.json")
	for _, name := range fixtures {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"items":[{"id":1,"name":{},"roles":"x","customFields":[1]}],"totalCount":"3"}`))
	f.Add([]byte(`{"items":[{"id":"u","userName":"n","userGroupsManaged":["g"],"createDateTime":"2020-01-01","webhookId":"w","zz":{"a":[1]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeAll(data)
	})
}
