package edapptest

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
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

// TestServeLaunchOpens: a launch link opens the lesson and answers the
// launch, with the expiry on the server's clock; the returnUrl is the
// page's business and is ignored.
func TestServeLaunchOpens(t *testing.T) {
	f := newLearnerFixture(t)
	link := f.link(0)
	f.clock.Advance(5 * time.Minute)

	r := f.page("GET", link+"&returnUrl="+url.QueryEscape("http://app.example/back"), nil, nil)
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	var p launchPage
	r.json(t, &p)
	assert.Equal(t, launchPage{launchInfo: launchInfo{LessonID: f.lessons[0], LessonTitle: "Raising the alarm",
		CourseID: f.course, CourseTitle: "Fire <Safety>", UserID: f.user, Learner: "Ann Lee (ann.lee)", MinimumScore: 50,
		ExpiresAt: time.Date(2024, 3, 7, 5, 30, 36, 187e6, time.UTC), ExpiresIn: 15 * 60}, AttemptID: p.AttemptID}, p)
	require.Len(t, f.attempts(), 1, "the open is recorded")
	assert.Equal(t, f.attempts()[0].ID, p.AttemptID)
}

func TestServeLaunchCompletes(t *testing.T) {
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

	link := f.link(0)
	require.Equal(t, 200, f.page("GET", link, nil, nil).status)
	r := f.page("POST", "/launch-lesson", completeForm(token(t, link), f.lessons[0], "85"), map[string]string{"Origin": f.URL})
	require.Equal(t, 200, r.status, string(r.body))
	var res launchResult
	r.json(t, &res)
	assert.True(t, res.Completed)
	assert.False(t, res.CourseCompleted)
	assert.Equal(t, []sentEvent{{edapp.EventLessonCompleted, 1}}, res.Events)

	att := f.attempts()
	require.Len(t, att, 1, "the completion closes the attempt the launch opened")
	assert.Equal(t, 85, att[0].Score)
	assert.True(t, att[0].Success)
	require.Len(t, got, 1, "delivered before the answer")
	assert.Equal(t, "LessonCompletedEvent", got[0]["eventName"])
	assert.Equal(t, 85.0, got[0]["score"])

	// The second lesson completes the course.
	r = f.page("POST", "/launch-lesson", completeForm(token(t, f.link(1)), f.lessons[1], "40.5"), nil)
	require.Equal(t, 200, r.status, string(r.body))
	res = launchResult{}
	r.json(t, &res)
	score := 40.5
	assert.Equal(t, launchResult{launchInfo: launchInfo{LessonID: f.lessons[1], LessonTitle: "Exits & doors", CourseID: f.course,
		CourseTitle: "Fire <Safety>", UserID: f.user, Learner: "Ann Lee (ann.lee)", MinimumScore: 50, ExpiresAt: res.ExpiresAt, ExpiresIn: 20 * 60},
		Completed: true, Score: &score, CourseCompleted: true, Deliveries: 2,
		Events: []sentEvent{{edapp.EventLessonCompleted, 1}, {edapp.EventCourseCompleted, 1}}}, res)
	require.Len(t, got, 3)
	assert.Equal(t, "CourseCompletedEvent", got[2]["eventName"])
}

// TestServeLaunchCompletesLikeCompleteLesson runs the same story on two
// fakes, through the launch form on one and through the helpers on the other,
// and compares everything the service reports.
func TestServeLaunchCompletesLikeCompleteLesson(t *testing.T) {
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

func TestServeLaunchLeave(t *testing.T) {
	f := newLearnerFixture(t)
	link := f.link(0)
	require.Equal(t, 200, f.page("GET", link, nil, nil).status)
	form := url.Values{"token": {token(t, link)}, "lesson": {f.lessons[0]}, "action": {"leave"}}
	r := f.page("POST", "/launch-lesson", form, nil)
	require.Equal(t, 200, r.status, string(r.body))
	var res launchResult
	r.json(t, &res)
	assert.False(t, res.Completed)
	assert.Equal(t, "Raising the alarm", res.LessonTitle)
	att := f.attempts()
	require.Len(t, att, 1)
	assert.True(t, att[0].CompletedDateTime.IsZero(), "still open")
	assert.Empty(t, f.Deliveries())
}

func TestServeLaunchRefusals(t *testing.T) {
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
		assert.Contains(t, r.message(t), tc.text, tc.name)
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

	// An expired token changes nothing and answers 410.
	f.clock.Advance(LaunchTokenLifetime)
	r := f.page("POST", "/launch-lesson", completeForm(tok, f.lessons[0], "90"), map[string]string{"Origin": f.URL})
	assert.Equal(t, http.StatusGone, r.status)
	assert.Contains(t, r.message(t), "valid for 20 minutes")
	r = f.page("GET", link, nil, nil)
	assert.Equal(t, http.StatusGone, r.status)
	assert.Contains(t, r.message(t), "launch token expired")
	nothingChanged("expired")

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

func TestServeLaunchKeepsTheTokenOutOfTheLogs(t *testing.T) {
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

func TestServeLearner(t *testing.T) {
	f := newLearnerFixture(t, WithBudget(1, time.Hour))
	require.NoError(t, f.CompleteLesson(f.user, f.lessons[0], 90))
	f.FailNext(5, 500, 0)

	r := f.page("GET", "/learner/"+f.user, nil, nil) // no bearer token
	require.Equal(t, 200, r.status, string(r.body))
	assert.NotContains(t, string(r.body), f.Token, "never the API token")
	var home learnerHome
	r.json(t, &home)
	assert.Equal(t, f.user, home.UserID)
	assert.Equal(t, "Ann Lee (ann.lee)", home.Learner)
	require.Len(t, home.Courses, 1)
	lessons := home.Courses[0].Lessons
	require.Len(t, lessons, 2)
	assert.True(t, lessons[0].Completed)
	assert.False(t, lessons[1].Opened)
	assert.True(t, strings.HasPrefix(lessons[1].LaunchURI, f.URL+"/launch-lesson?token="), lessons[1].LaunchURI)
	require.Equal(t, 200, f.page("GET", lessons[1].LaunchURI, nil, nil).status, "the link launches")

	// Fresh links on every visit; the opened lesson shows.
	r = f.page("GET", "/Learner/"+f.user+"/", nil, nil)
	require.Equal(t, 200, r.status)
	var again learnerHome
	r.json(t, &again)
	assert.NotEqual(t, lessons[1].LaunchURI, again.Courses[0].Lessons[1].LaunchURI)
	assert.True(t, again.Courses[0].Lessons[1].Opened)

	// Unknown users, other methods.
	r = f.page("GET", "/learner/usr_404", nil, nil)
	assert.Equal(t, 404, r.status)
	assert.Contains(t, r.message(t), `user "usr_404" not found`)
	assert.Equal(t, 405, f.page("POST", "/learner/"+f.user, url.Values{}, nil).status)
	r = f.page("GET", "/learner/"+f.user+"/more", nil, nil)
	assert.Equal(t, 401, r.status, "only /learner/{userId} is open")

	// The learner's side spent neither the budget nor the injected failures.
	assert.Equal(t, 500, f.do("GET", "/v2/users", nil).status)
}
