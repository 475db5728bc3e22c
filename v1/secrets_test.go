package v1_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	v1 "github.com/edapp-go/edapp/v1"
)

const launchTok = "tok-9f8e7d6c-secret"

func sampleCourse() v1.Course {
	at, _ := edapp.ParseTime("2024-05-06T07:08:09Z")
	return v1.Course{ID: "c1", Title: "Safety", Progress: v1.Progress{Unlocked: true, UnlockedDate: at}, Lessons: []v1.Lesson{
		{ID: "l1", Title: "Alarm", LaunchURI: "https://web.edapp.com/launch-lesson?token=" + launchTok + "&lesson=l1", Progress: v1.Progress{Opened: true}},
		{ID: "l2", Title: "Exit", LaunchURI: "https://web.edapp.com/launch-lesson?lesson=l2&token=" + launchTok + "2"},
	}}
}

// Every way of printing or logging a course or a lesson hides the launch
// token, and keeps the rest of the link.
func TestCourseAndLessonNeverPrintTheToken(t *testing.T) {
	t.Parallel()
	c := sampleCourse()
	l := c.Lessons[0]
	var jsonLog, textLog bytes.Buffer
	jl := slog.New(slog.NewJSONHandler(&jsonLog, nil))
	tl := slog.New(slog.NewTextHandler(&textLog, nil))
	for _, v := range []any{c, &c, l, &l} {
		jl.Info("m", "v", v)
		tl.Info("m", "v", v)
	}
	tl.Info("m", "v", c.Lessons) // the text handler prints a slice with fmt
	jl.Info("m", slog.Any("course", c), slog.Any("lesson", l))
	tl.Info("m", slog.Any("course", c), slog.Any("lesson", l))

	outs := map[string]string{"slog JSON": jsonLog.String(), "slog text": textLog.String()}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d", "%10.40v"} {
		for name, v := range map[string]any{"Course": c, "*Course": &c, "Lesson": l, "*Lesson": &l, "[]Lesson": c.Lessons} {
			outs[verb+" "+name] = fmt.Sprintf(verb, v)
		}
	}
	for what, s := range outs {
		if strings.Contains(s, launchTok) || strings.Contains(s, fmt.Sprintf("%x", launchTok)) {
			t.Errorf("%s shows the launch token: %s", what, s)
		}
	}
	for _, what := range []string{"%v Course", "%+v Lesson", "%#v Course", "%#v Lesson", "%s Course", "slog JSON", "slog text"} {
		if !strings.Contains(outs[what], "lesson=l1") {
			t.Errorf("%s lost the rest of the link: %s", what, outs[what])
		}
	}
	if !strings.HasPrefix(outs["%#v Course"], "v1.Course{") || !strings.HasPrefix(outs["%#v Lesson"], "v1.Lesson{") {
		t.Errorf("%%#v: %s / %s", outs["%#v Course"], outs["%#v Lesson"])
	}
	var logged struct {
		V struct {
			ID      string
			Lessons map[string]struct{ LaunchURI string }
		}
	}
	first, _, _ := bytes.Cut(jsonLog.Bytes(), []byte("\n"))
	if err := json.Unmarshal(first, &logged); err != nil || logged.V.ID != "c1" ||
		logged.V.Lessons["0"].LaunchURI != "https://web.edapp.com/launch-lesson?token=REDACTED&lesson=l1" {
		t.Errorf("slog JSON of a course = %s (%v)", first, err)
	}

	// json.Marshal keeps the link: it is handed to a front end.
	b, err := json.Marshal(c)
	if err != nil || !strings.Contains(string(b), `"launchURI":"https://web.edapp.com/launch-lesson?token=`+launchTok+`\u0026lesson=l1"`) {
		t.Errorf("json.Marshal = %s, %v", b, err)
	}
}

func TestUserTokenNeverPrints(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(`{"token":"ut-SECRET-1"}`))
	tok, err := f.client().Users.Token(context.Background(), "u/1")
	if err != nil {
		t.Fatal(err)
	}
	wantRequest(t, f.only(), "GET", "/v1/users/id/u%2F1/token", "")
	if tok.Value() != "ut-SECRET-1" || tok.IsZero() {
		t.Fatalf("Value = %q", tok.Value())
	}
	var jsonLog, textLog bytes.Buffer
	slog.New(slog.NewJSONHandler(&jsonLog, nil)).Info("m", "tok", tok, "ptr", &tok)
	slog.New(slog.NewTextHandler(&textLog, nil)).Info("m", "tok", tok, "ptr", &tok)
	outs := []string{jsonLog.String(), textLog.String(), tok.String()}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		outs = append(outs, fmt.Sprintf(verb, tok), fmt.Sprintf(verb, &tok), fmt.Sprintf(verb, struct{ T v1.UserToken }{tok}))
	}
	for _, s := range outs {
		if strings.Contains(s, "SECRET") || strings.Contains(s, fmt.Sprintf("%x", "SECRET")) {
			t.Errorf("token printed: %s", s)
		}
	}
}

func TestUserTokenByExternalIDAndShapes(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"token":"ut-1"}`:            "ut-1",
		`"ut-2"`:                      "ut-2",
		`{"Token":"ut-3","extra":42}`: "ut-3",
	} {
		f := newFake(t, ok(body))
		tok, err := f.client().Users.TokenByExternalID(context.Background(), "HR 7")
		if err != nil || tok.Value() != want {
			t.Errorf("%s: %q, %v", body, tok.Value(), err)
		}
		wantRequest(t, f.only(), "GET", "/v1/users/external/HR%207/token", "")
	}
}

// Answers that carry no usable token are a DecodeError that shows nothing
// of the answer; error bodies that echo a token are redacted.
func TestUserTokenErrorsHideTheToken(t *testing.T) {
	t.Parallel()
	for _, rep := range []reply{
		ok(`{"token":"ut-SECRET-1"`), // cut short
		ok(`"ut-SECRET-1`),
		ok(`ut-SECRET-1`),
		ok(`{"accessToken":"ut-SECRET-1"}`),
		ok(`{"token":""}`),
		ok(`null`),
		{Status: http.StatusForbidden, Body: `{"message":"no","token":"ut-SECRET-1"}`},
		{Status: http.StatusConflict, Body: `{"message":"token=ut-SECRET-1"}`},
	} {
		f := newFake(t, rep)
		tok, err := f.client().Users.Token(context.Background(), "u-1")
		if err == nil || !tok.IsZero() {
			t.Errorf("%s: %v, %v", rep.Body, tok, err)
			continue
		}
		texts := []string{err.Error(), fmt.Sprintf("%+v %#v", err, err)}
		var de *edapp.DecodeError
		if errors.As(err, &de) {
			texts = append(texts, de.Body)
		}
		var ae *edapp.APIError
		if errors.As(err, &ae) {
			texts = append(texts, string(ae.Body), ae.Message)
		}
		if de == nil && ae == nil {
			t.Errorf("%s: %T %v", rep.Body, err, err)
		}
		for _, s := range texts {
			if strings.Contains(s, "SECRET") {
				t.Errorf("%s: error shows the token: %s", rep.Body, s)
			}
		}
	}
}

func TestUsersAndGroupsList(t *testing.T) {
	t.Parallel()
	f := newFake(t,
		ok(`[{"id":"u1","username":"a","externalIdentifier":"E1","usergroups":["g1"]},{"id":"u2","userName":"b","externalId":"E2"}]`),
		ok(`{"items":[{"id":"u3"}],"totalCount":1}`),
		ok(`[{"id":"g1","name":"G","users":["u1"],"courses":["c1"]}]`),
	)
	c := f.client()
	users, err := c.Users.List(context.Background())
	if err != nil || len(users) != 2 || users[0].ExternalID != "E1" || users[1].ExternalID != "E2" || users[1].Username != "b" ||
		len(users[0].UserGroups) != 1 {
		t.Fatalf("users = %+v, %v", users, err)
	}
	users, err = c.Users.List(context.Background())
	if err != nil || len(users) != 1 || users[0].ID != "u3" {
		t.Fatalf("users (envelope) = %+v, %v", users, err)
	}
	groups, err := c.UserGroups.List(context.Background())
	if err != nil || len(groups) != 1 || groups[0].Name != "G" || groups[0].Courses[0] != "c1" {
		t.Fatalf("groups = %+v, %v", groups, err)
	}
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	wantRequest(t, reqs[0], "GET", "/v1/users", "")
	wantRequest(t, reqs[2], "GET", "/v1/usergroups", "")
}

func TestUserExternalIDIsSentAsExternalIdentifier(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(`{"id":"u-9","username":"a","externalId":"HR-1"}`))
	u, err := f.client().Users.Save(context.Background(), v1.User{Username: "a", ExternalID: "HR-1"})
	if err != nil || u.ExternalID != "HR-1" {
		t.Fatalf("Save = %+v, %v", u, err)
	}
	wantRequest(t, f.only(), "POST", "/v1/users", `{"username":"a","externalIdentifier":"HR-1"}`)
}

// v2 and v1 word the empty-id error the same way.
func TestEmptyIDMessage(t *testing.T) {
	t.Parallel()
	c := newFake(t).client()
	for _, err := range []error{
		c.Users.Delete(context.Background(), ""),
		func() error { _, err := c.Users.Courses(context.Background(), " "); return err }(),
	} {
		if err == nil || err.Error() != "edapp: invalid input: userID is empty" {
			t.Errorf("err = %v", err)
		}
	}
	if err := c.UserGroups.Delete(context.Background(), ""); err == nil || err.Error() != "edapp: invalid input: groupID is empty" {
		t.Errorf("err = %v", err)
	}
}

// Types that hold the secrets the way a caller's own types would.
type (
	exportedHolder struct {
		T    v1.UserToken
		L    edapp.LaunchLink
		P    *edapp.LaunchLink
		Ts   []v1.UserToken
		Ls   []*edapp.LaunchLink
		M    map[string]edapp.LaunchLink
		MT   map[string]v1.UserToken
		Tok  edapp.Secret
		Deep struct{ L []edapp.LaunchLink }
	}
	// encoding/xml takes no maps.
	xmlHolder struct {
		T   v1.UserToken
		L   edapp.LaunchLink
		Ls  []*edapp.LaunchLink
		Tok edapp.Secret
		t   v1.UserToken
	}
	unexportedHolder struct {
		t    v1.UserToken
		l    edapp.LaunchLink
		p    *edapp.LaunchLink
		tp   *v1.UserToken
		ts   []v1.UserToken
		ls   []edapp.LaunchLink
		lps  []*edapp.LaunchLink
		m    map[string]edapp.LaunchLink
		mt   map[string]v1.UserToken
		tok  edapp.Secret
		deep struct{ l []edapp.LaunchLink }
		Pub  int
	}
)

// TestSecretsNeverPrint prints a v1.UserToken and an edapp.LaunchLink, alone
// and nested in exported and unexported fields, slices and maps, through
// every fmt verb, slog's text and JSON handlers, and encoding/json and
// encoding/xml: neither token shows anywhere.
func TestSecretsNeverPrint(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(`{"token":"ut-SECRET-7"}`))
	tok, err := f.client().Users.Token(context.Background(), "u-1")
	if err != nil || tok.Value() != "ut-SECRET-7" {
		t.Fatalf("Token = %q, %v", tok.Value(), err)
	}
	// In UTC: fmt reads a time's location by reflection, and time.Local is
	// set up lazily by the first test that parses a time, so a local time
	// here would race with the tests running beside this one.
	link, err := edapp.ParseLaunchLink("https://web.example.com/launch-lesson?token=lt-SECRET-8&lesson=l1", time.Now().UTC())
	if err != nil || link.Token.Value() != "lt-SECRET-8" {
		t.Fatalf("ParseLaunchLink = %v, %v", link, err)
	}
	exp := exportedHolder{T: tok, L: *link, P: link, Ts: []v1.UserToken{tok}, Ls: []*edapp.LaunchLink{link},
		M: map[string]edapp.LaunchLink{"k": *link}, MT: map[string]v1.UserToken{"k": tok}, Tok: link.Token}
	exp.Deep.L = []edapp.LaunchLink{*link}
	unexp := unexportedHolder{t: tok, l: *link, p: link, tp: &tok, ts: []v1.UserToken{tok}, ls: []edapp.LaunchLink{*link},
		lps: []*edapp.LaunchLink{link}, m: map[string]edapp.LaunchLink{"k": *link}, mt: map[string]v1.UserToken{"k": tok},
		tok: link.Token}
	unexp.deep.l = []edapp.LaunchLink{*link}
	values := map[string]any{
		"UserToken": tok, "*UserToken": &tok, "LaunchLink": *link, "*LaunchLink": link, "Secret": link.Token,
		"exported fields": exp, "*exported fields": &exp, "unexported fields": unexp, "*unexported fields": &unexp,
		"[]UserToken": []v1.UserToken{tok}, "[]LaunchLink": []edapp.LaunchLink{*link}, "[]*LaunchLink": []*edapp.LaunchLink{link},
		"map of UserToken": map[string]v1.UserToken{"k": tok}, "map of LaunchLink": map[string]edapp.LaunchLink{"k": *link},
		"map of *LaunchLink": map[string]*edapp.LaunchLink{"k": link},
		"[]holder":           []any{exp, unexp},
		"xml holder":         xmlHolder{T: tok, L: *link, Ls: []*edapp.LaunchLink{link}, Tok: link.Token, t: tok},
	}
	outs := map[string]string{}
	for name, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "% x", "%#x", "%d", "%t", "%o", "%O",
			"%b", "%e", "%E", "%f", "%g", "%U", "%#U", "%c", "%p", "%T", "%10.40v", "%-8s"} {
			outs[verb+" "+name] = fmt.Sprintf(verb, v)
		}
		outs["Sprint "+name] = fmt.Sprint(v)
		for enc, marshal := range map[string]func(any) ([]byte, error){"json": json.Marshal, "xml": xml.Marshal} {
			if b, err := marshal(v); err == nil {
				outs[enc+" "+name] = string(b)
			}
		}
		var text, js bytes.Buffer
		slog.New(slog.NewTextHandler(&text, nil)).Info("m", "v", v)
		slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "v", v)
		outs["slog text "+name], outs["slog JSON "+name] = text.String(), js.String()
	}
	for what, s := range outs {
		for _, secret := range []string{"SECRET", fmt.Sprintf("%x", "SECRET"), fmt.Sprintf("%X", "SECRET")} {
			if strings.Contains(s, secret) {
				t.Errorf("%s shows a token: %s", what, s)
			}
		}
	}
	// What they show instead.
	for what, want := range map[string]string{
		"%v UserToken":          "[REDACTED]",
		"%v *LaunchLink":        "https://web.example.com/launch-lesson?lesson=l1&token=REDACTED",
		"json UserToken":        `"[REDACTED]"`,
		"xml xml holder":        "<T>[REDACTED]</T>",
		"json *exported fields": `"Tok":"[REDACTED]"`,
	} {
		if !strings.Contains(outs[what], want) {
			t.Errorf("%s = %s, want %s in it", what, outs[what], want)
		}
	}
	if len(outs) < 450 {
		t.Errorf("only %d outputs", len(outs))
	}
}
