package fakedata_test

import (
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSeedDemo(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	h := newHarness(t, edapptest.WithClock(clock.Now))
	rc := newReceiver(t)
	_, err := h.AddWebhook(edapptest.WebhookSpec{EventName: edapp.EventCourseCompleted, URL: rc.URL})
	require.NoError(t, err)

	d, err := fakedata.SeedDemo(h.Server)
	require.NoError(t, err)
	require.Len(t, d.CourseIDs, 2)
	require.Len(t, d.LessonIDs, 2)
	assert.Len(t, d.LessonIDs[0], 3)
	assert.Len(t, d.LessonIDs[1], 2)
	require.Len(t, d.GroupIDs, 4)
	require.Len(t, d.UserIDs, 4)
	assert.NotEmpty(t, d.CollectionID)
	assert.NotEmpty(t, d.SurveyQuestionID)

	var groups page[v2Group]
	h.get("/v2/usersgroups", &groups)
	assert.Equal(t, []string{"COMPANY", "WAREHOUSE", "OFFICE", "NIGHTSHIFT"},
		ids(groups.Items, func(g v2Group) string { return g.InviteCode }))

	courses := func(uid string) []string {
		var p page[v2UserCourse]
		h.get("/v2/users/"+uid+"/courses", &p)
		return ids(p.Items, func(c v2UserCourse) string { return c.Title })
	}
	alice, bob, carol, dave := d.UserIDs[0], d.UserIDs[1], d.UserIDs[2], d.UserIDs[3]
	assert.Equal(t, []string{"Fire Safety"}, courses(alice))
	assert.Equal(t, []string{"Manual Handling", "Fire Safety"}, courses(bob))
	assert.Equal(t, []string{"Manual Handling", "Fire Safety"}, courses(carol))
	assert.Equal(t, []string{"Fire Safety"}, courses(dave))

	var progress page[wireCourseProgress]
	h.get("/v2/analytics/courseprogress?userId="+bob+"&courseExternalId=MH-101", &progress)
	require.Len(t, progress.Items, 1)
	assert.True(t, progress.Items[0].Completed)
	assert.Equal(t, 100.0, progress.Items[0].PercentageCompleted)
	assert.True(t, progress.Items[0].CompletedDateTime.t.Before(clock.Now()), "demo progress lies in the past")

	var attempts page[wireAttempt]
	h.get("/v2/analytics/attempts?userId="+carol, &attempts)
	require.Len(t, attempts.Items, 2)
	assert.False(t, attempts.Items[0].Success, "carol failed")

	var answers page[wireSurveyAnswer]
	h.get("/v2/analytics/surveyanswers", &answers)
	require.Len(t, answers.Items, 1)
	assert.Equal(t, alice, answers.Items[0].UserID)
	assert.NotEmpty(t, answers.Items[0].AttemptID)

	var report v1Report
	h.get("/v1/reports/user/"+bob+"/course/"+d.CourseIDs[0], &report)
	require.Len(t, report.Lessons, 3)
	assert.Equal(t, 45.0, report.Lessons[0].Duration)
	assert.Len(t, report.Lessons[0].Slides, 2)

	// The demo's completions went to the webhook registered before.
	got := rc.received()
	require.Len(t, got, 1)
	assert.Contains(t, string(got[0].body), `"courseTitle":"Manual Handling"`)
	assert.Contains(t, string(got[0].body), `"timestamp":"`+formatTime(clock.Now().Add(-5*24*time.Hour+2*time.Hour+12*time.Minute))+`"`)

	// A second seed collides and changes nothing.
	var before page[v2User]
	h.get("/v2/users", &before)
	_, err = fakedata.SeedDemo(h.Server)
	assert.ErrorIs(t, err, edapptest.ErrConflict)
	var after page[v2User]
	h.get("/v2/users", &after)
	assert.Equal(t, before.TotalCount, after.TotalCount)
	var cs page[v2Course]
	h.get("/v2/catalog/courses", &cs)
	assert.Equal(t, 2, cs.TotalCount)
}
