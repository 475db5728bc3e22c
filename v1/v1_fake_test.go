package v1_test

// The v1 client against the fake (edapptest), end to end.

import (
	"context"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	v1 "github.com/edapp-go/edapp/v1"
)

func TestV1AgainstTheFake(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv := edapptest.New(t, edapptest.WithClock(clock))
	t.Cleanup(srv.Close)
	client := srv.Client(edapp.WithRetry(edapp.RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond}))
	legacy, err := v1.New(client)
	require.NoError(t, err)

	courseID, lessonIDs, err := srv.AddCourse(edapptest.CourseSpec{Title: "Fire Safety", Lessons: []edapptest.LessonSpec{{Title: "Alarm"}, {Title: "Exit"}}})
	require.NoError(t, err)

	user, err := legacy.Users.Save(ctx, v1.User{Username: "ann", Email: "ann@example.com", FirstName: "Ann"})
	require.NoError(t, err)
	require.NotEmpty(t, user.ID)
	user.LastName = "Lee"
	updated, err := legacy.Users.Save(ctx, *user)
	require.NoError(t, err)
	assert.Equal(t, user.ID, updated.ID, "an id makes Save an update")

	group, err := legacy.UserGroups.Save(ctx, v1.UserGroup{Name: "Floor", Users: []string{user.ID}, Courses: []string{courseID}})
	require.NoError(t, err)

	courses, err := legacy.Users.Courses(ctx, user.ID)
	require.NoError(t, err)
	require.Len(t, courses, 1)
	require.Len(t, courses[0].Lessons, 2)

	link, err := legacy.Users.LaunchLink(ctx, user.ID, lessonIDs[1])
	require.NoError(t, err)
	assert.Equal(t, lessonIDs[1], link.LessonID)
	live := func() bool { // as a launch page would check the link
		u, err := url.Parse(link.URL.Value())
		require.NoError(t, err)
		userID, lessonID, expires, ok := srv.LaunchToken(u.Query().Get("token"))
		return ok && userID == user.ID && lessonID == lessonIDs[1] && srv.Now().Before(expires)
	}
	assert.True(t, live())

	// 21 minutes later on the server's clock, the same link is dead.
	mu.Lock()
	now = now.Add(21 * time.Minute)
	mu.Unlock()
	assert.False(t, live())

	require.NoError(t, srv.CompleteLesson(user.ID, lessonIDs[1], 80))
	courses, err = legacy.Users.Courses(ctx, user.ID)
	require.NoError(t, err)
	l, ok := courses[0].Lesson(lessonIDs[1])
	require.True(t, ok)
	assert.True(t, l.Completed)
	assert.False(t, l.CompletedDate.IsZero())

	report, err := legacy.Reports.UserCourse(ctx, user.ID, courseID)
	require.NoError(t, err)
	rl, ok := report.Lesson(lessonIDs[1])
	require.True(t, ok)
	assert.True(t, rl.Completed)

	// An empty users array empties the group.
	_, err = legacy.UserGroups.Save(ctx, v1.UserGroup{ID: group.ID, Name: "Floor", Users: []string{}})
	require.NoError(t, err)
	courses, err = legacy.Users.Courses(ctx, user.ID)
	require.NoError(t, err)
	assert.Empty(t, courses, "out of the group, out of its course")

	raw, err := legacy.Reports.Activities(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, raw)

	require.NoError(t, legacy.UserGroups.Delete(ctx, group.ID))
	require.NoError(t, legacy.Users.Delete(ctx, user.ID))
	assert.ErrorIs(t, legacy.Users.Delete(ctx, user.ID), edapp.ErrNotFound)
}
