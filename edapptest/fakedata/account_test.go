package fakedata_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
)

func TestSeedAccountSimpleShape(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	h := newHarness(t, edapptest.WithClock(clock.Now))
	rc := newReceiver(t)
	for _, e := range []edapp.EventName{edapp.EventLessonCompleted, edapp.EventCourseCompleted} {
		_, err := h.AddWebhook(edapptest.WebhookSpec{EventName: e, URL: rc.URL})
		require.NoError(t, err)
	}
	require.NoError(t, fakedata.SeedAccount(h.Server, fakedata.AccountSpec{Users: 4, Attempts: 14}))
	assert.Empty(t, h.Deliveries(), "SeedAccount delivers nothing")

	var users page[v2User]
	h.get("/v2/users", &users)
	require.Equal(t, 4, users.TotalCount)
	assert.Equal(t, "learner000001", users.Items[0].Name)
	assert.Equal(t, "LOAD-000001", users.Items[0].ExternalID)
	var courses page[v2Course]
	h.get("/v2/catalog/courses", &courses)
	require.Equal(t, 1, courses.TotalCount, "a course is added when there is none")
	assert.Equal(t, "LOAD-101", courses.Items[0].ExternalID)

	var attempts page[wireAttempt]
	h.get("/v2/analytics/attempts?pageSize=1000", &attempts)
	require.Equal(t, 14, attempts.TotalCount)
	perUser := map[string][]wireAttempt{}
	for i, a := range attempts.Items {
		assert.True(t, a.CompletedDateTime.t.After(a.StartedDateTime.t), "attempt %d", i)
		assert.True(t, a.StartedDateTime.t.After(clock.Now().Add(-91*24*time.Hour)), "attempt %d is recent", i)
		assert.True(t, a.CompletedDateTime.t.Before(clock.Now()), "attempt %d is in the past", i)
		assert.True(t, a.Score >= 40 && a.Score <= 100, "score %d", a.Score)
		if i > 0 {
			assert.False(t, a.StartedDateTime.t.Before(attempts.Items[i-1].StartedDateTime.t), "in start order")
		}
		perUser[a.UserID] = append(perUser[a.UserID], a)
	}
	// 14 attempts over 4 learners: 4, 4, 3, 3, taking the lessons in order.
	var lessons []v2Lesson
	h.get("/v2/catalog/courses/"+courses.Items[0].ID+"/lessons", &lessons)
	require.Len(t, lessons, 3)
	for _, u := range users.Items {
		as := perUser[u.ID]
		require.GreaterOrEqual(t, len(as), 3, u.Name)
		for k, a := range as {
			assert.Equal(t, lessons[k%3].ID, a.LessonID, "%s's attempt %d", u.Name, k)
		}
	}
	var events page[wireProgressEvent]
	h.get("/v2/analytics/lesson-progress/events", &events)
	assert.Equal(t, 28, events.TotalCount, "an open and a completion per attempt")

	// Every learner completed the course, when their third lesson was
	// first completed.
	var progress page[wireCourseProgress]
	h.get("/v2/analytics/courseprogress", &progress)
	require.Equal(t, 4, progress.TotalCount)
	for _, p := range progress.Items {
		assert.True(t, p.Completed, p.UserName)
		assert.Equal(t, perUser[p.UserID][2].CompletedDateTime, p.CompletedDateTime, p.UserName)
		assert.Equal(t, 100.0, p.PercentageCompleted)
	}
	// The learners reach the course through the Load group.
	var mine []v1Course
	h.get("/v1/users/"+users.Items[0].ID+"/courses", &mine)
	assert.Len(t, mine, 1)

	// Again: new learners with new names; then the same as data that is
	// there already is refused with nothing changed.
	require.NoError(t, fakedata.SeedAccount(h.Server, fakedata.AccountSpec{Users: 2}))
	h.get("/v2/users", &users)
	assert.Equal(t, 6, users.TotalCount)
	h.mustUser(edapptest.UserSpec{Username: "learner000008"}) // takes usr_7
	assert.ErrorIs(t, fakedata.SeedAccount(h.Server, fakedata.AccountSpec{Users: 2, Attempts: 10}), edapptest.ErrConflict)
	h.get("/v2/users", &users)
	assert.Equal(t, 7, users.TotalCount)
	h.get("/v2/analytics/attempts", &attempts)
	assert.Equal(t, 14, attempts.TotalCount)

	// Spread over existing users.
	require.NoError(t, fakedata.SeedAccount(h.Server, fakedata.AccountSpec{Users: 0, Attempts: 7}))
	h.get("/v2/analytics/attempts", &attempts)
	assert.Equal(t, 21, attempts.TotalCount)

	assert.ErrorIs(t, fakedata.SeedAccount(h.Server, fakedata.AccountSpec{Users: -1}), edapptest.ErrInvalid)
	assert.ErrorIs(t, fakedata.SeedAccount(newHarness(t).Server, fakedata.AccountSpec{Users: 0, Attempts: 5}), edapptest.ErrInvalid, "nobody to attempt")
	empty := newHarness(t)
	_, _, err := empty.AddCourse(edapptest.CourseSpec{Title: "Draft", Lessons: []edapptest.LessonSpec{{Title: "D", Status: "unpublished"}}})
	require.NoError(t, err)
	assert.ErrorIs(t, fakedata.SeedAccount(empty.Server, fakedata.AccountSpec{Users: 1, Attempts: 1}), edapptest.ErrInvalid, "no published lesson")
}

// TestSeedAccountLarge seeds the size of a large export and reads pages of
// it; it logs the time taken (go test -run SeedAccountLarge -v).
func TestSeedAccountLarge(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("large data set")
	}
	h := newHarness(t)
	start := time.Now()
	require.NoError(t, fakedata.SeedAccount(h.Server, fakedata.AccountSpec{Users: 5000, Attempts: 200_000}))
	t.Logf("SeedAccount(5000 users, 200000 attempts): %v", time.Since(start))

	var attempts page[wireAttempt]
	start = time.Now()
	h.get("/v2/analytics/attempts?page=150&pageSize=1000", &attempts)
	t.Logf("one page of 1000 attempts: %v", time.Since(start))
	assert.Equal(t, 200_000, attempts.TotalCount)
	assert.Len(t, attempts.Items, 1000)
	var progress page[wireCourseProgress]
	start = time.Now()
	h.get("/v2/analytics/courseprogress?pageSize=1000&page=5", &progress)
	t.Logf("one page of 1000 course progress records: %v", time.Since(start))
	assert.Equal(t, 5000, progress.TotalCount)
	var users page[v2User]
	h.get("/v2/users?externalId=LOAD-004999", &users)
	assert.Equal(t, 1, users.TotalCount)
}

func BenchmarkSeedAccountSimple(b *testing.B) {
	for b.Loop() {
		s, err := edapptest.NewServer()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		if err := fakedata.SeedAccount(s, fakedata.AccountSpec{Users: 5000, Attempts: 200_000}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSeedAccount loads the realistic shape and checks it against what
// the routes answer; it logs the time the load took (go test -run
// 'TestSeedAccount$' -v).
func TestSeedAccount(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("large data set")
	}
	h := newHarness(t)
	start := time.Now()
	require.NoError(t, fakedata.SeedAccount(h.Server, fakedata.RealisticAccount))
	t.Logf("SeedAccount(%+v): %v", fakedata.RealisticAccount, time.Since(start))

	users := walk[v2User](h, "/v2/users")
	groups := walk[v2Group](h, "/v2/usergroups")
	require.Len(t, users, 5000)
	require.Len(t, groups, 300)
	checkMemberships(t, h, users, groups)
	checkHierarchy(t, h, groups)
	checkCollections(t, h)

	checkTotals(t, h)
	// Attempts spread over every course and lesson.
	for _, c := range walk[wireCourseStatistics](h, "/v2/analytics/coursestatistics") {
		assert.Positive(t, c.OpenedCount, c.CourseID)
		assert.Positive(t, c.TotalUsers, c.CourseID)
	}
	lessons := walk[wireLessonStatistics](h, "/v2/analytics/lessonstatistics")
	require.Len(t, lessons, 1600)
	for _, l := range lessons {
		assert.Positive(t, l.CompletedCount, l.LessonID)
	}
}

// checkTotals: the record counts of the analytics lists.
func checkTotals(t *testing.T, h harness) {
	total := func(path string) int {
		var p page[json.RawMessage]
		h.get(path+"?pageSize=1", &p)
		return p.TotalCount
	}
	assert.Equal(t, 200_000, total("/v2/analytics/attempts"))
	assert.Equal(t, 400_000, total("/v2/analytics/lesson-progress/events"), "an open and a completion per attempt")
	assert.Greater(t, total("/v2/analytics/surveyanswers"), 1000)
	assert.Equal(t, 200, total("/v2/analytics/surveyquestiondefinitions"), "one a course")
	assert.Greater(t, total("/v2/analytics/courseprogress"), 5000)
	var done page[wireCourseProgress]
	h.get("/v2/analytics/courseprogress?pageSize=1000", &done)
	completed := 0
	for _, p := range done.Items {
		if p.Completed {
			completed++
		}
	}
	assert.Positive(t, completed, "some learners completed courses")
}

// walk reads every page of a list, 1,000 records at a time.
func walk[T any](h harness, path string) []T {
	h.t.Helper()
	var out []T
	for n := 1; ; n++ {
		var p page[T]
		h.get(fmt.Sprintf("%s?pageSize=1000&page=%d", path, n), &p)
		out = append(out, p.Items...)
		if len(p.Items) < 1000 {
			return out
		}
	}
}

// checkMemberships: learners are in 0 to 3 groups, a few in none, and
// each user's userGroups agrees with the groups' member lists.
func checkMemberships(t *testing.T, h harness, users []v2User, groups []v2Group) {
	fromUsers, none := map[string][]string{}, 0
	for _, u := range users {
		assert.LessOrEqual(t, len(u.UserGroups), 3, u.Name)
		if len(u.UserGroups) == 0 {
			none++
		}
		for _, g := range u.UserGroups {
			fromUsers[g] = append(fromUsers[g], u.ID)
		}
	}
	assert.True(t, none > 0 && none < len(users)/10, "%d learners in no group", none)
	for _, g := range groups {
		members := walk[v2User](h, "/v2/usersgroups/"+g.ID+"/users")
		assert.ElementsMatch(t, fromUsers[g.ID], ids(members, func(u v2User) string { return u.ID }), g.Name)
	}
	assert.Equal(t, len(groups), h.RequestCount("GET /v2/usergroups/{id}/users"), "one walk of one page per group")
}

// checkHierarchy: some groups have children, and hasChildren agrees with
// the children lists.
func checkHierarchy(t *testing.T, h harness, groups []v2Group) {
	parents := 0
	for _, g := range groups {
		kids := walk[v2Group](h, "/v2/usergroups/"+g.ID+"/children")
		assert.Equal(t, g.HasChildren, len(kids) > 0, g.Name)
		if g.HasChildren {
			parents++
		}
	}
	assert.True(t, parents > 0 && parents < len(groups), "%d of %d groups have children", parents, len(groups))
}

// checkCollections: 20 collections; courses sit in 1 or 2 of them, a few
// in none.
func checkCollections(t *testing.T, h harness) {
	cols := walk[v2Collection](h, "/v2/catalog/coursecollections")
	require.Len(t, cols, 20)
	in := map[string]int{}
	for _, col := range cols {
		for _, c := range walk[v2Course](h, "/v2/catalog/coursecollections/"+col.ID+"/courses") {
			in[c.ID]++
		}
	}
	courses := walk[v2Course](h, "/v2/catalog/courses")
	require.Len(t, courses, 200)
	counts := map[int]int{}
	for _, c := range courses {
		counts[in[c.ID]]++
		var lessons []v2Lesson
		h.get("/v2/catalog/courses/"+c.ID+"/lessons", &lessons)
		assert.Len(t, lessons, 8, c.Title)
	}
	assert.Equal(t, 200, counts[0]+counts[1]+counts[2], "at most 2 collections a course: %v", counts)
	assert.True(t, counts[0] > 0 && counts[0] < 40 && counts[2] > 0, "courses by collections held: %v", counts)
}

// TestSeedAccountDeterministic: the same spec on the same clock gives the
// same account.
func TestSeedAccountDeterministic(t *testing.T) {
	t.Parallel()
	spec := fakedata.AccountSpec{Users: 60, Groups: 12, Collections: 3, Courses: 7, Lessons: 4, Attempts: 900}
	var dumps [2][]string
	for i := range dumps {
		clock := newFakeClock()
		h := newHarness(t, edapptest.WithClock(clock.Now))
		require.NoError(t, fakedata.SeedAccount(h.Server, spec))
		for _, path := range []string{"/v2/users", "/v2/usergroups", "/v2/usergroups/grp_4/children",
			"/v2/usergroups/grp_5/users", "/v2/catalog/courses", "/v2/catalog/coursecollections/col_2/courses",
			"/v2/analytics/attempts", "/v2/analytics/courseprogress", "/v2/analytics/surveyanswers",
			"/v2/analytics/lessonstatistics", "/v2/analytics/coursestatistics"} {
			r := h.do("GET", path+"?pageSize=1000", nil)
			require.Equal(t, http.StatusOK, r.status, path)
			dumps[i] = append(dumps[i], string(r.body))
		}
	}
	assert.Equal(t, dumps[0], dumps[1])
}

func TestSeedAccountBadSpec(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	assert.ErrorIs(t, fakedata.SeedAccount(h.Server, fakedata.AccountSpec{Groups: -1}), edapptest.ErrInvalid)
	assert.ErrorIs(t, fakedata.SeedAccount(h.Server, fakedata.AccountSpec{Attempts: 3}), edapptest.ErrInvalid, "nobody to attempt")
	require.NoError(t, fakedata.SeedAccount(h.Server, fakedata.AccountSpec{Users: 3, Courses: 2, Collections: 1}))
	var users page[v2User]
	h.get("/v2/users", &users)
	assert.Equal(t, 3, users.TotalCount)
}
