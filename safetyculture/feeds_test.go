package safetyculture

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFeedsCourseProgressReadsBothSpellings(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/v1/feed/training-course-progress", 200, fixture(t, "feed_training_course_progress.json"))
	snake, err := collect(t, w.client(t).Feeds.AllCourseProgress(ctx, nil))
	require.NoError(t, err)
	require.Len(t, snake, 2)

	c, mt := mockClient(t)
	mt.RegisterResponder("GET", "https://api.example.test/training/v1/feed/training-course-progress",
		httpmock.NewStringResponder(200, fixture(t, "feed_training_course_progress_camel.json")))
	camel, err := collect(t, c.Feeds.AllCourseProgress(ctx, nil))
	require.NoError(t, err)
	require.Len(t, camel, 1)

	want := snake[0]
	want.Extra, want.raw = nil, ""
	got := camel[0]
	assert.JSONEq(t, "1830", string(got.Extra["timeSpentSeconds"]), "an unknown field is kept")
	assert.Contains(t, string(got.Raw()), `"timeSpentSeconds": 1830`, "the row as received")
	got.Extra, got.raw = nil, ""
	assert.Equal(t, want, got)
	assert.Equal(t, "user_0a1b2c3d4e5f60718293a4b5c6d7e8f9", want.UserID)
	assert.Equal(t, time.Date(2024, 3, 5, 11, 40, 0, 0, time.UTC), want.CompletedAt.Time)
	assert.Equal(t, 4, want.TotalLessons)
	assert.Equal(t, 100.0, want.ProgressPercent)
	assert.True(t, snake[1].CompletedAt.IsZero(), `"" is no completion`)
}

func TestFeedsSendTheFirstPagesFilters(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/v1/feed/training-course-progress", 200, `{"metadata":{"next_page":null},"data":[]}`)
	w.handle("GET /feed/users", 200, `{"metadata":{"next_page":null},"data":[]}`)
	w.handle("GET /feed/sites", 200, `{"metadata":{"next_page":null},"data":[]}`)
	c := w.client(t)
	after := time.Date(2024, 1, 2, 13, 0, 0, 0, time.FixedZone("AEDT", 11*3600))
	_, err := c.Feeds.ListCourseProgress(ctx, &FeedOptions{Limit: 1000, CompletionStatus: CompletionAll, ModifiedAfter: after, IncludeInactive: true})
	require.NoError(t, err)
	_, err = c.Feeds.ListUsers(ctx, &FeedOptions{IncludeInactive: true, CompletionStatus: CompletionAll})
	require.NoError(t, err)
	leaf := true
	_, err = c.Feeds.ListSites(ctx, &FeedOptions{ShowOnlyLeafNodes: &leaf, IncludeDeleted: true})
	require.NoError(t, err)
	reqs := w.requests()
	assert.Equal(t, "completion_status=COMPLETION_STATUS_ALL&limit=1000&modifiedAfter=2024-01-02T02%3A00%3A00Z", reqs[0].URL.RawQuery)
	assert.Equal(t, "include_inactive=true", reqs[1].URL.RawQuery)
	assert.Equal(t, "include_deleted=true&show_only_leaf_nodes=true", reqs[2].URL.RawQuery)
}

func TestFeedsFollowNextPageAsGiven(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	next := "/training/v1/feed/training-course-progress?cursor=eyJvIjoxfQ%3D%3D&limit=1&z=%7E"
	w.mux.HandleFunc("GET /training/v1/feed/training-course-progress", func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("cursor") == "" {
			rw.Write([]byte(`{"metadata":{"next_page":"` + next + `"},"data":[{"course_id":"c1","user_id":"u1"}]}`))
			return
		}
		rw.Write([]byte(`{"metadata":{"next_page":""},"data":[{"courseId":"c1","userId":"u2"}]}`))
	})
	c := w.client(t)
	rows, err := collect(t, c.Feeds.AllCourseProgress(ctx, &FeedOptions{Limit: 1, CompletionStatus: CompletionCompleted}))
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, "u2", rows[1].UserID)
	reqs := w.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "cursor=eyJvIjoxfQ%3D%3D&limit=1&z=%7E", reqs[1].URL.RawQuery, "the query is sent exactly as given")

	// A job resumes from the NextPage it stored.
	first, err := c.Feeds.ListCourseProgress(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, next, first.NextPage)
	second, err := c.Feeds.ListCourseProgress(ctx, &FeedOptions{NextPage: first.NextPage, Limit: 99})
	require.NoError(t, err)
	assert.Equal(t, "", second.NextPage)
	assert.Equal(t, "u2", second.Items[0].UserID)
}

func TestFeedsResolveNextPageUnderTheBasePath(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t, edapp.WithBaseURL("https://proxy.example.test/sc"))
	mt.RegisterResponder("GET", "https://proxy.example.test/sc/feed/groups",
		httpmock.NewStringResponder(200, `{"metadata":{"next_page":"/sc/feed/groups?after=g1"},"data":[{"id":"g1"}]}`))
	mt.RegisterResponderWithQuery("GET", "https://proxy.example.test/sc/feed/groups", "after=g1",
		httpmock.NewStringResponder(200, `{"metadata":{"next_page":"https://PROXY.example.test:443/sc/feed/groups?after=g2"},"data":[{"id":"g2"}]}`))
	mt.RegisterResponderWithQuery("GET", "https://proxy.example.test/sc/feed/groups", "after=g2",
		httpmock.NewStringResponder(200, `{"metadata":{"next_page":null},"data":[{"id":"g3"}]}`))
	groups, err := collect(t, c.Feeds.AllGroups(ctx))
	require.NoError(t, err)
	assert.Len(t, groups, 3)
}

func TestFeedsRefuseANextPageOnAnotherHost(t *testing.T) {
	t.Parallel()
	for _, next := range []string{"https://evil.example.test/feed/users?c=1", "//evil.example.test/feed/users", "http://api.example.test/feed/users?c=1", "https://user:pw@api.example.test/feed/users"} {
		c, mt := mockClient(t)
		mt.RegisterResponder("GET", "https://api.example.test/feed/users",
			httpmock.NewStringResponder(200, `{"metadata":{"next_page":"`+next+`"},"data":[{"id":"u1"}]}`))
		users, err := collect(t, c.Feeds.AllUsers(ctx))
		require.ErrorIs(t, err, ErrForeignNextPage, next)
		assert.Len(t, users, 1)
		assert.Equal(t, 1, mt.GetTotalCallCount(), "nothing was sent to %s", next)
	}
}

func TestFeedsEndOnARepeatedCursor(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	mt.RegisterResponder("GET", "https://api.example.test/feed/site_members",
		httpmock.NewStringResponder(200, `{"metadata":{"next_page":"/feed/site_members?c=A"},"data":[{"site_id":"s","member_id":"m0"}]}`))
	mt.RegisterResponderWithQuery("GET", "https://api.example.test/feed/site_members", "c=A",
		httpmock.NewStringResponder(200, `{"metadata":{"next_page":"/feed/site_members?c=B"},"data":[{"site_id":"s","member_id":"m1"}]}`))
	mt.RegisterResponderWithQuery("GET", "https://api.example.test/feed/site_members", "c=B",
		httpmock.NewStringResponder(200, `{"metadata":{"next_page":"/feed/site_members?c=A"},"data":[{"site_id":"s","member_id":"m2"}]}`))
	rows, err := collect(t, c.Feeds.AllSiteMembers(ctx))
	require.ErrorIs(t, err, ErrRepeatedCursor)
	assert.Len(t, rows, 3)
	assert.Equal(t, 3, mt.GetTotalCallCount())
}

func TestFeedsEndOnARunOfEmptyPages(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	n := 0
	mt.RegisterResponder("GET", "=~^https://api.example.test/feed/groups", func(*http.Request) (*http.Response, error) {
		n++
		return httpmock.NewStringResponse(200, `{"metadata":{"next_page":"/feed/groups?c=`+string(rune('a'+n%26))+time.Duration(n).String()+`"},"data":[]}`), nil
	})
	_, err := collect(t, c.Feeds.AllGroups(ctx))
	require.ErrorIs(t, err, ErrEmptyPages)
	assert.Equal(t, maxEmptyPages, n)
}

func TestFeedsReadEveryFeedInTheVendorsShape(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	for path, file := range map[string]string{
		"/feed/users": "feed_users.json", "/feed/groups": "feed_groups.json", "/feed/group_users": "feed_group_users.json",
		"/feed/sites": "feed_sites.json", "/feed/site_members": "feed_site_members.json",
	} {
		w.handle("GET "+path, 200, fixture(t, file))
	}
	c := w.client(t)
	users, err := collect(t, c.Feeds.AllUsers(ctx))
	require.NoError(t, err)
	assert.True(t, json.Valid(users[0].Raw()) && strings.HasPrefix(string(users[0].Raw()), "{"), "%s", users[0].Raw())
	users[0].raw = ""
	assert.Equal(t, User{ID: "user_0a1b2c3d4e5f60718293a4b5c6d7e8f9", OrganisationID: "role_7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f", Email: "mia.chen@example.com",
		FirstName: "Mia", LastName: "Chen", Active: edapp.Ptr(true), LastSeenAt: edapp.Time{Time: time.Date(2024, 3, 5, 11, 41, 10, 0, time.UTC)}, SeatType: "full",
		CreatedAt: edapp.Time{Time: time.Date(2023, 11, 20, 8, 0, 0, 0, time.UTC)}}, users[0])
	assert.True(t, users[1].LastSeenAt.IsZero())
	groups, err := collect(t, c.Feeds.AllGroups(ctx))
	require.NoError(t, err)
	assert.Equal(t, "Warehouse", groups[0].Name)
	members, err := collect(t, c.Feeds.AllGroupUsers(ctx))
	require.NoError(t, err)
	assert.Equal(t, "role_8a9b0c1d2e3f40516273849a5b6c7d8e", members[1].GroupID)
	sites, err := collect(t, c.Feeds.AllSites(ctx))
	require.NoError(t, err)
	assert.Equal(t, "", sites[0].ParentID)
	assert.Equal(t, "3e4f5a6b-7c8d-9e0f-1a2b-3c4d5e6f7a8b", sites[1].ParentID)
	assert.Equal(t, "location", sites[1].MetaLabel)
	siteMembers, err := collect(t, c.Feeds.AllSiteMembers(ctx))
	require.NoError(t, err)
	assert.Len(t, siteMembers, 2)
	page, err := c.Feeds.ListSiteMembers(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 200, page.Response.StatusCode)
}

func TestFeedsKeepAnOddValueToItself(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	mt.RegisterResponder("GET", "https://api.example.test/feed/users", httpmock.NewStringResponder(200,
		`{"metadata":{"next_page":null},"data":[{"id":"u1","email":"a@example.com","active":"yes","last_seen_at":"yesterday"},{"id":"u2"}]}`))
	var resp edapp.Response
	page, err := c.Feeds.ListUsers(ctx, nil, edapp.WithResponseInto(&resp))
	require.NoError(t, err)
	require.Len(t, page.Items, 2)
	assert.Equal(t, "a@example.com", page.Items[0].Email)
	assert.ElementsMatch(t, []string{"data[0].active", "data[0].last_seen_at"}, resp.Dropped)
}

func TestFeedsRefuseAnUnreadableNextPage(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"metadata":{"next_page":true},"data":[{"id":"g1"}]}`, `{"metadata":[1],"data":[{"id":"g1"}]}`} {
		c, mt := mockClient(t)
		mt.RegisterResponder("GET", "https://api.example.test/feed/groups", httpmock.NewStringResponder(200, body))
		groups, err := collect(t, c.Feeds.AllGroups(ctx))
		require.ErrorIs(t, err, ErrBadNextPage, body)
		assert.Empty(t, groups)
	}
}

func TestFeedPageRemainingOddValues(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]int{
		`{"metadata":{"next_page":null,"remaining_records":-5},"data":[{"id":"u1"}]}`:                  -1,
		`{"metadata":{"next_page":null,"remaining_records":"many"},"data":[{"id":"u1"}]}`:              -1,
		`{"metadata":{"next_page":null,"remaining_records":1000000000000000000},"data":[{"id":"u1"}]}`: math.MaxInt32 + 1,
		`{"metadata":{"next_page":null,"remaining_records":0},"data":[{"id":"u1"}]}`:                   1,
	} {
		w := newWire(t)
		w.handle("GET /feed/users", 200, body)
		p, err := w.client(t).Feeds.ListUsers(ctx, nil)
		require.NoError(t, err, body)
		total, ok := p.Response.Total()
		if want < 0 {
			assert.False(t, ok, body)
			continue
		}
		assert.True(t, ok, body)
		assert.Equal(t, want, total, body)
	}
}
