package edapptest

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// learnerFixture is a fake with a learner in a group that has a course of
// two lessons, on a fake clock.
type learnerFixture struct {
	harness
	clock   *fakeClock
	user    string
	course  string
	lessons []string
}

func newLearnerFixture(t *testing.T, opts ...Option) learnerFixture {
	t.Helper()
	clock := newFakeClock()
	h := newHarness(t, append([]Option{WithClock(clock.Now)}, opts...)...)
	g := h.mustGroup("Warehouse", "", "")
	c, ls := h.mustCourse(CourseSpec{Title: "Fire <Safety>", Lessons: lessonSpecs("Raising the alarm", "Exits & doors")})
	require.NoError(t, h.AssignCourse(g, c))
	u := h.mustUser(UserSpec{Username: "ann.lee", FirstName: "Ann", LastName: "Lee", Groups: []string{g}})
	return learnerFixture{harness: h, clock: clock, user: u, course: c, lessons: ls}
}

// link mints a launch link for the i-th lesson, as an app would.
func (f learnerFixture) link(i int) string {
	f.t.Helper()
	var cs []v1Course
	f.get("/v1/users/"+f.user+"/courses", &cs)
	require.Len(f.t, cs, 1)
	return cs[0].Lessons[i].LaunchURI
}

// token returns the launch token of a link.
func token(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	tok := u.Query().Get("token")
	require.NotEmpty(t, tok)
	return tok
}

// page sends a request without a bearer token, as a browser would.
func (f learnerFixture) page(method, target string, form url.Values, header map[string]string) resp {
	f.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	if !strings.HasPrefix(target, "http") {
		target = f.URL + target
	}
	req, err := http.NewRequest(method, target, body)
	require.NoError(f.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(f.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(f.t, err)
	return resp{res.StatusCode, res.Header, b}
}

// completeForm is what the launch page's form posts for a completion.
func completeForm(tok, lesson, score string) url.Values {
	return url.Values{"token": {tok}, "lesson": {lesson}, "score": {score}, "action": {"complete"}}
}

func (f learnerFixture) attempts() []wireAttempt {
	f.t.Helper()
	var p page2Attempts
	f.get("/v2/analytics/attempts", &p)
	return p.Items
}

func TestLaunchPageShowsTheLesson(t *testing.T) {
	f := newLearnerFixture(t)
	link := f.link(0)
	tok := token(t, link)
	f.clock.Advance(5 * time.Minute)

	r := f.page("GET", link+"&returnUrl="+url.QueryEscape("http://app.example/back?x=1&y=<2>"), nil, nil)
	require.Equal(t, 200, r.status, string(r.body))
	body := string(r.body)
	assert.Equal(t, "text/html; charset=utf-8", r.header.Get("Content-Type"))
	assert.Contains(t, body, "<h1>Raising the alarm</h1>")
	assert.Contains(t, body, "Fire &lt;Safety&gt;", "escaped course title")
	assert.NotContains(t, body, "<Safety>")
	assert.Contains(t, body, "Ann Lee (ann.lee)")
	assert.Contains(t, body, "2024-03-07 05:30:36 UTC (in 15m0s)", "expiry on the server's clock")
	assert.Contains(t, body, `<input type="hidden" name="token" value="`+tok+`">`)
	assert.Contains(t, body, `name="returnUrl" value="http://app.example/back?x=1&amp;y=&lt;2&gt;"`)
	assert.Contains(t, body, `value="complete"`)
	assert.Contains(t, body, `value="leave"`)
	assert.NotContains(t, body, "Back to the app", "only after the learner is done")
	assert.NotContains(t, strings.ToLower(body), "<script")
	assert.NotRegexp(t, `(src|href)="(https?:)?//`, body, "no external assets")
	assert.Contains(t, r.header.Get("Content-Security-Policy"), "default-src 'none'")
	assert.Equal(t, "same-origin", r.header.Get("Referrer-Policy"))
	assert.Equal(t, "no-store", r.header.Get("Cache-Control"))

	// The open is recorded, as before; JSON is still there for those who ask.
	require.Len(t, f.attempts(), 1)
	r = f.page("GET", link, nil, map[string]string{"Accept": "application/json"})
	require.Equal(t, 200, r.status)
	var p launchPage
	r.json(t, &p)
	assert.Equal(t, "Raising the alarm", p.LessonTitle)
	assert.Equal(t, "Fire <Safety>", p.CourseTitle)
}

func TestLaunchPageCompletes(t *testing.T) {
	var mu sync.Mutex
	var got []map[string]any
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		mu.Lock()
		got = append(got, m)
		mu.Unlock()
	}))
	defer recv.Close()
	f := newLearnerFixture(t)
	_, err := f.AddWebhook(WebhookSpec{EventName: edapp.EventLessonCompleted, URL: recv.URL})
	require.NoError(t, err)
	_, err = f.AddWebhook(WebhookSpec{EventName: edapp.EventCourseCompleted, URL: recv.URL})
	require.NoError(t, err)
	back := "https://app.example/lessons/done?from=edapp"

	link := f.link(0)
	tok := token(t, link)
	require.Equal(t, 200, f.page("GET", link+"&returnUrl="+url.QueryEscape(back), nil, nil).status)
	form := completeForm(tok, f.lessons[0], "85")
	form.Set("returnUrl", back)
	r := f.page("POST", "/launch-lesson", form, map[string]string{"Origin": f.URL})
	require.Equal(t, 200, r.status, string(r.body))
	body := string(r.body)
	assert.Contains(t, body, "<strong>Lesson completed</strong> with a score of 85.")
	assert.Contains(t, body, "Sent LessonCompletedEvent to 1 webhook.")
	assert.NotContains(t, body, "course is completed")
	assert.Contains(t, body, `<a class="button" id="return" href="https://app.example/lessons/done?from=edapp">Back to the app</a>`)
	assert.NotContains(t, body, "<form", "no second form after completion")

	att := f.attempts()
	require.Len(t, att, 1, "the completion closes the attempt the launch opened")
	assert.Equal(t, 85, att[0].Score)
	assert.True(t, att[0].Success)
	require.Len(t, got, 1, "delivered before the page answered")
	assert.Equal(t, "LessonCompletedEvent", got[0]["eventName"])
	assert.Equal(t, 85.0, got[0]["score"])

	// The second lesson completes the course; JSON on request.
	tok2 := token(t, f.link(1))
	r = f.page("POST", "/launch-lesson", completeForm(tok2, f.lessons[1], "40.5"), map[string]string{"Accept": "application/json"})
	require.Equal(t, 200, r.status, string(r.body))
	var res launchResult
	r.json(t, &res)
	score := 40.5
	assert.Equal(t, launchResult{LessonID: f.lessons[1], LessonTitle: "Exits & doors", CourseID: f.course, CourseTitle: "Fire <Safety>",
		UserID: f.user, Completed: true, Score: &score, CourseCompleted: true, Deliveries: 2}, res)
	require.Len(t, got, 3)
	assert.Equal(t, "CourseCompletedEvent", got[2]["eventName"])

	// The HTML says so too, and without a returnUrl there is no way back.
	tok3 := token(t, f.link(1))
	r = f.page("POST", "/launch-lesson", completeForm(tok3, f.lessons[1], "100"), nil)
	require.Equal(t, 200, r.status, string(r.body))
	assert.Contains(t, string(r.body), "Sent LessonCompletedEvent to 1 webhook.")
	assert.NotContains(t, string(r.body), "Back to the app")
}

// TestLaunchPageCompletesLikeCompleteLesson runs the same story on two
// fakes, through the page on one and through the helpers on the other,
// and compares everything the service reports.
func TestLaunchPageCompletesLikeCompleteLesson(t *testing.T) {
	type sink struct {
		mu     sync.Mutex
		bodies []string
	}
	story := func(viaPage bool) map[string]string {
		var s sink
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			s.mu.Lock()
			s.bodies = append(s.bodies, string(b))
			s.mu.Unlock()
		}))
		defer recv.Close()
		f := newLearnerFixture(t)
		for _, ev := range []edapp.EventName{edapp.EventLessonCompleted, edapp.EventCourseCompleted} {
			_, err := f.AddWebhook(WebhookSpec{EventName: ev, URL: recv.URL})
			require.NoError(t, err)
		}
		l0, l1 := f.link(0), f.link(1)
		f.clock.Advance(time.Minute)
		if viaPage {
			require.Equal(t, 200, f.page("GET", l0, nil, nil).status)
			f.clock.Advance(time.Minute)
			require.Equal(t, 200, f.page("POST", "/launch-lesson", completeForm(token(t, l0), f.lessons[0], "85"), nil).status)
			f.clock.Advance(time.Minute)
			require.Equal(t, 200, f.page("POST", "/launch-lesson", completeForm(token(t, l1), f.lessons[1], "30"), nil).status)
		} else {
			_, err := f.OpenLesson(f.user, f.lessons[0])
			require.NoError(t, err)
			f.clock.Advance(time.Minute)
			require.NoError(t, f.CompleteLesson(f.user, f.lessons[0], 85))
			f.clock.Advance(time.Minute)
			require.NoError(t, f.CompleteLesson(f.user, f.lessons[1], 30))
		}
		out := map[string]string{}
		for _, p := range []string{
			"/v2/analytics/attempts", "/v2/analytics/courseprogress", "/v2/analytics/lesson-progress/events",
			"/v2/analytics/coursestatistics", "/v2/analytics/lessonstatistics",
			"/v1/reports/user/" + f.user + "/course/" + f.course, "/v1/reports/activities",
		} {
			r := f.do("GET", p, nil)
			require.Equal(t, 200, r.status, p)
			out[p] = string(r.body)
		}
		var cs []v1Course
		f.get("/v1/users/"+f.user+"/courses", &cs)
		for i := range cs[0].Lessons {
			cs[0].Lessons[i].LaunchURI = ""
		}
		b, _ := json.Marshal(cs)
		out["courses"] = string(b)
		s.mu.Lock()
		out["deliveries"] = strings.Join(s.bodies, "\n")
		s.mu.Unlock()
		require.Len(t, s.bodies, 3)
		return out
	}
	assert.Equal(t, story(false), story(true))
}

func TestLaunchPageLeave(t *testing.T) {
	f := newLearnerFixture(t)
	link := f.link(0)
	require.Equal(t, 200, f.page("GET", link, nil, nil).status)
	form := url.Values{"token": {token(t, link)}, "lesson": {f.lessons[0]}, "action": {"leave"}, "returnUrl": {"http://127.0.0.1:9/app"}}
	r := f.page("POST", "/launch-lesson", form, nil)
	require.Equal(t, 200, r.status, string(r.body))
	assert.Contains(t, string(r.body), "<strong>Lesson left</strong> opened but not completed.")
	assert.Contains(t, string(r.body), `href="http://127.0.0.1:9/app">Back to the app</a>`)
	att := f.attempts()
	require.Len(t, att, 1)
	assert.True(t, att[0].CompletedDateTime.IsZero(), "still open")
	assert.Empty(t, f.Deliveries())
}

func TestLaunchPageReturnURL(t *testing.T) {
	f := newLearnerFixture(t)
	for raw, want := range map[string]string{
		"http://localhost:3000/done":           "http://localhost:3000/done",
		"HTTPS://app.example/a?b=c#frag":       "https://app.example/a?b=c#frag",
		"javascript:alert(1)":                  "",
		"JavaScript://app.example/%0aalert(1)": "",
		"data:text/html,<script>x</script>":    "",
		"ftp://files.example/":                 "",
		"/relative/path":                       "",
		"//app.example/no-scheme":              "",
		"http:///no-host":                      "",
		"http://a b/":                          "",
	} {
		tok := token(t, f.link(0))
		form := completeForm(tok, f.lessons[0], "90")
		form.Set("returnUrl", raw)
		r := f.page("POST", "/launch-lesson", form, nil)
		require.Equal(t, 200, r.status, raw)
		if want == "" {
			assert.NotContains(t, string(r.body), "Back to the app", raw)
			continue
		}
		assert.Contains(t, string(r.body), `href="`+want+`">Back to the app`, raw)
	}
	// A returnUrl with quotes and markup cannot break out of the attribute.
	tok := token(t, f.link(0))
	form := completeForm(tok, f.lessons[0], "90")
	form.Set("returnUrl", `http://app.example/"><script>alert(1)</script>`)
	r := f.page("POST", "/launch-lesson", form, nil)
	assert.NotContains(t, string(r.body), "<script>alert")
	assert.Contains(t, string(r.body), "Back to the app")
}

func TestLaunchPageRefusals(t *testing.T) {
	f := newLearnerFixture(t)
	link := f.link(0)
	tok := token(t, link)
	other := token(t, f.link(1))
	nothingChanged := func(what string) {
		t.Helper()
		assert.Empty(t, f.attempts(), what)
		assert.Empty(t, f.Deliveries(), what)
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		header map[string]string
		status int
		text   string
	}{
		{"no token", url.Values{"lesson": {f.lessons[0]}, "score": {"90"}}, nil, 401, "launch token required"},
		{"unknown token", completeForm("00000000-0000-4000-8000-000000000000", f.lessons[0], "90"), nil, 401, "unknown launch token"},
		{"token in the wrong case", completeForm(strings.ToUpper(tok), f.lessons[0], "90"), nil, 401, "unknown launch token"},
		{"another lesson", completeForm(other, f.lessons[0], "90"), nil, 400, "another lesson"},
		{"no lesson", url.Values{"token": {tok}, "score": {"90"}}, nil, 400, "lesson is required"},
		{"score not a number", completeForm(tok, f.lessons[0], "ninety"), nil, 400, "score must be a number from 0 to 100"},
		{"score too high", completeForm(tok, f.lessons[0], "100.5"), nil, 400, "score must be"},
		{"score negative", completeForm(tok, f.lessons[0], "-1"), nil, 400, "score must be"},
		{"score NaN", completeForm(tok, f.lessons[0], "NaN"), nil, 400, "score must be"},
		{"score missing", url.Values{"token": {tok}, "lesson": {f.lessons[0]}}, nil, 400, "score must be"},
		{"bad token beats bad score", completeForm("nope", f.lessons[0], "ninety"), nil, 401, "unknown launch token"},
		{"unknown action", url.Values{"token": {tok}, "lesson": {f.lessons[0]}, "action": {"delete"}}, nil, 400, "unknown action"},
		{"another origin", completeForm(tok, f.lessons[0], "90"), map[string]string{"Origin": "http://evil.example"}, 403, "posted from the launch page"},
		{"opaque origin", completeForm(tok, f.lessons[0], "90"), map[string]string{"Origin": "null"}, 403, "posted from the launch page"},
		{"cross-site fetch", completeForm(tok, f.lessons[0], "90"), map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "posted from the launch page"},
		{"JSON body", completeForm(tok, f.lessons[0], "90"), map[string]string{"Content-Type": "application/json"}, 415, "Unsupported Media Type"},
	} {
		r := f.page("POST", "/launch-lesson", tc.form, tc.header)
		assert.Equal(t, tc.status, r.status, tc.name)
		assert.Equal(t, "text/html; charset=utf-8", r.header.Get("Content-Type"), tc.name)
		assert.Contains(t, string(r.body), tc.text, tc.name)
		assert.Contains(t, string(r.body), `id="error"`, tc.name)
		nothingChanged(tc.name)
	}

	// A body over the bound is refused, however it is sent.
	big := completeForm(tok, f.lessons[0], "90")
	big.Set("pad", strings.Repeat("a", maxFormBytes))
	assert.Equal(t, 413, f.page("POST", "/launch-lesson", big, nil).status)
	req, _ := http.NewRequest("POST", f.URL+"/launch-lesson", io.MultiReader(strings.NewReader(big.Encode())))
	req.ContentLength = -1
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 413, res.StatusCode)
	nothingChanged("oversized")

	// An expired token changes nothing and answers the HTML error page with 410.
	f.clock.Advance(LaunchTokenLifetime)
	r := f.page("POST", "/launch-lesson", completeForm(tok, f.lessons[0], "90"), map[string]string{"Origin": f.URL})
	assert.Equal(t, http.StatusGone, r.status)
	assert.Contains(t, string(r.body), "<h1>This launch link has expired</h1>")
	nothingChanged("expired")
	r = f.page("GET", link, nil, nil)
	assert.Equal(t, http.StatusGone, r.status)
	assert.Equal(t, "text/html; charset=utf-8", r.header.Get("Content-Type"))
	assert.Contains(t, string(r.body), "valid for 20 minutes")
	r = f.page("GET", link, nil, map[string]string{"Accept": "application/json"})
	assert.Equal(t, http.StatusGone, r.status)
	assert.Contains(t, r.message(t), "launch token expired")
	r = f.page("POST", "/launch-lesson", completeForm(tok, f.lessons[0], "90"), map[string]string{"Accept": "application/json"})
	assert.Equal(t, http.StatusGone, r.status)
	r.message(t)
	r = f.page("GET", "/launch-lesson?token=nope&lesson="+f.lessons[0], nil, nil)
	assert.Equal(t, http.StatusUnauthorized, r.status)
	assert.Contains(t, string(r.body), "<h1>This launch link is not valid</h1>")
	nothingChanged("after the error pages")

	// Other methods.
	r = f.page("DELETE", link, nil, nil)
	assert.Equal(t, 405, r.status)
	assert.Equal(t, "GET, HEAD, POST", r.header.Get("Allow"))
}

// lockedBuffer is a bytes.Buffer safe for the fake's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestLaunchPageKeepsTheTokenOutOfTheLogs(t *testing.T) {
	var logs lockedBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	recv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer recv.Close()
	f := newLearnerFixture(t, WithLogger(logger))
	_, err := f.AddWebhook(WebhookSpec{EventName: edapp.EventLessonCompleted, URL: recv.URL})
	require.NoError(t, err)
	link := f.link(0)
	tok := token(t, link)
	f.ResetRequests()

	// The page, with the token also inside a returnUrl.
	back := "http://app.example/back?launch=" + url.QueryEscape(tok)
	require.Equal(t, 200, f.page("GET", link+"&returnUrl="+url.QueryEscape(back), nil, nil).status)
	// The form, as a browser posts it: the Referer holds the page's address.
	hdr := map[string]string{
		"Origin":    f.URL,
		"Referer":   link + "&returnUrl=" + url.QueryEscape(back),
		"X-Copy":    `{"token":"` + tok + `"}`,
		"X-Escaped": url.PathEscape(tok),
	}
	form := completeForm(tok, f.lessons[0], "77")
	form.Set("returnUrl", back)
	r := f.page("POST", "/launch-lesson", form, hdr)
	require.Equal(t, 200, r.status, string(r.body))
	// Refusals too.
	f.page("POST", "/launch-lesson", completeForm(tok, f.lessons[0], "ninety"), hdr)
	f.page("POST", "/launch-lesson", completeForm(tok, f.lessons[1], "90"), hdr)
	f.page("POST", "/launch-lesson?token="+url.QueryEscape(tok), url.Values{"lesson": {f.lessons[0]}, "score": {"50"}}, hdr)

	reqs := f.Requests()
	require.Len(t, reqs, 5)
	assert.Equal(t, 200, reqs[1].Status)
	assert.Equal(t, "REDACTED", reqs[1].Header.Get("X-Escaped"))
	assert.Contains(t, reqs[0].RawQuery, "returnUrl=http%3A%2F%2Fapp.example%2Fback%3Flaunch%3DREDACTED")
	for _, r := range reqs {
		assert.Nil(t, r.Body, "the form is never kept")
	}
	assertNoSecret(t, dumpRequests(t, reqs), tok, "request log")
	require.NotEmpty(t, logs.String())
	assert.Contains(t, logs.String(), "edapptest webhook delivery")
	assertNoSecret(t, logs.String(), tok, "logger")
	require.Len(t, f.attempts(), 2, "one open, then the completion closed it; the query token completed another")
}

func TestLearnerHome(t *testing.T) {
	f := newLearnerFixture(t, WithBudget(1, time.Hour))
	require.NoError(t, f.CompleteLesson(f.user, f.lessons[0], 90))
	f.FailNext(5, 500, 0)

	r := f.page("GET", "/learner/"+f.user, nil, nil) // no bearer token
	require.Equal(t, 200, r.status, string(r.body))
	body := string(r.body)
	assert.Equal(t, "text/html; charset=utf-8", r.header.Get("Content-Type"))
	assert.Contains(t, body, "<h1>Ann Lee (ann.lee)</h1>")
	assert.Contains(t, body, "<h2>Fire &lt;Safety&gt;</h2>")
	assert.Contains(t, body, "<td>Raising the alarm</td><td>completed</td>")
	assert.Contains(t, body, "<td>Exits &amp; doors</td><td>not started</td>")
	assert.NotContains(t, body, f.Token, "never the API token")
	assert.NotContains(t, strings.ToLower(body), "<script")

	links := regexp.MustCompile(`<a href="([^"]+)">Launch</a>`).FindAllStringSubmatch(body, -1)
	require.Len(t, links, 2)
	second := strings.ReplaceAll(links[1][1], "&amp;", "&")
	assert.True(t, strings.HasPrefix(second, f.URL+"/launch-lesson?token="), second)
	r = f.page("GET", second, nil, nil)
	require.Equal(t, 200, r.status, "the link launches")
	assert.Contains(t, string(r.body), "<h1>Exits &amp; doors</h1>")

	// Fresh links on every visit; the opened lesson shows.
	r = f.page("GET", "/Learner/"+f.user+"/", nil, nil)
	require.Equal(t, 200, r.status)
	assert.NotContains(t, string(r.body), links[1][1])
	assert.Contains(t, string(r.body), "<td>Exits &amp; doors</td><td>opened</td>")

	// Unknown users, other methods.
	r = f.page("GET", "/learner/usr_404", nil, nil)
	assert.Equal(t, 404, r.status)
	assert.Contains(t, string(r.body), `user &#34;usr_404&#34; not found`)
	assert.Equal(t, 405, f.page("POST", "/learner/"+f.user, url.Values{}, nil).status)
	r = f.page("GET", "/learner/"+f.user+"/more", nil, nil)
	assert.Equal(t, 401, r.status, "only /learner/{userId} is open")

	// The pages spent neither the budget nor the injected failures.
	assert.Equal(t, 500, f.do("GET", "/v2/users", nil).status)
}
