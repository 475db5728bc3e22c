package safetyculture

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCoursesListReadsTheLiveShape(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/courses/v1", 200, fixture(t, "courses.json"))
	page, err := w.client(t).Courses.List(ctx, &CourseListOptions{ListOptions: edapp.ListOptions{Page: 1, PageSize: 2}, CourseIDs: []string{"a", "b"}, SearchTerm: "fork lift"})
	require.NoError(t, err)
	assert.Equal(t, "courseIds=a&courseIds=b&page=1&pageSize=2&searchTerm=fork+lift", w.requests()[0].URL.RawQuery)
	require.Len(t, page.Items, 2)
	total, ok := page.Total()
	assert.True(t, ok)
	assert.Equal(t, 2, total)
	assert.Equal(t, 2, page.NextPage, "a full page: the walk reads on")
	c := page.Items[0]
	assert.Equal(t, 4, c.LessonCount, "LessonCount, capitalised")
	assert.Equal(t, 2, page.Items[1].LessonCount, "lessonCount")
	assert.Equal(t, 35.0, c.Duration)
	assert.Equal(t, 2023, c.CreatedDateTime.Year())
	require.NotNil(t, c.TranslationOriginalCourse)
	assert.Equal(t, 2024, page.Items[1].DueBy.Year())
	assert.JSONEq(t, `"Fleet"`, string(page.Items[1].Extra["category"]), "an unknown field is kept")
	assert.Empty(t, c.Extra)
}

// pagedCourses serves n courses, page by page.
func pagedCourses(n int) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		size, _ := strconv.Atoi(r.URL.Query().Get("pageSize"))
		items := []Course{}
		for i := (page - 1) * size; i < min(page*size, n); i++ {
			items = append(items, Course{ID: fmt.Sprint("c", i)})
		}
		b, _ := json.Marshal(map[string]any{"totalCount": n, "items": items})
		rw.Write(b)
	}
}

func TestCoursesAllWalksEveryPage(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.mux.HandleFunc("GET /training/courses/v1", pagedCourses(7))
	courses, err := collect(t, w.client(t).Courses.All(ctx, &CourseListOptions{ListOptions: edapp.ListOptions{PageSize: 3}}))
	require.NoError(t, err)
	require.Len(t, courses, 7)
	assert.Equal(t, "c6", courses[6].ID)
	assert.Len(t, w.requests(), 3)
}

func TestCoursesLessonsAndLesson(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/courses/v1/{id}/lessons", 200, `{"lessons":[{"id":"l1","title":"Lift","status":"PUBLISHED","minimumScore":80,"slideCount":7},{"id":"l2"}]}`)
	w.handle("GET /training/lessons/v1/{id}", 200, `{"lesson":{"id":"l1","title":"Lift","courseId":"c1"}}`)
	c := w.client(t)
	lessons, err := c.Courses.Lessons(ctx, "c 1")
	require.NoError(t, err)
	require.Len(t, lessons, 2)
	assert.Equal(t, 80.0, lessons[0].MinimumScore)
	assert.JSONEq(t, "7", string(lessons[0].Extra["slideCount"]))
	assert.Equal(t, "/training/courses/v1/c%201/lessons", w.requests()[0].URL.EscapedPath())
	l, err := c.Courses.Lesson(ctx, "l1")
	require.NoError(t, err)
	assert.Equal(t, "c1", l.CourseID)

	m, mt := mockClient(t)
	mt.RegisterResponder("GET", "https://api.example.test/training/courses/v1/c1/lessons", httpmock.NewStringResponder(200, `[{"id":"l9"}]`))
	mt.RegisterResponder("GET", "https://api.example.test/training/lessons/v1/l9", httpmock.NewStringResponder(200, `{"id":"l9","title":"Bare"}`))
	lessons, err = m.Courses.Lessons(ctx, "c1")
	require.NoError(t, err)
	assert.Equal(t, "l9", lessons[0].ID)
	l, err = m.Courses.Lesson(ctx, "l9")
	require.NoError(t, err)
	assert.Equal(t, "Bare", l.Title)
}

func TestCoursesWrites(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	var bodies []string
	w.mux.HandleFunc("PUT /training/courses/v1/{id}/assignments", func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		rw.Write([]byte(`{"usersUpdated":1,"groupsUpdated":1,"sitesUpdated":0}`))
	})
	w.mux.HandleFunc("POST /training/courseprogress/v1/reset", func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		rw.Write([]byte(`{}`))
	})
	c := w.client(t)
	res, err := c.Courses.UpdateAssignments(ctx, "c1", AssignmentsParams{
		Assignments:   []Assignment{{ID: "user_1", Type: AssignUser, IsAssigned: true}, {ID: "role_1", Type: AssignGroup}},
		ClearAllSites: true,
	})
	require.NoError(t, err)
	assert.Equal(t, 1, res.GroupsUpdated)
	_, err = c.Courses.ResetProgress(ctx, ResetProgressParams{CourseID: "c1", UserIDs: []string{"user_1"}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"assignments":[{"id":"user_1","type":"ASSIGNMENT_TYPE_USER","isAssigned":true},{"id":"role_1","type":"ASSIGNMENT_TYPE_GROUP","isAssigned":false}],"clearAllSites":true}`, bodies[0])
	assert.JSONEq(t, `{"courseId":"c1","userIds":["user_1"]}`, bodies[1])
	_, err = c.Courses.ResetProgress(ctx, ResetProgressParams{})
	assert.Error(t, err)
}

func TestCoursesAllTakesTheWalksRequestOptions(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.mux.HandleFunc("GET /training/courses/v1", pagedCourses(10))
	c := w.client(t)
	var resp edapp.Response
	n := 0
	for _, err := range c.Courses.All(ctx, &CourseListOptions{ListOptions: edapp.ListOptions{PageSize: 2}}, edapp.WithPageConcurrency(3), edapp.WithResponseInto(&resp)) {
		require.NoError(t, err)
		assert.Equal(t, 200, resp.StatusCode, "filled before the page's items")
		n++
	}
	assert.Equal(t, 10, n)
	_, err := collect(t, c.Courses.All(ctx, nil, edapp.WithPageConcurrency(0)))
	assert.ErrorIs(t, err, edapp.ErrInvalidInput)
}
