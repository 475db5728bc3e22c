package edapptest

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestV1Users(t *testing.T) {
	h := newHarness(t)
	g := h.mustGroup("G", "", "")

	var created v1User
	r := h.do("POST", "/v1/users", map[string]any{"username": "legacy", "email": "l@example.com",
		"usergroups": []string{g}, "firstName": "Leg", "lastName": "Acy"})
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, []string{"id", "username", "email", "usergroups", "firstName", "lastName"}, keys(t, r.body))
	r.json(t, &created)
	assert.Equal(t, v1User{ID: "usr_1", Username: "legacy", Email: "l@example.com", UserGroups: []string{g},
		FirstName: "Leg", LastName: "Acy"}, created)

	// v1 and v2 share the store.
	var v2 v2User
	h.get("/v2/users/"+created.ID, &v2)
	assert.Equal(t, "legacy", v2.Name)
	assert.Equal(t, []string{g}, v2.UserGroups)

	// With an id the POST updates, changing only what is present.
	var updated v1User
	h.ok("POST", "/v1/users", map[string]any{"id": created.ID, "email": "new@example.com"}, &updated)
	assert.Equal(t, created.ID, updated.ID)
	assert.Equal(t, "new@example.com", updated.Email)
	assert.Equal(t, "legacy", updated.Username)
	assert.Equal(t, []string{g}, updated.UserGroups)
	h.ok("POST", "/v1/users", map[string]any{"id": created.ID, "usergroups": []string{}}, &updated)
	assert.Equal(t, []string{}, updated.UserGroups)
	var list page[v2User]
	h.get("/v2/users", &list)
	assert.Equal(t, 1, list.TotalCount, "an update adds no user")

	r = h.do("POST", "/v1/users", map[string]any{"id": "usr_404", "email": "x"})
	assert.Equal(t, 404, r.status)
	r.message(t)
	assert.Equal(t, 400, h.do("POST", "/v1/users", map[string]any{"email": "no-username@example.com"}).status)

	// A v2-created user is visible to v1.
	var fromV2 v2User
	h.ok("POST", "/v2/users", map[string]any{"name": "modern"}, &fromV2)
	h.ok("POST", "/v1/users", map[string]any{"id": fromV2.ID, "firstName": "Mo"}, &updated)
	assert.Equal(t, "modern", updated.Username)

	// Delete.
	var res map[string]any
	h.ok("DELETE", "/v1/users/"+created.ID, nil, &res)
	assert.Equal(t, map[string]any{"success": true}, res)
	r = h.do("DELETE", "/v1/users/"+created.ID, nil)
	assert.Equal(t, 404, r.status)
	r.json(t, &res)
	assert.Equal(t, false, res["success"])
	assert.Contains(t, res["message"], "not found")
}

func TestV1Groups(t *testing.T) {
	h := newHarness(t)
	a := h.mustUser(UserSpec{Username: "a"})
	b := h.mustUser(UserSpec{Username: "b"})
	c1, _ := h.mustCourse(CourseSpec{Title: "C1", Lessons: lessonSpecs("L1")})
	c2, _ := h.mustCourse(CourseSpec{Title: "C2", Lessons: lessonSpecs("L2")})

	var g v1Group
	r := h.do("POST", "/v1/usergroups", map[string]any{"name": "Team", "users": []string{a, b}, "courses": []string{c1}})
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, []string{"id", "name", "users", "courses"}, keys(t, r.body))
	r.json(t, &g)
	assert.Equal(t, v1Group{ID: g.ID, Name: "Team", Users: []string{a, b}, Courses: []string{c1}}, g)

	// Group courses are the assigned courses: members reach them.
	var cs []v1Course
	h.get("/v1/users/"+a+"/courses", &cs)
	assert.Equal(t, []string{c1}, ids(cs, func(c v1Course) string { return c.ID }))

	// Absent keys leave membership and courses alone.
	h.ok("POST", "/v1/usergroups", map[string]any{"id": g.ID, "name": "Renamed"}, &g)
	assert.Equal(t, v1Group{ID: g.ID, Name: "Renamed", Users: []string{a, b}, Courses: []string{c1}}, g)

	// Present keys replace.
	h.ok("POST", "/v1/usergroups", map[string]any{"id": g.ID, "users": []string{b}, "courses": []string{c2, c1}}, &g)
	assert.Equal(t, []string{b}, g.Users)
	assert.Equal(t, []string{c2, c1}, g.Courses)

	// An empty users array removes every member.
	h.ok("POST", "/v1/usergroups", map[string]any{"id": g.ID, "users": []string{}}, &g)
	assert.Equal(t, []string{}, g.Users)
	assert.Equal(t, []string{c2, c1}, g.Courses)
	var members page[v2User]
	h.get("/v2/usersgroups/"+g.ID+"/users", &members)
	assert.Equal(t, 0, members.TotalCount)
	h.get("/v1/users/"+b+"/courses", &cs)
	assert.Empty(t, cs)

	// An empty courses array unassigns every course.
	h.ok("POST", "/v1/usergroups", map[string]any{"id": g.ID, "users": []string{a}, "courses": []string{}}, &g)
	assert.Equal(t, []string{}, g.Courses)
	h.get("/v1/users/"+a+"/courses", &cs)
	assert.Empty(t, cs)

	// A v1 group is a v2 group.
	var v2 page[v2Group]
	h.get("/v2/usersgroups", &v2)
	assert.Equal(t, []v2Group{{ID: g.ID, Name: "Renamed"}}, v2.Items)

	// Errors.
	assert.Equal(t, 404, h.do("POST", "/v1/usergroups", map[string]any{"id": "grp_404", "name": "x"}).status)
	assert.Equal(t, 400, h.do("POST", "/v1/usergroups", map[string]any{"users": []string{a}}).status)
	assert.Equal(t, 400, h.do("POST", "/v1/usergroups", map[string]any{"name": "x", "users": []string{"usr_404"}}).status)
	assert.Equal(t, 400, h.do("POST", "/v1/usergroups", map[string]any{"name": "x", "courses": []string{"crs_404"}}).status)
	assert.Equal(t, 400, h.do("POST", "/v1/usergroups", map[string]any{"id": g.ID, "name": ""}).status)

	var res map[string]any
	h.ok("DELETE", "/v1/usergroups/"+g.ID, nil, &res)
	assert.Equal(t, map[string]any{"success": true}, res)
	r = h.do("DELETE", "/v1/usergroups/"+g.ID, nil)
	assert.Equal(t, 404, r.status)
	r.json(t, &res)
	assert.Equal(t, false, res["success"])
	var u v2User
	h.get("/v2/users/"+a, &u)
	assert.Empty(t, u.UserGroups, "deleting a group ends its memberships")
}

func TestV1UserCoursesShape(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, WithClock(clock.Now))
	g := h.mustGroup("G", "", "")
	c, ls := h.mustCourse(CourseSpec{Title: "Course", Lessons: []LessonSpec{{Title: "One"}, {Title: "Two"}, {Title: "Hidden", Status: "unpublished"}}})
	require.NoError(t, h.AssignCourse(g, c))
	u := h.mustUser(UserSpec{Username: "u", Groups: []string{g}})

	r := h.do("GET", "/v1/users/"+u+"/courses", nil)
	require.Equal(t, 200, r.status)
	var raw []map[string]any
	r.json(t, &raw)
	require.Len(t, raw, 1)
	assert.Equal(t, "2024-03-07T05:10:36.187Z", raw[0]["unlockedDate"])
	assert.Equal(t, true, raw[0]["unlocked"])
	assert.NotContains(t, raw[0], "completedDate", "unset dates are left out")
	assert.NotContains(t, raw[0], "openedDate")
	lessons := raw[0]["lessons"].([]any)
	require.Len(t, lessons, 2, "unpublished lessons are hidden")
	l0 := lessons[0].(map[string]any)
	assert.Equal(t, ls[0], l0["id"])
	assert.Equal(t, false, l0["completed"])
	assert.NotContains(t, l0, "completedDate")

	clock.Advance(time.Minute)
	_, err := h.OpenLesson(u, ls[0])
	require.NoError(t, err)
	clock.Advance(time.Minute)
	require.NoError(t, h.CompleteLesson(u, ls[0], 80))
	var cs []v1Course
	h.get("/v1/users/"+u+"/courses", &cs)
	r = h.do("GET", "/v1/users/"+u+"/courses", nil)
	r.json(t, &raw)
	l0 = raw[0]["lessons"].([]any)[0].(map[string]any)
	assert.Equal(t, "2024-03-07T05:11:36.187Z", l0["openedDate"])
	assert.Equal(t, "2024-03-07T05:12:36.187Z", l0["completedDate"])
	assert.Equal(t, true, l0["completed"])
	assert.Equal(t, "2024-03-07T05:11:36.187Z", raw[0]["openedDate"])
	assert.Equal(t, false, raw[0]["completed"])

	require.NoError(t, h.CompleteLesson(u, ls[1], 90))
	r = h.do("GET", "/v1/users/"+u+"/courses", nil)
	r.json(t, &raw)
	assert.Equal(t, true, raw[0]["completed"], "every published lesson completed")
	assert.Equal(t, "2024-03-07T05:12:36.187Z", raw[0]["completedDate"])
}

func TestLaunchLinks(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, WithClock(clock.Now))
	g := h.mustGroup("G", "", "")
	c, ls := h.mustCourse(CourseSpec{Title: "Course", Lessons: lessonSpecs("One", "Two")})
	require.NoError(t, h.AssignCourse(g, c))
	u := h.mustUser(UserSpec{Username: "u", Groups: []string{g}})

	var cs []v1Course
	h.get("/v1/users/"+u+"/courses", &cs)
	require.Len(t, cs, 1)
	require.Len(t, cs[0].Lessons, 2)
	link := cs[0].Lessons[0].LaunchURI
	parsed, err := url.Parse(link)
	require.NoError(t, err)
	assert.Equal(t, h.URL+"/launch-lesson", parsed.Scheme+"://"+parsed.Host+parsed.Path)
	token := parsed.Query().Get("token")
	assert.NotEmpty(t, token)
	assert.Equal(t, ls[0], parsed.Query().Get("lesson"))

	// Every call mints fresh tokens.
	var again []v1Course
	h.get("/v1/users/"+u+"/courses", &again)
	assert.NotEqual(t, link, again[0].Lessons[0].LaunchURI)
	assert.NotEqual(t, cs[0].Lessons[0].LaunchURI, cs[0].Lessons[1].LaunchURI)

	// A token opens its lesson for LaunchTokenLifetime on the server's clock.
	uid, lid, expires, ok := h.LaunchToken(token)
	require.True(t, ok)
	assert.Equal(t, [2]string{u, ls[0]}, [2]string{uid, lid})
	assert.Equal(t, h.Now().Add(LaunchTokenLifetime), expires)
	_, _, _, ok = h.LaunchToken("00000000-0000-4000-8000-000000000000")
	assert.False(t, ok)

	// A deleted user's tokens are gone.
	h.ok("DELETE", "/v2/users/"+u, nil, nil)
	_, _, _, ok = h.LaunchToken(token)
	assert.False(t, ok)
}

func TestLaunchLinksFollowMountedHost(t *testing.T) {
	s := unstarted(t)
	s.URL = "http://unused.invalid"
	g, _ := s.AddGroup(GroupSpec{Name: "G"})
	c, _, _ := s.AddCourse(CourseSpec{Title: "C", Lessons: lessonSpecs("L")})
	_ = s.AssignCourse(g, c)
	u, _ := s.AddUser(UserSpec{Username: "u", Groups: []string{g}})
	req, _ := http.NewRequest("GET", "http://mounted.example:8080/v1/users/"+u+"/courses", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	require.Equal(t, 200, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"launchURI":"http://mounted.example:8080/launch-lesson?`)
}

func TestV1CourseReport(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, WithClock(clock.Now))
	g := h.mustGroup("G", "", "")
	c, ls := h.mustCourse(CourseSpec{Title: "Course", Lessons: lessonSpecs("One", "Two", "Three")})
	require.NoError(t, h.AssignCourse(g, c))
	u := h.mustUser(UserSpec{Username: "u", Groups: []string{g}})

	_, err := h.OpenLesson(u, ls[0])
	require.NoError(t, err)
	require.NoError(t, h.AddInteraction(Interaction{UserID: u, LessonID: ls[0], Slide: "Intro", Duration: 1500 * time.Millisecond}))
	clock.Advance(time.Second)
	require.NoError(t, h.AddInteraction(Interaction{UserID: u, LessonID: ls[0], Slide: "Quiz", Type: InteractionSlide, Correct: true, TooSlow: true}))
	require.NoError(t, h.AddInteraction(Interaction{UserID: u, LessonID: ls[0], Slide: "Intro", Duration: 2 * time.Second}))
	require.NoError(t, h.CompleteLesson(u, ls[0], 90))
	_, err = h.OpenLesson(u, ls[1])
	require.NoError(t, err)
	clock.Advance(90 * time.Second)
	require.NoError(t, h.CompleteLesson(u, ls[1], 70))

	r := h.do("GET", "/v1/reports/user/"+u+"/course/"+c, nil)
	require.Equal(t, 200, r.status, string(r.body))
	assert.JSONEq(t, `{
		"id": "`+c+`", "title": "Course",
		"unlocked": true, "unlockedDate": "2024-03-07T05:10:36.187Z",
		"completed": false,
		"opened": true, "openedDate": "2024-03-07T05:10:36.187Z",
		"lessons": [
			{"id": "`+ls[0]+`", "title": "One",
			 "unlocked": true, "unlockedDate": "2024-03-07T05:10:36.187Z",
			 "completed": true, "completedDate": "2024-03-07T05:10:37.187Z",
			 "opened": true, "openedDate": "2024-03-07T05:10:36.187Z",
			 "duration": 3.5,
			 "slides": [
				{"name": "Intro", "interactions": [
					{"date": "2024-03-07T05:10:36.187Z", "type": "view", "duration": 1.5},
					{"date": "2024-03-07T05:10:37.187Z", "type": "view", "duration": 2}]},
				{"name": "Quiz", "interactions": [
					{"date": "2024-03-07T05:10:37.187Z", "type": "slide", "result": {"correct": true, "too_slow": true}}]}
			 ]},
			{"id": "`+ls[1]+`", "title": "Two",
			 "unlocked": true, "unlockedDate": "2024-03-07T05:10:36.187Z",
			 "completed": true, "completedDate": "2024-03-07T05:12:07.187Z",
			 "opened": true, "openedDate": "2024-03-07T05:10:37.187Z",
			 "duration": 0, "slides": []}
		]}`, string(r.body))

	assert.Equal(t, 404, h.do("GET", "/v1/reports/user/"+u+"/course/crs_404", nil).status)
	assert.Equal(t, 404, h.do("GET", "/v1/reports/user/usr_404/course/"+c, nil).status)
}

func TestV1Activities(t *testing.T) {
	h := newHarness(t)
	_, ls := h.mustCourse(CourseSpec{Title: "Course", Lessons: lessonSpecs("One")})
	u := h.mustUser(UserSpec{Username: "u"})
	var acts []map[string]any
	h.get("/v1/reports/activities", &acts)
	assert.Empty(t, acts)

	_, err := h.OpenLesson(u, ls[0])
	require.NoError(t, err)
	require.NoError(t, h.CompleteLesson(u, ls[0], 88))
	h.get("/v1/reports/activities", &acts)
	require.Len(t, acts, 2)
	assert.Equal(t, "LessonCompleted", acts[0]["type"])
	assert.Equal(t, float64(88), acts[0]["score"])
	assert.Equal(t, "u", acts[0]["username"])
	assert.Equal(t, "LessonOpened", acts[1]["type"])
	assert.NotContains(t, acts[1], "score")

	for range 120 {
		_, _ = h.OpenLesson(u, ls[0])
	}
	h.get("/v1/reports/activities", &acts)
	assert.Len(t, acts, 100)
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
