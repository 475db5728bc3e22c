package fakeserve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var asJSON = map[string]string{"Accept": "application/json"}

// post sends a launch form as JSON's client, with extra headers.
func (f fixture) post(form url.Values, header map[string]string) resp {
	f.t.Helper()
	h := map[string]string{"Accept": "application/json"}
	for k, v := range header {
		h[k] = v
	}
	return f.page("POST", "/launch-lesson", form, h)
}

func (r resp) decode(t *testing.T, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal([]byte(r.body), v), r.body)
}

func (r resp) message(t *testing.T) string {
	t.Helper()
	var e struct{ Message string }
	r.decode(t, &e)
	return e.Message
}

// api answers a GET of the fake's API, with its token.
func (f fixture) api(path string) string {
	f.t.Helper()
	req, err := http.NewRequest("GET", f.fake.URL+path, nil)
	require.NoError(f.t, err)
	req.Header.Set("Authorization", "Bearer "+f.fake.Token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(f.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(f.t, err)
	require.Equal(f.t, 200, res.StatusCode, path)
	return string(b)
}

func (f fixture) attempts() []struct{ ID, CompletedDateTime string } {
	f.t.Helper()
	var p struct {
		Items []struct{ ID, CompletedDateTime string }
	}
	require.NoError(f.t, json.Unmarshal([]byte(f.api("/v2/analytics/attempts")), &p))
	return p.Items
}

// TestLaunchJSONOpens: a launch link opens the lesson and answers the
// launch, with the expiry on the fake's clock.
func TestLaunchJSONOpens(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	link := f.link(0)
	f.advance(5 * time.Minute)
	r := f.page("GET", link+"&returnUrl="+url.QueryEscape("http://app.example/back"), nil, asJSON)
	require.Equal(t, 200, r.status, r.body)
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	var p launchPage
	r.decode(t, &p)
	assert.Equal(t, launchPage{launchInfo: launchInfo{LessonID: f.lessons[0], LessonTitle: "Raising the alarm",
		CourseID: p.CourseID, CourseTitle: "Fire <Safety>", UserID: f.user, Learner: "Ann Lee (ann.lee)", MinimumScore: 70,
		ExpiresAt: time.Date(2024, 3, 7, 5, 30, 36, 0, time.UTC), ExpiresIn: 15 * 60}, AttemptID: p.AttemptID}, p)
	require.Len(t, f.attempts(), 1, "the open is recorded")
	assert.Equal(t, f.attempts()[0].ID, p.AttemptID)
}

func TestLaunchJSONCompletes(t *testing.T) {
	t.Parallel()
	recv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer recv.Close()
	f := newFixture(t)
	for _, ev := range []edapp.EventName{edapp.EventLessonCompleted, edapp.EventCourseCompleted} {
		_, err := f.fake.AddWebhook(edapptest.WebhookSpec{EventName: ev, URL: recv.URL})
		require.NoError(t, err)
	}
	link := f.link(0)
	require.Equal(t, 200, f.page("GET", link, nil, asJSON).status)
	r := f.post(completeForm(token(t, link), f.lessons[0], "85"), map[string]string{"Origin": f.URL})
	require.Equal(t, 200, r.status, r.body)
	var res launchResult
	r.decode(t, &res)
	assert.True(t, res.Completed)
	assert.False(t, res.CourseCompleted)
	assert.Equal(t, []sentEvent{{edapp.EventLessonCompleted, 1}}, res.Events)
	require.Len(t, f.attempts(), 1, "the completion closes the attempt the launch opened")

	r = f.post(completeForm(token(t, f.link(1)), f.lessons[1], "40.5"), nil)
	require.Equal(t, 200, r.status, r.body)
	res = launchResult{}
	r.decode(t, &res)
	score := 40.5
	assert.Equal(t, launchResult{launchInfo: launchInfo{LessonID: f.lessons[1], LessonTitle: "Exits & doors", CourseID: res.CourseID,
		CourseTitle: "Fire <Safety>", UserID: f.user, Learner: "Ann Lee (ann.lee)", ExpiresAt: res.ExpiresAt, ExpiresIn: 20 * 60},
		Completed: true, Score: &score, CourseCompleted: true, Deliveries: 2,
		Events: []sentEvent{{edapp.EventLessonCompleted, 1}, {edapp.EventCourseCompleted, 1}}}, res)
	assert.Len(t, f.fake.Deliveries(), 3)
}

// TestLaunchJSONCompletesLikeCompleteLesson runs the same story on two
// fakes, through the launch form on one and through the helpers on the
// other, and compares everything the service reports.
func TestLaunchJSONCompletesLikeCompleteLesson(t *testing.T) {
	t.Parallel()
	story := func(viaPage bool) map[string]string {
		var mu sync.Mutex
		var bodies []string
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			bodies = append(bodies, string(b))
			mu.Unlock()
		}))
		defer recv.Close()
		f := newFixture(t)
		for _, ev := range []edapp.EventName{edapp.EventLessonCompleted, edapp.EventCourseCompleted} {
			_, err := f.fake.AddWebhook(edapptest.WebhookSpec{EventName: ev, URL: recv.URL})
			require.NoError(t, err)
		}
		l0, l1 := f.link(0), f.link(1)
		f.advance(time.Minute)
		if viaPage {
			require.Equal(t, 200, f.page("GET", l0, nil, asJSON).status)
			f.advance(time.Minute)
			require.Equal(t, 200, f.post(completeForm(token(t, l0), f.lessons[0], "85"), nil).status)
			f.advance(time.Minute)
			require.Equal(t, 200, f.post(completeForm(token(t, l1), f.lessons[1], "30"), nil).status)
		} else {
			_, err := f.fake.OpenLesson(f.user, f.lessons[0])
			require.NoError(t, err)
			f.advance(time.Minute)
			require.NoError(t, f.fake.CompleteLesson(f.user, f.lessons[0], 85))
			f.advance(time.Minute)
			require.NoError(t, f.fake.CompleteLesson(f.user, f.lessons[1], 30))
		}
		out := map[string]string{}
		for _, p := range []string{
			"/v2/analytics/attempts", "/v2/analytics/courseprogress", "/v2/analytics/lesson-progress/events",
			"/v2/analytics/coursestatistics", "/v2/analytics/lessonstatistics", "/v1/reports/activities",
		} {
			out[p] = f.api(p)
		}
		mu.Lock()
		out["deliveries"] = strings.Join(bodies, "\n")
		mu.Unlock()
		require.Len(t, bodies, 3)
		return out
	}
	assert.Equal(t, story(false), story(true))
}

func TestLaunchJSONLeave(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	link := f.link(0)
	require.Equal(t, 200, f.page("GET", link, nil, asJSON).status)
	r := f.post(url.Values{"token": {token(t, link)}, "lesson": {f.lessons[0]}, "action": {"leave"}}, nil)
	require.Equal(t, 200, r.status, r.body)
	var res launchResult
	r.decode(t, &res)
	assert.False(t, res.Completed)
	assert.Equal(t, "Raising the alarm", res.LessonTitle)
	att := f.attempts()
	require.Len(t, att, 1)
	assert.Empty(t, att[0].CompletedDateTime, "still open")
	assert.Empty(t, f.fake.Deliveries())
}

func TestLaunchJSONRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	link := f.link(0)
	tok, other := token(t, link), token(t, f.link(1))
	nothingChanged := func(what string) {
		t.Helper()
		assert.Empty(t, f.attempts(), what)
		assert.Empty(t, f.fake.Deliveries(), what)
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
		{"token in the wrong case", completeForm(strings.ToLower(tok), f.lessons[0], "90"), nil, 401, "unknown launch token"},
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
		r := f.post(tc.form, tc.header)
		assert.Equal(t, tc.status, r.status, tc.name)
		assert.Contains(t, r.message(t), tc.text, tc.name)
		nothingChanged(tc.name)
	}

	// A body over the bound is refused, however it is sent.
	big := completeForm(tok, f.lessons[0], "90")
	big.Set("pad", strings.Repeat("a", maxFormBytes))
	assert.Equal(t, 413, f.post(big, nil).status)
	req, _ := http.NewRequest("POST", f.URL+"/launch-lesson", io.MultiReader(strings.NewReader(big.Encode())))
	req.ContentLength = -1
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 413, res.StatusCode)
	nothingChanged("oversized")

	// A body cut short changes nothing: "score=85" cut to "score=8" is
	// not a score of 8.
	cut := "token=" + url.QueryEscape(tok) + "&lesson=" + url.QueryEscape(f.lessons[0]) + "&action=complete&score=8"
	req = httptest.NewRequest("POST", "/launch-lesson", io.MultiReader(strings.NewReader(cut), iotest.ErrReader(io.ErrUnexpectedEOF)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	launchJSON(f.fake, rec, req)
	assert.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	nothingChanged("cut short")

	f.advance(edapptest.LaunchTokenLifetime)
	r := f.post(completeForm(tok, f.lessons[0], "90"), map[string]string{"Origin": f.URL})
	assert.Equal(t, http.StatusGone, r.status)
	assert.Contains(t, r.message(t), "valid for 20 minutes")
	nothingChanged("expired")
}

// TestLaunchJSONKeepsTheTokenFromTheFake: the learner's side never
// reaches the fake's request log.
func TestLaunchJSONKeepsTheTokenFromTheFake(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	link := f.link(0)
	tok := token(t, link)
	f.fake.ResetRequests()
	require.Equal(t, 200, f.page("GET", link, nil, asJSON).status)
	require.Equal(t, 200, f.post(completeForm(tok, f.lessons[0], "77"), map[string]string{"Referer": link}).status)
	f.post(completeForm(tok, f.lessons[1], "90"), nil)
	assert.Empty(t, f.fake.Requests())
}

func TestLearnerJSON(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	require.NoError(t, f.fake.CompleteLesson(f.user, f.lessons[0], 90))
	f.fake.FailNext(5, 500, 0)

	r := f.page("GET", "/learner/"+f.user, nil, asJSON) // no bearer token
	require.Equal(t, 200, r.status, r.body)
	assert.NotContains(t, r.body, f.fake.Token, "never the API token")
	var home learnerView
	r.decode(t, &home)
	assert.Equal(t, f.user, home.UserID)
	assert.Equal(t, "Ann Lee (ann.lee)", home.Learner)
	require.Len(t, home.Courses, 1)
	lessons := home.Courses[0].Lessons
	require.Len(t, lessons, 2)
	assert.True(t, lessons[0].Completed)
	assert.False(t, lessons[1].Opened)
	assert.True(t, strings.HasPrefix(lessons[1].LaunchURI, f.URL+"/launch-lesson?token="), lessons[1].LaunchURI)

	r = f.page("GET", "/learner/usr_404", nil, asJSON)
	assert.Equal(t, 404, r.status)
	assert.Contains(t, r.message(t), `user "usr_404" not found`)
	assert.Equal(t, 405, f.page("POST", "/learner/"+f.user, url.Values{}, asJSON).status)
	assert.Empty(t, f.fake.Requests(), "the learner's side spent no injected failure")
	assert.Equal(t, 401, f.page("GET", "/learner/"+f.user+"/more", nil, asJSON).status, "only /learner/{userId} is open")
}
