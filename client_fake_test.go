package edapp_test

// Integration tests: the whole client (v2 and v1) against the fake service
// in edapptest, over loopback.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/webhook"
)

func newFake(t *testing.T, opts ...edapptest.Option) (*edapptest.Server, *edapp.Client) {
	t.Helper()
	srv := edapptest.New(t, opts...)
	t.Cleanup(srv.Close)
	return srv, srv.Client(edapp.WithRetry(edapp.RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond}))
}

func TestIntegrationV2(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, client := newFake(t)
	demo, err := fakedata.SeedDemo(srv)
	require.NoError(t, err)

	// Users: create, get, update only the time zone, filter, list, delete.
	u, err := client.Users.Create(ctx, edapp.UserCreateParams{
		Username: "zoe", Email: "zoe@example.com", FirstName: "Zoe", ExternalID: "hr-zoe",
		Roles: []edapp.Role{edapp.RoleAppUser, edapp.RolePrizingUser}, UserGroups: []string{demo.GroupIDs[1]},
		CustomFields: map[string]string{"site": "North"},
	})
	require.NoError(t, err)
	require.NotEmpty(t, u.ID)
	assert.Equal(t, "zoe", u.Username)

	_, err = client.Users.Update(ctx, u.ID, edapp.UserUpdateParams{TimeZone: edapp.Ptr("Australia/Sydney")})
	require.NoError(t, err)
	got, err := client.Users.Get(ctx, u.ID)
	require.NoError(t, err)
	assert.Equal(t, "Australia/Sydney", got.TimeZone)
	assert.Equal(t, "Zoe", got.FirstName, "only the time zone changed")
	assert.Equal(t, map[string]string{"site": "North"}, got.CustomFields)

	_, err = client.Users.Create(ctx, edapp.UserCreateParams{Username: "zoe2", ExternalID: "hr-zoe"})
	assert.ErrorIs(t, err, edapp.ErrConflict, "external ids are unique within the account")

	page, err := client.Users.List(ctx, &edapp.UserListOptions{ExternalID: "hr-zoe"})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, u.ID, page.Items[0].ID)

	var all []string
	for user, err := range client.Users.All(ctx, &edapp.UserListOptions{ListOptions: edapp.ListOptions{PageSize: 2}}) {
		require.NoError(t, err)
		all = append(all, user.ID)
	}
	assert.Len(t, all, len(demo.UserIDs)+1)

	// Groups: create with an invite code, children, membership.
	g, err := client.UserGroups.Create(ctx, edapp.UserGroupCreateParams{Name: "Drivers", InviteCode: "DRIVE"})
	require.NoError(t, err)
	assert.Equal(t, "DRIVE", g.InviteCode)
	require.NoError(t, client.UserGroups.AddUser(ctx, g.ID, u.ID))
	members, err := client.UserGroups.ListUsers(ctx, g.ID, nil)
	require.NoError(t, err)
	require.Len(t, members.Items, 1)
	assert.Equal(t, u.ID, members.Items[0].ID)
	require.NoError(t, client.UserGroups.RemoveUser(ctx, g.ID, u.ID))
	members, err = client.UserGroups.ListUsers(ctx, g.ID, nil)
	require.NoError(t, err)
	assert.Empty(t, members.Items)
	children, err := client.UserGroups.ListChildren(ctx, demo.GroupIDs[0], nil)
	require.NoError(t, err)
	assert.Len(t, children.Items, 2, "Company has Warehouse and Office")
	_, err = client.UserGroups.ListUsers(ctx, "no-such-group", nil)
	assert.ErrorIs(t, err, edapp.ErrNotFound)

	// Catalog.
	courses, err := client.Catalog.ListCourses(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, courses.Items, 2)
	lessons, err := client.Catalog.Lessons(ctx, demo.CourseIDs[0])
	require.NoError(t, err)
	assert.Len(t, lessons, len(demo.LessonIDs[0]))
	cols, err := client.Catalog.ListCollections(ctx, nil)
	require.NoError(t, err)
	require.Len(t, cols.Items, 1)
	inCol, err := client.Catalog.ListCollectionCourses(ctx, demo.CollectionID, nil)
	require.NoError(t, err)
	assert.Len(t, inCol.Items, 2)

	// Access flows down: zoe is in Warehouse, which has Manual Handling,
	// and Company above it has Fire Safety.
	uc, err := client.Users.Courses(ctx, u.ID)
	require.NoError(t, err)
	assert.Len(t, uc, 2)

	// Analytics: computed from the seeded progress.
	n := 0
	for a, err := range client.Analytics.AllAttempts(ctx, &edapp.AttemptListOptions{UserID: demo.UserIDs[1]}) {
		require.NoError(t, err)
		assert.Equal(t, demo.UserIDs[1], a.UserID)
		n++
	}
	assert.Equal(t, 3, n, "bob completed the three Manual Handling lessons")
	prog, err := client.Analytics.ListCourseProgress(ctx, &edapp.CourseProgressListOptions{CourseID: demo.CourseIDs[0], UserID: demo.UserIDs[1]})
	require.NoError(t, err)
	require.Len(t, prog.Items, 1)
	assert.Equal(t, 100.0, prog.Items[0].PercentageCompleted)
	stats, err := client.Analytics.ListCourseStatistics(ctx, nil)
	require.NoError(t, err)
	assert.NotEmpty(t, stats.Items)
	answers, err := client.Analytics.ListSurveyAnswers(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, answers.Items, 1)

	require.NoError(t, client.Users.Delete(ctx, u.ID))
	_, err = client.Users.Get(ctx, u.ID)
	assert.ErrorIs(t, err, edapp.ErrNotFound)
}

func TestIntegrationWebhooksEndToEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, client := newFake(t)

	received := make(chan edapp.Event, 8)
	handler, err := webhook.NewHandler(func(ctx context.Context, ev edapp.Event) error {
		received <- ev
		return nil
	}, webhook.WithSecretHeader("X-Secret", "s3cret"))
	require.NoError(t, err)
	receiver := httptest.NewServer(handler)
	defer receiver.Close()

	for _, name := range []edapp.EventName{edapp.EventLessonCompleted, edapp.EventCourseCompleted} {
		hook, err := client.Webhooks.Create(ctx, edapp.WebhookCreateParams{EventName: name, WebHookURL: receiver.URL, Headers: map[string]string{"X-Secret": "s3cret"}})
		require.NoError(t, err)
		assert.Equal(t, name, hook.EventName)
		assert.Contains(t, hook.MessageFormat, "timestamp")
	}
	// A link without the secret: its deliveries are refused with 401.
	_, err = client.Webhooks.Create(ctx, edapp.WebhookCreateParams{EventName: edapp.EventLessonCompleted, WebHookURL: receiver.URL})
	require.NoError(t, err)
	hooks, err := client.Webhooks.List(ctx)
	require.NoError(t, err)
	assert.Len(t, hooks, 3)

	uid, err := srv.AddUser(edapptest.UserSpec{Username: "ann", Email: "ann@example.com", FirstName: "Ann", LastName: "Lee"})
	require.NoError(t, err)
	_, lessons, err := srv.AddCourse(edapptest.CourseSpec{Title: "One lesson", Lessons: []edapptest.LessonSpec{{Title: "Only"}}})
	require.NoError(t, err)
	require.NoError(t, srv.CompleteLesson(uid, lessons[0], 77.5))

	next := func() edapp.Event {
		t.Helper()
		select {
		case ev := <-received:
			return ev
		case <-time.After(5 * time.Second):
			t.Fatal("no delivery reached the handler")
			return nil
		}
	}
	ev := next()
	lc, ok := ev.(*edapp.LessonCompletedEvent)
	require.True(t, ok, "%T", ev)
	assert.Equal(t, uid, lc.UserID)
	assert.Equal(t, "ann", lc.UserName)
	assert.Equal(t, "Ann", lc.FirstName)
	assert.Equal(t, 77.5, lc.Score)
	assert.False(t, lc.Timestamp.IsZero())
	ev = next()
	cc, ok := ev.(*edapp.CourseCompletedEvent)
	require.True(t, ok, "%T", ev)
	assert.Equal(t, "One lesson", cc.CourseTitle)
	select {
	case ev := <-received:
		t.Fatalf("unexpected extra event %T: the unauthenticated delivery must not reach fn", ev)
	default:
	}

	var refused int
	for _, d := range srv.Deliveries() {
		if !d.OK() {
			refused++
		}
	}
	assert.Equal(t, 1, refused, "the delivery without the secret header was refused")

	require.NoError(t, client.Webhooks.Delete(ctx, hooks[0].ID))
	hooks, err = client.Webhooks.List(ctx)
	require.NoError(t, err)
	assert.Len(t, hooks, 2)
}

func TestIntegrationRetriesAgainstFailNext(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, client := newFake(t)

	srv.FailNext(2, http.StatusServiceUnavailable, 0)
	_, err := client.Users.List(ctx, nil)
	require.NoError(t, err, "a GET rides out two 503s")

	srv.FailNext(1, http.StatusTooManyRequests, time.Second)
	_, err = client.UserGroups.Create(ctx, edapp.UserGroupCreateParams{Name: "After 429"})
	require.NoError(t, err, "a POST is retried after a 429")

	srv.ResetRequests()
	srv.FailNext(1, http.StatusInternalServerError, 0)
	_, err = client.UserGroups.Create(ctx, edapp.UserGroupCreateParams{Name: "Never twice"})
	require.ErrorIs(t, err, edapp.ErrServer)
	assert.Len(t, srv.Requests(), 1, "a POST is not retried after a 500")

	srv.FailNext(10, http.StatusBadGateway, 0)
	_, err = client.Users.List(ctx, nil)
	var apiErr *edapp.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadGateway, apiErr.StatusCode)
	srv.FailNext(0, 0, 0)
}

func TestIntegrationWrongToken(t *testing.T) {
	t.Parallel()
	srv, _ := newFake(t)
	bad, err := edapp.NewClient("not-the-token", edapp.WithBaseURL(srv.URL))
	require.NoError(t, err)
	_, err = bad.Users.List(context.Background(), nil)
	require.ErrorIs(t, err, edapp.ErrUnauthorized)
	var apiErr *edapp.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.NotEmpty(t, apiErr.Message)
	assert.NotContains(t, err.Error(), "not-the-token")
	assert.NotContains(t, err.Error(), srv.Token)
}
