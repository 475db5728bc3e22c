package fakeserve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is a fake served through Handler, with a learner in a group
// that has a course of two lessons, on a fake clock.
type fixture struct {
	t       *testing.T
	fake    *edapptest.Server
	URL     string              // of Handler
	advance func(time.Duration) // the fake's clock
	user    string
	lessons []string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	var now atomic.Int64
	now.Store(time.Date(2024, 3, 7, 5, 10, 36, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()).UTC() }
	fake := edapptest.New(t, edapptest.WithClock(clock))
	pages := httptest.NewServer(Handler(fake))
	t.Cleanup(pages.Close)
	g, err := fake.AddGroup(edapptest.GroupSpec{Name: "Warehouse"})
	require.NoError(t, err)
	course, lessons, err := fake.AddCourse(edapptest.CourseSpec{Title: "Fire <Safety>", Lessons: []edapptest.LessonSpec{
		{Title: "Raising the alarm", MinimumScore: 70}, {Title: "Exits & doors"}}})
	require.NoError(t, err)
	require.NoError(t, fake.AssignCourse(g, course))
	u, err := fake.AddUser(edapptest.UserSpec{Username: "ann.lee", FirstName: "Ann", LastName: "Lee", Groups: []string{g}})
	require.NoError(t, err)
	return fixture{t: t, fake: fake, URL: pages.URL, advance: func(d time.Duration) { now.Add(int64(d)) }, user: u, lessons: lessons}
}

// link mints a launch link for the i-th lesson, through the learner home's
// JSON.
func (f fixture) link(i int) string {
	f.t.Helper()
	r := f.page("GET", "/learner/"+f.user, nil, map[string]string{"Accept": "application/json"})
	require.Equal(f.t, 200, r.status, r.body)
	var home learnerView
	require.NoError(f.t, json.Unmarshal([]byte(r.body), &home))
	return home.Courses[0].Lessons[i].LaunchURI
}

func token(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	return u.Query().Get("token")
}

type resp struct {
	status int
	header http.Header
	body   string
}

// page sends a request without a bearer token, as a browser would.
func (f fixture) page(method, target string, form url.Values, header map[string]string) resp {
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
	return resp{res.StatusCode, res.Header, string(b)}
}

func completeForm(tok, lesson, score string) url.Values {
	return url.Values{"token": {tok}, "lesson": {lesson}, "score": {score}, "action": {"complete"}}
}

func TestLaunchPageShowsTheLesson(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	link := f.link(0)
	f.advance(5 * time.Minute)

	r := f.page("GET", link+"&returnUrl="+url.QueryEscape("http://app.example/back?x=1&y=<2>"), nil, nil)
	require.Equal(t, 200, r.status, r.body)
	assert.Equal(t, "text/html; charset=utf-8", r.header.Get("Content-Type"))
	assert.Contains(t, r.body, "<h1>Raising the alarm</h1>")
	assert.Contains(t, r.body, "Fire &lt;Safety&gt;", "escaped course title")
	assert.NotContains(t, r.body, "<Safety>")
	assert.Contains(t, r.body, "Ann Lee (ann.lee)")
	assert.Contains(t, r.body, "passing score 70")
	assert.Contains(t, r.body, "2024-03-07 05:30:36 UTC (in 15m0s)", "expiry on the fake's clock")
	assert.Contains(t, r.body, `<input type="hidden" name="token" value="`+token(t, link)+`">`)
	assert.Contains(t, r.body, `name="returnUrl" value="http://app.example/back?x=1&amp;y=&lt;2&gt;"`)
	assert.Contains(t, r.body, `value="complete"`)
	assert.Contains(t, r.body, `value="leave"`)
	assert.NotContains(t, r.body, "Back to the app", "only after the learner is done")
	assert.NotContains(t, strings.ToLower(r.body), "<script")
	assert.NotRegexp(t, `(src|href)="(https?:)?//`, r.body, "no external assets")
	assert.Contains(t, r.header.Get("Content-Security-Policy"), "default-src 'none'")
	assert.Equal(t, "same-origin", r.header.Get("Referrer-Policy"))
	assert.Equal(t, "no-store", r.header.Get("Cache-Control"))

	// JSON is there for those who ask: the fake's own answer.
	r = f.page("GET", link, nil, map[string]string{"Accept": "application/json"})
	require.Equal(t, 200, r.status)
	assert.Contains(t, r.body, `"lessonTitle":"Raising the alarm"`)
}

func TestLaunchPageCompletes(t *testing.T) {
	t.Parallel()
	recv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer recv.Close()
	f := newFixture(t)
	for _, ev := range []edapp.EventName{edapp.EventLessonCompleted, edapp.EventCourseCompleted} {
		_, err := f.fake.AddWebhook(edapptest.WebhookSpec{EventName: ev, URL: recv.URL})
		require.NoError(t, err)
	}
	back := "https://app.example/lessons/done?from=edapp"
	link := f.link(0)
	require.Equal(t, 200, f.page("GET", link+"&returnUrl="+url.QueryEscape(back), nil, nil).status)
	form := completeForm(token(t, link), f.lessons[0], "85")
	form.Set("returnUrl", back)
	r := f.page("POST", "/launch-lesson", form, map[string]string{"Origin": f.URL})
	require.Equal(t, 200, r.status, r.body)
	assert.Contains(t, r.body, "<strong>Lesson completed</strong> with a score of 85.")
	assert.Contains(t, r.body, "Sent LessonCompletedEvent to 1 webhook.")
	assert.NotContains(t, r.body, "course is completed")
	assert.Contains(t, r.body, `<a class="button" id="return" href="https://app.example/lessons/done?from=edapp">Back to the app</a>`)
	assert.NotContains(t, r.body, "<form", "no second form after completion")
	require.Len(t, f.fake.Deliveries(), 1, "delivered before the page answered")

	// The second lesson completes the course; without a returnUrl there is
	// no way back.
	r = f.page("POST", "/launch-lesson", completeForm(token(t, f.link(1)), f.lessons[1], "40.5"), nil)
	require.Equal(t, 200, r.status, r.body)
	assert.Contains(t, r.body, "with a score of 40.5. The course is completed too.")
	assert.Contains(t, r.body, "Sent LessonCompletedEvent to 1 webhook. Sent CourseCompletedEvent to 1 webhook.")
	assert.NotContains(t, r.body, "Back to the app")
}

func TestLaunchPageLeave(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	link := f.link(0)
	form := url.Values{"token": {token(t, link)}, "lesson": {f.lessons[0]}, "action": {"leave"}, "returnUrl": {"http://127.0.0.1:9/app"}}
	r := f.page("POST", "/launch-lesson", form, nil)
	require.Equal(t, 200, r.status, r.body)
	assert.Contains(t, r.body, "<strong>Lesson left</strong> opened but not completed.")
	assert.Contains(t, r.body, `href="http://127.0.0.1:9/app">Back to the app</a>`)
	assert.Empty(t, f.fake.Deliveries())
}

func TestLaunchPageReturnURL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
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
		form := completeForm(token(t, f.link(0)), f.lessons[0], "90")
		form.Set("returnUrl", raw)
		r := f.page("POST", "/launch-lesson", form, nil)
		require.Equal(t, 200, r.status, raw)
		if want == "" {
			assert.NotContains(t, r.body, "Back to the app", raw)
			continue
		}
		assert.Contains(t, r.body, `href="`+want+`">Back to the app`, raw)
	}
	// A returnUrl with quotes and markup cannot break out of the attribute.
	form := completeForm(token(t, f.link(0)), f.lessons[0], "90")
	form.Set("returnUrl", `http://app.example/"><script>alert(1)</script>`)
	r := f.page("POST", "/launch-lesson", form, nil)
	assert.NotContains(t, r.body, "<script>alert")
	assert.Contains(t, r.body, "Back to the app")
}

// TestLaunchPageErrors: the fake's refusals become error pages with its
// status and message; JSON and other methods pass through.
func TestLaunchPageErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	link := f.link(0)
	tok := token(t, link)
	for _, tc := range []struct {
		name   string
		form   url.Values
		header map[string]string
		status int
		text   string
	}{
		{"unknown token", completeForm("nope", f.lessons[0], "90"), nil, 401, "<h1>This launch link is not valid</h1>"},
		{"bad score", completeForm(tok, f.lessons[0], "ninety"), nil, 400, "score must be a number from 0 to 100"},
		{"another origin", completeForm(tok, f.lessons[0], "90"), map[string]string{"Origin": "http://evil.example"}, 403, "posted from the launch page"},
		{"JSON body", completeForm(tok, f.lessons[0], "90"), map[string]string{"Content-Type": "application/json"}, 415, "Unsupported Media Type"},
		{"too large", url.Values{"pad": {strings.Repeat("a", maxFormBytes)}}, nil, 413, "Request Entity Too Large"},
	} {
		r := f.page("POST", "/launch-lesson", tc.form, tc.header)
		assert.Equal(t, tc.status, r.status, tc.name)
		assert.Equal(t, "text/html; charset=utf-8", r.header.Get("Content-Type"), tc.name)
		assert.Contains(t, r.body, tc.text, tc.name)
		assert.Contains(t, r.body, `id="error"`, tc.name)
	}

	f.advance(edapptest.LaunchTokenLifetime)
	r := f.page("GET", link, nil, nil)
	assert.Equal(t, http.StatusGone, r.status)
	assert.Contains(t, r.body, "<h1>This launch link has expired</h1>")
	assert.Contains(t, r.body, "valid for 20 minutes")
	r = f.page("GET", link, nil, map[string]string{"Accept": "application/json"})
	assert.Equal(t, http.StatusGone, r.status)
	assert.Contains(t, r.body, `"message":"launch token expired`)
	r = f.page("DELETE", link, nil, nil)
	assert.Equal(t, 405, r.status)
	assert.Equal(t, "GET, HEAD, POST", r.header.Get("Allow"))
	assert.Empty(t, f.fake.Deliveries())
}

func TestLearnerPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	require.NoError(t, f.fake.CompleteLesson(f.user, f.lessons[0], 90))

	r := f.page("GET", "/learner/"+f.user, nil, nil) // no bearer token
	require.Equal(t, 200, r.status, r.body)
	assert.Equal(t, "text/html; charset=utf-8", r.header.Get("Content-Type"))
	assert.Contains(t, r.body, "<h1>Ann Lee (ann.lee)</h1>")
	assert.Contains(t, r.body, "<h2>Fire &lt;Safety&gt;</h2>")
	assert.Contains(t, r.body, "<td>Raising the alarm</td><td>completed</td>")
	assert.Contains(t, r.body, "<td>Exits &amp; doors</td><td>not started</td>")
	assert.NotContains(t, r.body, f.fake.Token, "never the API token")
	assert.NotContains(t, strings.ToLower(r.body), "<script")

	links := regexp.MustCompile(`<a href="([^"]+)">Launch</a>`).FindAllStringSubmatch(r.body, -1)
	require.Len(t, links, 2)
	second := strings.ReplaceAll(links[1][1], "&amp;", "&")
	assert.True(t, strings.HasPrefix(second, f.URL+"/launch-lesson?token="), "links lead to the pages: %s", second)
	r = f.page("GET", second, nil, nil)
	require.Equal(t, 200, r.status, "the link launches")
	assert.Contains(t, r.body, "<h1>Exits &amp; doors</h1>")
	r = f.page("GET", "/Learner/"+f.user+"/", nil, nil)
	assert.Contains(t, r.body, "<td>Exits &amp; doors</td><td>opened</td>")

	r = f.page("GET", "/learner/usr_404", nil, nil)
	assert.Equal(t, 404, r.status)
	assert.Contains(t, r.body, `user &#34;usr_404&#34; not found`)
	assert.Equal(t, 405, f.page("POST", "/learner/"+f.user, url.Values{}, nil).status)
}
