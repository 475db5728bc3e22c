package v1_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/lenient"
	v1 "github.com/edapp-go/edapp/v1"
)

func TestUsersCourses(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(fixture(t, "courses.json")))
	courses, err := f.client().Users.Courses(context.Background(), "user 1")
	if err != nil {
		t.Fatal(err)
	}
	wantRequest(t, f.only(), "GET", "/v1/users/user%201/courses", "")
	if len(courses) != 4 {
		t.Fatalf("%d courses, want 4", len(courses))
	}

	c := courses[0]
	if c.ID != "course-1" || c.Title != "Safety basics" || !c.Unlocked || !c.Completed || !c.Opened || len(c.Lessons) != 2 {
		t.Errorf("course 1 = %+v", c)
	}
	sameTime(t, "course-1 unlockedDate", c.UnlockedDate, "2019-03-07T05:10:36.187Z")
	sameTime(t, "course-1 completedDate", c.CompletedDate, "2019-03-08T09:00:00Z")
	sameTime(t, "course-1 openedDate", c.OpenedDate, "2019-03-07T05:12:00.5Z")

	l := c.Lessons[0]
	if l.ID != "lesson-1" || l.Title != "Hazards" || !l.Unlocked || !l.Completed || !l.Opened ||
		l.LaunchURI != "https://web.example.com/launch-lesson?token=tok-1111-secret&lesson=lesson-1" {
		t.Errorf("lesson 1 = %+v", l)
	}
	sameTime(t, "lesson-1 completedDate", l.CompletedDate, "2019-03-07T06:00:00Z")

	// completionDate, a date without a zone (UTC) and one with a space.
	l = c.Lessons[1]
	sameTime(t, "lesson-2 completionDate", l.CompletedDate, "2019-03-08T08:59:59Z")
	sameTime(t, "lesson-2 unlockedDate", l.UnlockedDate, "2019-03-07T05:10:36Z")
	sameTime(t, "lesson-2 openedDate", l.OpenedDate, "2019-03-08T08:00:00Z")

	// null completionDate, "" and null dates, a +10:00 zone.
	c = courses[1]
	if c.Completed || c.Opened || !c.Unlocked {
		t.Errorf("course 2 flags = %+v", c)
	}
	sameTime(t, "course-2 completedDate", c.CompletedDate, "")
	sameTime(t, "course-2 openedDate", c.OpenedDate, "")
	sameTime(t, "lesson-3 unlockedDate", c.Lessons[0].UnlockedDate, "2019-03-31T14:00:00Z")

	// Only id, title and lessons (the spec's sample).
	c = courses[2]
	if c.ID != "course-3" || c.Title != "Welcome" || c.Unlocked || c.Completed || c.Opened ||
		!c.UnlockedDate.IsZero() || !c.CompletedDate.IsZero() || !c.OpenedDate.IsZero() ||
		len(c.Lessons) != 1 || c.Lessons[0].ID != "lesson-4" || c.Lessons[0].LaunchURI == "" {
		t.Errorf("minimal course = %+v", c)
	}

	// Both spellings: completedDate wins; a null completedDate gives way.
	c = courses[3]
	sameTime(t, "course-4 completedDate (both spellings)", c.CompletedDate, "2020-01-02T03:04:05.006Z")
	sameTime(t, "lesson-5 completedDate (null, then completionDate)", c.Lessons[0].CompletedDate, "2020-05-06T07:08:09.010Z")
	if c.Lessons[0].LaunchURI != "" {
		t.Errorf("lesson-5 LaunchURI = %q", c.Lessons[0].LaunchURI)
	}
}

func TestCompletionDateSpellings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"completedDate":"2021-01-01T00:00:00.000Z"}`, "2021-01-01T00:00:00Z"},
		{`{"completionDate":"2021-02-02T00:00:00.000Z"}`, "2021-02-02T00:00:00Z"},
		{`{"completedDate":"2021-01-01T00:00:00Z","completionDate":"2021-02-02T00:00:00Z"}`, "2021-01-01T00:00:00Z"},
		{`{"completionDate":"2021-02-02T00:00:00Z","completedDate":"2021-01-01T00:00:00Z"}`, "2021-01-01T00:00:00Z"},
		{`{"completedDate":null,"completionDate":"2021-02-02T00:00:00Z"}`, "2021-02-02T00:00:00Z"},
		{`{"completedDate":"","completionDate":"2021-02-02T00:00:00Z"}`, "2021-02-02T00:00:00Z"},
		{`{"completedDate":null,"completionDate":null}`, ""},
		{`{}`, ""},
	} {
		var c v1.Course
		var l v1.Lesson
		var r v1.CourseReport
		var rl v1.LessonReport
		for _, v := range []struct {
			name string
			ptr  any
			got  func() edapp.Time
		}{
			{"Course", &c, func() edapp.Time { return c.CompletedDate }},
			{"Lesson", &l, func() edapp.Time { return l.CompletedDate }},
			{"CourseReport", &r, func() edapp.Time { return r.CompletedDate }},
			{"LessonReport", &rl, func() edapp.Time { return rl.CompletedDate }},
		} {
			if _, err := lenient.Decode([]byte(tc.in), v.ptr); err != nil {
				t.Fatalf("%s %s: %v", v.name, tc.in, err)
			}
			sameTime(t, v.name+" "+tc.in, v.got(), tc.want)
		}
	}
}

func TestCourseMarshalsTheSpecSpelling(t *testing.T) {
	t.Parallel()
	var c v1.Course
	if _, err := lenient.Decode([]byte(`{"id":"c","completionDate":"2021-02-02T00:00:00Z"}`), &c); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"completedDate":"2021-02-02T00:00:00.000Z"`) || strings.Contains(string(b), "completionDate") {
		t.Errorf("marshalled %s", b)
	}
}

// One odd date does not fail the answer: the root client drops that value.
func TestUsersCoursesOddDate(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(`[{"id":"c1","title":"T","openedDate":"last Tuesday","lessons":[{"id":"l1","completionDate":"soon"},{"id":"l2","completedDate":"2021-01-01T00:00:00Z"}]}]`))
	courses, err := f.client().Users.Courses(context.Background(), "u-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(courses) != 1 || courses[0].Title != "T" || !courses[0].OpenedDate.IsZero() || len(courses[0].Lessons) != 2 {
		t.Fatalf("courses = %+v", courses)
	}
	sameTime(t, "l1", courses[0].Lessons[0].CompletedDate, "")
	sameTime(t, "l2", courses[0].Lessons[1].CompletedDate, "2021-01-01T00:00:00Z")
}

func TestCourseLesson(t *testing.T) {
	t.Parallel()
	c := v1.Course{Lessons: []v1.Lesson{{ID: "a"}, {ID: "b", Title: "B"}}}
	if l, ok := c.Lesson("b"); !ok || l.Title != "B" {
		t.Errorf("Lesson(b) = %v, %v", l, ok)
	}
	if _, ok := c.Lesson("z"); ok {
		t.Error("Lesson(z) found")
	}
}

func TestLaunchLink(t *testing.T) {
	t.Parallel()
	issued := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	var clockCalls atomic.Int32
	clock := func() time.Time { clockCalls.Add(1); return issued }

	for _, tc := range []struct{ lesson, token string }{
		{"lesson-1", "tok-1111-secret"}, // first course
		{"lesson-3", "tok-3333-secret"}, // second course
		{"lesson-4", "tok-4444-secret"}, // a course with only id, title and lessons
	} {
		t.Run(tc.lesson, func(t *testing.T) {
			clockCalls.Store(0)
			f := newFake(t, ok(fixture(t, "courses.json")))
			f.onReq = func(request) {
				if clockCalls.Load() != 1 {
					t.Error("the clock was not read before the request")
				}
			}
			link, err := f.client(v1.WithClock(clock)).Users.LaunchLink(context.Background(), "u/1", tc.lesson)
			if err != nil {
				t.Fatal(err)
			}
			wantRequest(t, f.only(), "GET", "/v1/users/u%2F1/courses", "")
			if link.LessonID != tc.lesson || link.Token.Value() != tc.token ||
				link.URL.Value() != "https://web.example.com/launch-lesson?token="+tc.token+"&lesson="+tc.lesson {
				t.Errorf("link = %#v (token %q)", link, link.Token.Value())
			}
			if !link.IssuedAt.Equal(issued) {
				t.Errorf("IssuedAt = %v, want %v", link.IssuedAt, issued)
			}
			if got, want := link.ExpiresAt(), issued.Add(20*time.Minute); !got.Equal(want) {
				t.Errorf("ExpiresAt = %v, want %v", got, want)
			}
			if link.Expired(issued.Add(20*time.Minute-time.Millisecond)) || !link.Expired(issued.Add(20*time.Minute)) {
				t.Error("Expired is wrong around the 20 minute mark")
			}
			for _, s := range []string{link.String(), fmt.Sprint(link), fmt.Sprintf("%v %+v %#v", *link, *link, link)} {
				if strings.Contains(s, tc.token) {
					t.Errorf("printed link shows the token: %s", s)
				}
			}
		})
	}
}

func TestLaunchLinkDefaultClock(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(fixture(t, "courses.json")))
	before := time.Now()
	link, err := f.client().Users.LaunchLink(context.Background(), "u-1", "lesson-2")
	if err != nil {
		t.Fatal(err)
	}
	if link.IssuedAt.Before(before) || link.IssuedAt.After(time.Now()) {
		t.Errorf("IssuedAt = %v, not the time of the call", link.IssuedAt)
	}
}

func TestLaunchLinkUnknownLesson(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(fixture(t, "courses.json")))
	_, err := f.client().Users.LaunchLink(context.Background(), "u-1", "lesson-404")
	if !errors.Is(err, v1.ErrLessonNotFound) || !errors.Is(err, edapp.ErrNotFound) {
		t.Fatalf("err = %v, want ErrLessonNotFound and edapp.ErrNotFound", err)
	}
	if !strings.Contains(err.Error(), `"lesson-404"`) {
		t.Errorf("error does not name the lesson: %v", err)
	}
	if strings.Contains(err.Error(), "tok-") || strings.Contains(err.Error(), "secret") {
		t.Errorf("error shows a launch token: %v", err)
	}
}

func TestLaunchLinkWithoutUsableURI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, body string }{
		{"absent", `[{"id":"c","lessons":[{"id":"l"}]}]`},
		{"no token", `[{"id":"c","lessons":[{"id":"l","launchURI":"https://web.example.com/launch-lesson?lesson=l"}]}]`},
		{"relative", `[{"id":"c","lessons":[{"id":"l","launchURI":"/launch-lesson?token=tok-secret-9&lesson=l"}]}]`},
		{"no lesson", `[{"id":"c","lessons":[{"id":"l","launchURI":"https://web.example.com/launch-lesson?token=tok-secret-9"}]}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, ok(tc.body))
			_, err := f.client().Users.LaunchLink(context.Background(), "u-1", "l")
			if !errors.Is(err, v1.ErrNoLaunchLink) || errors.Is(err, edapp.ErrNotFound) || errors.Is(err, edapp.ErrInvalidInput) {
				t.Fatalf("err = %v, want ErrNoLaunchLink only", err)
			}
			if !strings.Contains(err.Error(), `"l"`) || strings.Contains(err.Error(), "tok-secret-9") {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// A lesson listed twice, first without a link: the usable one is returned.
func TestLaunchLinkSkipsUnusableDuplicate(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(`[{"id":"c1","lessons":[{"id":"l"}]},{"id":"c2","lessons":[{"id":"l","launchURI":"https://web.example.com/launch-lesson?token=t2&lesson=l"}]}]`))
	link, err := f.client().Users.LaunchLink(context.Background(), "u-1", "l")
	if err != nil || link.Token.Value() != "t2" {
		t.Fatalf("LaunchLink = %v, %v", link, err)
	}
}

func TestLaunchLinkServiceError(t *testing.T) {
	t.Parallel()
	f := newFake(t, reply{Status: 404, Body: `{"message":"user not found"}`})
	_, err := f.client().Users.LaunchLink(context.Background(), "u-1", "l")
	var apiErr *edapp.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || errors.Is(err, v1.ErrLessonNotFound) {
		t.Fatalf("err = %v, want the service's 404", err)
	}
}
