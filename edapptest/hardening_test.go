package edapptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
)

// assertNoSecret fails when s holds secret in any of its usual encodings.
func assertNoSecret(t *testing.T, s, secret, what string) {
	t.Helper()
	j, _ := json.Marshal(secret)
	for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret),
		strings.Trim(string(j), `"`), strings.ToUpper(secret)} {
		assert.False(t, strings.Contains(s, form), "%s holds a secret (as %q)", what, form)
	}
}

// dumpRequests renders the request log every way a user might print it.
func dumpRequests(t *testing.T, reqs []Request) string {
	t.Helper()
	j, err := json.Marshal(reqs)
	require.NoError(t, err)
	return fmt.Sprintf("%#v\n%v\n%s", reqs, reqs, j)
}

func TestRequestLogKeepsNoLaunchToken(t *testing.T) {
	h := newHarness(t)
	demo, err := h.SeedDemo()
	require.NoError(t, err)
	var courses []v1Course
	h.get("/v1/users/"+demo.UserIDs[1]+"/courses", &courses)
	link, err := url.Parse(courses[0].Lessons[0].LaunchURI)
	require.NoError(t, err)
	tok, lesson := link.Query().Get("token"), link.Query().Get("lesson")
	require.NotEmpty(t, tok)

	h.ResetRequests()
	for _, q := range []string{
		link.RawQuery,
		"TOKEN=" + url.QueryEscape(tok) + "&lesson=" + lesson,
		"%74oken=" + url.QueryEscape(tok) + "&lesson=" + lesson, // a percent-encoded name
		"lesson=" + lesson + "&token=" + url.QueryEscape(tok) + ";x",
		"token=" + url.QueryEscape(tok) + "&token=" + url.QueryEscape(tok) + "&lesson=" + lesson,
	} {
		req, _ := http.NewRequest("GET", h.URL+"/launch-lesson?"+q, nil)
		req.Header.Set("Referer", "https://web.example.com/launch?token="+tok)
		req.Header.Set("X-Launch", `{"token":"`+tok+`"}`)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
	}
	// An API request with a token parameter is scrubbed too.
	h.do("GET", "/v2/users?token="+url.QueryEscape(tok), nil)

	reqs := h.Requests()
	require.Len(t, reqs, 6)
	assert.Equal(t, 200, reqs[0].Status, "the launch itself worked")
	assert.Equal(t, "lesson="+lesson+"&token=REDACTED", reqs[0].RawQuery)
	assert.Equal(t, "token=REDACTED", reqs[5].RawQuery)
	assertNoSecret(t, dumpRequests(t, reqs), tok, "request log")
	for _, r := range reqs[:5] {
		assert.Nil(t, r.Body, "the launch page's body is not read")
	}
}

func TestAuthBeforeBody(t *testing.T) {
	h := newHarness(t)
	big := bytes.Repeat([]byte("a"), MaxBodyBytes+1)
	small := []byte(`{"name":"sneaky"}`)

	// Without a valid token nothing is read or kept, whatever the size.
	for _, body := range [][]byte{small, big} {
		r := h.raw("POST", "/v2/users", "wrong", body)
		assert.Equal(t, http.StatusUnauthorized, r.status, "auth is checked before the body")
	}
	// With a valid token an oversized body gets 413 and is not kept.
	r := h.raw("POST", "/v2/users", h.Token, big)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status)
	assert.Contains(t, r.message(t), "1048576 bytes")
	// So does one that does not declare its length.
	req, _ := http.NewRequest("POST", h.URL+"/v2/users", io.MultiReader(bytes.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+h.Token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
	// A body at the limit is read.
	at := append([]byte(`{"name":"limit","email":"`), bytes.Repeat([]byte("e"), MaxBodyBytes-len(`{"name":"limit","email":""}`))...)
	at = append(at, `"}`...)
	require.Len(t, at, MaxBodyBytes)
	assert.Equal(t, 200, h.raw("POST", "/v2/users", h.Token, at).status)

	reqs := h.Requests()
	require.Len(t, reqs, 5)
	for i, r := range reqs[:4] {
		assert.Nil(t, r.Body, "request %d: body kept", i)
	}
	assert.Len(t, reqs[4].Body, MaxBodyBytes)
	var users page[v2User]
	h.get("/v2/users", &users)
	assert.Equal(t, 1, users.TotalCount, "the unauthenticated create did nothing")
}

func TestUserTokens(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	h := newHarness(t, WithLogger(slog.New(slog.NewJSONHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	u := h.mustUser(UserSpec{Username: "tok", ExternalID: "EXT/1"})

	var byID, byExt v1UserToken
	h.get("/v1/users/id/"+u+"/token", &byID)
	h.get("/v1/users/external/"+url.PathEscape("EXT/1")+"/token", &byExt)
	require.NotEmpty(t, byID.Token)
	assert.Equal(t, byID, byExt, "one user, one token")
	r := h.do("GET", "/v1/users/id/"+u+"/token", nil)
	assert.Equal(t, []string{"token"}, keys(t, r.body))

	assert.Equal(t, 404, h.do("GET", "/v1/users/id/usr_404/token", nil).status)
	assert.Equal(t, 404, h.do("GET", "/v1/users/external/nobody/token", nil).status)

	mu.Lock()
	out := logs.String()
	mu.Unlock()
	require.Contains(t, out, "/token", "requests were logged")
	assertNoSecret(t, out, byID.Token, "slog output")
	assertNoSecret(t, dumpRequests(t, h.Requests()), byID.Token, "request log")

	// Deleting the user forgets the token.
	h.ok("DELETE", "/v2/users/"+u, nil, nil)
	assert.Equal(t, 404, h.do("GET", "/v1/users/external/EXT%2F1/token", nil).status)
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestV1Lists(t *testing.T) {
	h := newHarness(t)
	g := h.mustGroup("G", "", "")
	var created v1User
	h.ok("POST", "/v1/users", map[string]any{"username": "v1", "externalIdentifier": "LEG-1", "usergroups": []string{g}}, &created)

	var v2 page[v2User]
	h.get("/v2/users?externalId=LEG-1", &v2)
	require.Equal(t, 1, v2.TotalCount, "externalIdentifier is the external id")
	assert.Equal(t, created.ID, v2.Items[0].ID)

	r := h.do("GET", "/v1/users", nil)
	require.Equal(t, 200, r.status)
	require.Equal(t, byte('['), r.body[0], "a bare array: %s", r.body)
	var users []v1User
	r.json(t, &users)
	assert.Equal(t, []v1User{created}, users)

	r = h.do("GET", "/v1/usergroups", nil)
	require.Equal(t, 200, r.status)
	require.Equal(t, byte('['), r.body[0], "a bare array: %s", r.body)
	var groups []v1Group
	r.json(t, &groups)
	assert.Equal(t, []v1Group{{ID: g, Name: "G", Users: []string{created.ID}, Courses: []string{}}}, groups)
}

func TestQueryDatetimeForms(t *testing.T) {
	clock := newFakeClock()
	clock.Set(time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC))
	h := newHarness(t, WithClock(clock.Now))
	u := h.mustUser(UserSpec{Username: "u"})
	_, ls := h.mustCourse(CourseSpec{Title: "C", Lessons: lessonSpecs("L")})
	require.NoError(t, h.CompleteLesson(u, ls[0], 80)) // 01:00
	clock.Advance(time.Hour)
	require.NoError(t, h.CompleteLesson(u, ls[0], 90)) // 02:00

	count := func(param, v string) int {
		t.Helper()
		r := h.do("GET", "/v2/analytics/attempts?"+param+"="+v, nil)
		require.Equal(t, 200, r.status, "%s=%s: %s", param, v, r.body)
		var p page[wireAttempt]
		r.json(t, &p)
		return p.TotalCount
	}
	for _, v := range []string{
		"2026-11-22T01:35:07Z",
		"2026-11-22T01:35:07.123Z",
		url.QueryEscape("2026-11-22 01:35:07.123456"),  // Python's str(datetime)
		"2026-11-22+01:35:07.123456",                   // the same, form-encoded
		url.QueryEscape("2026-11-22T01:35:07+0000"),    // +hhmm
		url.QueryEscape("2026-11-22T01:35:07+00"),      // +hh
		url.QueryEscape("2026-11-22 01:35:07.5+00:00"), // Python with a zone
		"2026-11-22T01:35:07+0000",                     // an unescaped "+" reads as a space
		"2026-11-22T03:35:07%2B0200",                   // another zone, same instant
		"2026-11-22T01:35:07",
	} {
		assert.Equal(t, 1, count("startDateTime", v), "startDateTime=%s", v)
		assert.Equal(t, 1, count("enddatetime", v), "enddatetime=%s", v)
	}
	r := h.do("GET", "/v2/analytics/courseprogress?modifiedSinceDateTime="+url.QueryEscape("2026-11-22 01:35:07.123456"), nil)
	assert.Equal(t, 200, r.status, string(r.body))
	for _, bad := range []string{"yesterday", "2026-11-22T01:35:07+0", "22/11/2026"} {
		assert.Equal(t, 400, h.do("GET", "/v2/analytics/attempts?startDateTime="+url.QueryEscape(bad), nil).status, bad)
	}
}

func TestManagedGroupsField(t *testing.T) {
	for _, tc := range []struct {
		field      ManagedGroupsField
		takes      []string
		ignores    []string
		optionless bool
	}{
		{ManagedGroupsEither, []string{"managedUserGroups", "userGroupsManaged"}, nil, true},
		{ManagedUserGroups, []string{"managedUserGroups"}, []string{"userGroupsManaged"}, false},
		{UserGroupsManaged, []string{"userGroupsManaged"}, []string{"managedUserGroups"}, false},
	} {
		t.Run(string(tc.field), func(t *testing.T) {
			var h harness
			if tc.optionless {
				h = newHarness(t)
			} else {
				h = newHarness(t, WithManagedGroupsField(tc.field))
			}
			g := h.mustGroup("G", "", "")
			for i, name := range append(append([]string{}, tc.takes...), tc.ignores...) {
				want := []string{g}
				if i >= len(tc.takes) {
					want = []string{}
				}
				// Create.
				var u v2User
				r := h.do("POST", "/v2/users", map[string]any{"name": fmt.Sprintf("u%d", i), name: []string{g}})
				require.Equal(t, 200, r.status, string(r.body))
				r.json(t, &u)
				assert.Equal(t, want, u.UserGroupsManaged, "create with %s", name)
				assert.NotContains(t, keys(t, r.body), "managedUserGroups", "responses write userGroupsManaged")
				// Update.
				var plain v2User
				h.ok("POST", "/v2/users", map[string]any{"name": fmt.Sprintf("p%d", i)}, &plain)
				h.ok("PUT", "/v2/users/"+plain.ID, map[string]any{name: []string{g}}, &plain)
				assert.Equal(t, want, plain.UserGroupsManaged, "update with %s", name)
			}
		})
	}
}

func TestEmitTakesEventNames(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t)
	for _, name := range edapp.EventNames() {
		_, err := h.AddWebhook(WebhookSpec{EventName: name, URL: rc.URL})
		require.NoError(t, err)
	}
	for _, name := range edapp.EventNames() {
		require.NoError(t, h.Emit(name, nil), "%s", name)
	}
	ds := h.Deliveries()
	require.Len(t, ds, len(edapp.EventNames()))
	for i, d := range ds {
		assert.Equal(t, edapp.EventNames()[i], d.EventName)
		assert.Equal(t, string(d.EventName), eventName(t, d.Body))
	}
	assert.ErrorIs(t, h.Emit("NoSuchEvent", nil), ErrInvalid)
}
