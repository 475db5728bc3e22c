package safetyculture

import (
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// TestCatalogueAgainstSctest reads every catalogue list and record of a
// migrated account from sctest.
func TestCatalogueAgainstSctest(t *testing.T) {
	t.Parallel()
	fake, m := migratedFake(t)
	sc := clientOf(t, fake)
	ctx := testCtx(t)

	courses := mustCollect(t, sc.Courses.All(ctx, &CourseListOptions{ListOptions: edapp.ListOptions{PageSize: 2}}))
	if len(courses) != len(m.Courses)+1 { // and the course made after the move
		t.Fatalf("courses: %d, want %d", len(courses), len(m.Courses)+1)
	}
	first := courses[0]
	if first.ID == "" || first.Title == "" || first.LessonCount == 0 || first.CreatedDateTime.IsZero() {
		t.Errorf("course not read whole: %+v", first)
	}
	lessons, err := sc.Courses.Lessons(ctx, first.ID)
	if err != nil || len(lessons) != first.LessonCount {
		t.Fatalf("Lessons: %d lessons, %v; want %d", len(lessons), err, first.LessonCount)
	}
	lesson, err := sc.Courses.Lesson(ctx, lessons[0].ID)
	if err != nil || lesson.ID != lessons[0].ID || lesson.Title != lessons[0].Title {
		t.Fatalf("Lesson: %+v, %v", lesson, err)
	}
	_, err = sc.Courses.Lesson(ctx, "no-such-lesson")
	var apiErr *edapp.APIError
	if !errors.Is(err, edapp.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Message == "" {
		t.Errorf("Lesson of an unknown id: %v, want ErrNotFound with the fake's message", err)
	}

	collections := mustCollect(t, sc.Collections.All(ctx, nil))
	if len(collections) == 0 {
		t.Fatal("no collections")
	}
	inCollection := mustCollect(t, sc.Collections.AllCourses(ctx, collections[0].ID, nil))
	if len(inCollection) == 0 || inCollection[0].ID == "" {
		t.Errorf("courses of collection %s: %+v", collections[0].ID, inCollection)
	}
}

// TestPathsRapidRefreshLeaderboardsAgainstSctest reads the catalogue lists
// a migration does not fill, after adding one of each; the fake holds no
// leaderboards, so the test answers them itself.
func TestPathsRapidRefreshLeaderboardsAgainstSctest(t *testing.T) {
	t.Parallel()
	fake := sctest.New(t)
	uid, _ := fake.AddUser(sctest.UserSpec{Email: "ana@example.com", FirstName: "Ana"})
	cid, _, err := fake.AddCourse(sctest.CourseSpec{Title: "Induction", Lessons: []sctest.LessonSpec{{Title: "Welcome"}}})
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := fake.AddPath("Onboarding", true, []string{cid})
	rid, _ := fake.AddRapidRefresh("Weekly quiz", cid, true)
	bid := "b1"
	answer := func(body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, body) })
	}
	must(t, fake.Handle("GET /training/individualleaderboards/v1", answer(`{"totalCount":1,"items":[{"id":"b1","name":"November"}]}`)))
	must(t, fake.Handle("GET /training/individualleaderboards/v1/rankings",
		answer(`{"leaderboardId":"b1","rankings":[{"rank":1,"participantId":"`+uid+`","totalScore":40}]}`)))
	sc := clientOf(t, fake)
	ctx := testCtx(t)

	paths := mustCollect(t, sc.Paths.All(ctx, nil))
	path, err := sc.Paths.Get(ctx, pid)
	if len(paths) != 1 || err != nil || path.ID != pid || path.Title != "Onboarding" {
		t.Errorf("paths: %+v; Get: %+v, %v", paths, path, err)
	}
	refreshes := mustCollect(t, sc.RapidRefresh.All(ctx, nil))
	refresh, err := sc.RapidRefresh.Get(ctx, rid)
	if len(refreshes) != 1 || err != nil || refresh.ID != rid || refresh.Title != "Weekly quiz" {
		t.Errorf("rapid refreshes: %+v; Get: %+v, %v", refreshes, refresh, err)
	}
	boards := mustCollect(t, sc.Leaderboards.All(ctx, nil))
	rankings, err := sc.Leaderboards.Rankings(ctx, bid)
	if len(boards) != 1 || boards[0].ID != bid || err != nil {
		t.Fatalf("leaderboards: %+v; Rankings: %v", boards, err)
	}
	if len(rankings.Rankings) != 1 || rankings.Rankings[0].ParticipantID != uid || rankings.Rankings[0].TotalScore != 40 {
		t.Errorf("rankings: %+v", rankings)
	}
}

// TestWritesAgainstSctest sends both writes and reads their effect from
// the fake.
func TestWritesAgainstSctest(t *testing.T) {
	t.Parallel()
	fake := sctest.New(t)
	uid, _ := fake.AddUser(sctest.UserSpec{Email: "ana@example.com", FirstName: "Ana"})
	cid, lids, err := fake.AddCourse(sctest.CourseSpec{Title: "Induction", Lessons: []sctest.LessonSpec{{Title: "Welcome"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.CompleteLesson(uid, lids[0], 90, time.Time{}); err != nil {
		t.Fatal(err)
	}
	sc := clientOf(t, fake)
	ctx := testCtx(t)

	res, err := sc.Courses.UpdateAssignments(ctx, cid, AssignmentsParams{
		Assignments: []Assignment{{ID: uid, Type: AssignUser, IsAssigned: true}},
	})
	if err != nil || res.UsersUpdated != 1 {
		t.Fatalf("UpdateAssignments: %+v, %v", res, err)
	}
	if got := fake.Assignments(cid); len(got) != 1 || got[0].ID != uid {
		t.Errorf("assignments held: %+v", got)
	}
	if _, err := sc.Courses.ResetProgress(ctx, ResetProgressParams{CourseID: cid, UserIDs: []string{uid}}); err != nil {
		t.Fatal(err)
	}
	if n := fake.CourseProgressCount(sctest.CompletionCompleted); n != 0 {
		t.Errorf("completed rows after the reset: %d, want 0", n)
	}
	if got := fake.RequestCount("POST /training/courseprogress/v1/reset"); got != 1 {
		t.Errorf("reset sent %d times", got)
	}
}
