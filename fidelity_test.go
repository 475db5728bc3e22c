package edapp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// Lesson records probably come without a course id: Lessons fills it from
// the path, and keeps one the service did send.
func TestLessonsFillCourseIDFromThePath(t *testing.T) {
	client, mux := setup(t)
	mux.HandleFunc("/v2/catalog/courses/crs-1/lessons", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`[{"id":"l1","title":"A"},{"id":"l2","courseId":""},{"id":"l3","courseId":"crs-other"}]`))
	})
	lessons, err := client.Catalog.Lessons(context.Background(), "crs-1")
	require.NoError(t, err)
	require.Len(t, lessons, 3)
	assert.Equal(t, "crs-1", lessons[0].CourseID)
	assert.Equal(t, "crs-1", lessons[1].CourseID)
	assert.Equal(t, "crs-other", lessons[2].CourseID, "a course id the service sent is kept")
}

func TestCourseCollectionExternalID(t *testing.T) {
	client, mux := setup(t)
	mux.HandleFunc("/v2/catalog/coursecollections", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"totalCount":1,"items":[{"id":"col-1","externalId":"ext-col-1","title":"Onboarding","colour":"red"}]}`))
	})
	p, err := client.Catalog.ListCollections(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, p.Items, 1)
	c := p.Items[0]
	assert.Equal(t, "ext-col-1", c.ExternalID)
	assert.NotContains(t, c.Extra, "externalId", "a known field is not kept in Extra too")
	assert.Contains(t, c.Extra, "colour")
	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"externalId":"ext-col-1"`)
}

// Dot-only ids would go out as %2E or %2E%2E, which a decoding proxy may
// take for "." or "..": they are refused like empty ids, before sending.
func TestDotOnlyIDsAreRefusedBeforeSending(t *testing.T) {
	client, mux := setup(t)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request sent: %s %s", r.Method, r.URL.EscapedPath())
	})
	ctx := context.Background()
	for _, id := range []string{".", "..", "..."} {
		calls := map[string]error{}
		_, calls["Users.Get"] = client.Users.Get(ctx, id)
		_, calls["Users.Update"] = client.Users.Update(ctx, id, UserUpdateParams{FirstName: Ptr("A")})
		calls["Users.Delete"] = client.Users.Delete(ctx, id)
		_, calls["Users.Courses"] = client.Users.Courses(ctx, id)
		_, calls["UserGroups.ListUsers"] = client.UserGroups.ListUsers(ctx, id, nil)
		_, calls["UserGroups.ListChildren"] = client.UserGroups.ListChildren(ctx, id, nil)
		calls["UserGroups.AddUser"] = client.UserGroups.AddUser(ctx, id, "u-1")
		calls["UserGroups.RemoveUser"] = client.UserGroups.RemoveUser(ctx, "g-1", id)
		_, calls["Catalog.Lessons"] = client.Catalog.Lessons(ctx, id)
		_, calls["Catalog.ListCollectionCourses"] = client.Catalog.ListCollectionCourses(ctx, id, nil)
		calls["Webhooks.Delete"] = client.Webhooks.Delete(ctx, id)
		for name, err := range calls {
			assert.ErrorIs(t, err, ErrInvalidInput, "%s(%q)", name, id)
		}
		_, err := client.Users.Get(ctx, id)
		assert.EqualError(t, err, `edapp: invalid input: userID "`+id+`" is only dots`)
	}
	// Dots inside an id are fine.
	mux.HandleFunc("/v2/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"id":"a..b"}`))
	})
	_, err := client.Users.Get(ctx, "a..b")
	assert.NoError(t, err)
}

// managedServer is a user store that honours one spelling of the managed
// groups on writes, and answers with userGroupsManaged, as every answer
// seen does (or with no managed groups at all, when echo is false).
type managedServer struct {
	honours string // "managedUserGroups", "userGroupsManaged" or ""
	echo    bool
	failPut bool

	mu    sync.Mutex
	users map[string][]string
	reqs  []string // "POST /v2/users {body}"
}

func (s *managedServer) handler(t *testing.T) http.Handler {
	mux := http.NewServeMux()
	write := func(w http.ResponseWriter, r *http.Request, id string) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.reqs = append(s.reqs, r.Method+" "+r.URL.Path+" "+string(body))
		if r.Method == http.MethodPut && s.failPut {
			http.Error(w, `{"message":"down"}`, http.StatusInternalServerError)
			return
		}
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(body, &m))
		if id == "" {
			id = fmt.Sprintf("u-%d", len(s.users)+1)
		}
		if _, ok := s.users[id]; !ok {
			s.users[id] = []string{}
		}
		if raw, ok := m[s.honours]; ok && s.honours != "" {
			var g []string
			require.NoError(t, json.Unmarshal(raw, &g))
			s.users[id] = g
		}
		ans := map[string]any{"id": id, "name": "n"}
		if s.echo {
			ans["userGroupsManaged"] = s.users[id]
		}
		_ = json.NewEncoder(w).Encode(ans)
	}
	mux.HandleFunc("POST /v2/users", func(w http.ResponseWriter, r *http.Request) { write(w, r, "") })
	mux.HandleFunc("PUT /v2/users/{id}", func(w http.ResponseWriter, r *http.Request) { write(w, r, r.PathValue("id")) })
	return mux
}

func (s *managedServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.reqs
	s.reqs = nil
	return r
}

func newManagedServer(t *testing.T, honours string, echo bool) (*managedServer, *Client) {
	s := &managedServer{honours: honours, echo: echo, users: map[string][]string{}}
	srv := httptest.NewServer(s.handler(t))
	t.Cleanup(srv.Close)
	c, err := NewClient("tok", WithBaseURL(srv.URL), WithRateLimit(rate.Inf, 0), WithRetry(RetryPolicy{}))
	require.NoError(t, err)
	return s, c
}

// A service that takes the documented spelling: one request a write.
func TestManagedGroupsDocumentedSpelling(t *testing.T) {
	s, c := newManagedServer(t, "managedUserGroups", true)
	ctx := context.Background()
	u, err := c.Users.Create(ctx, UserCreateParams{Username: "a", ManagedUserGroups: []string{"g1"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"g1"}, u.ManagedUserGroups)
	assert.Equal(t, []string{`POST /v2/users {"name":"a","managedUserGroups":["g1"]}`}, s.requests())

	_, err = c.Users.Update(ctx, u.ID, UserUpdateParams{ManagedUserGroups: []string{"g2"}})
	require.NoError(t, err)
	assert.Equal(t, []string{`PUT /v2/users/u-1 {"managedUserGroups":["g2"]}`}, s.requests())
	assert.Equal(t, []string{"g2"}, s.users["u-1"])
}

// A service that takes only userGroupsManaged: the first write is followed
// by one PUT in that spelling (never a second POST), and later writes use
// it at once.
func TestManagedGroupsOtherSpellingIsLearnt(t *testing.T) {
	s, c := newManagedServer(t, "userGroupsManaged", true)
	ctx := context.Background()
	u, err := c.Users.Create(ctx, UserCreateParams{Username: "a", ManagedUserGroups: []string{"g1"}})
	require.NoError(t, err)
	assert.Equal(t, "u-1", u.ID)
	assert.Equal(t, []string{"g1"}, u.ManagedUserGroups)
	assert.Equal(t, []string{
		`POST /v2/users {"name":"a","managedUserGroups":["g1"]}`,
		`PUT /v2/users/u-1 {"userGroupsManaged":["g1"]}`,
	}, s.requests())
	assert.Equal(t, []string{"g1"}, s.users["u-1"])

	u, err = c.Users.Create(ctx, UserCreateParams{Username: "b", Email: "b@x", ManagedUserGroups: []string{"g2"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"g2"}, u.ManagedUserGroups)
	assert.Equal(t, []string{`POST /v2/users {"email":"b@x","name":"b","userGroupsManaged":["g2"]}`}, s.requests())

	_, err = c.Users.Update(ctx, "u-1", UserUpdateParams{TimeZone: Ptr("UTC"), ManagedUserGroups: []string{}})
	require.NoError(t, err)
	assert.Equal(t, []string{`PUT /v2/users/u-1 {"timeZone":"UTC","userGroupsManaged":[]}`}, s.requests())
	assert.Equal(t, []string{}, s.users["u-1"])

	// Without managed groups, nothing is renamed or added.
	_, err = c.Users.Update(ctx, "u-1", UserUpdateParams{TimeZone: Ptr("UTC")})
	require.NoError(t, err)
	assert.Equal(t, []string{`PUT /v2/users/u-1 {"timeZone":"UTC"}`}, s.requests())
}

// The same on Update: a PUT the service ignored is followed by one PUT in
// the other spelling.
func TestManagedGroupsLearntOnUpdate(t *testing.T) {
	s, c := newManagedServer(t, "userGroupsManaged", true)
	ctx := context.Background()
	u, err := c.Users.Update(ctx, "u-9", UserUpdateParams{ManagedUserGroups: []string{"g1"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"g1"}, u.ManagedUserGroups)
	assert.Equal(t, []string{
		`PUT /v2/users/u-9 {"managedUserGroups":["g1"]}`,
		`PUT /v2/users/u-9 {"userGroupsManaged":["g1"]}`,
	}, s.requests())
	_, err = c.Users.Update(ctx, "u-9", UserUpdateParams{ManagedUserGroups: []string{"g2"}})
	require.NoError(t, err)
	assert.Equal(t, []string{`PUT /v2/users/u-9 {"userGroupsManaged":["g2"]}`}, s.requests())
}

// A service that never shows managed groups: each write checks again, with
// one follow-up PUT, and nothing is learnt.
func TestManagedGroupsNotEchoed(t *testing.T) {
	s, c := newManagedServer(t, "managedUserGroups", false)
	ctx := context.Background()
	for range 2 {
		u, err := c.Users.Create(ctx, UserCreateParams{Username: "a", ManagedUserGroups: []string{"g1"}})
		require.NoError(t, err)
		require.NotNil(t, u)
		reqs := s.requests()
		require.Len(t, reqs, 2)
		assert.True(t, strings.HasPrefix(reqs[0], "POST "), reqs[0])
		assert.True(t, strings.HasPrefix(reqs[1], "PUT "), reqs[1])
	}
}

// A failed follow-up PUT returns the created user with the error, so the
// caller never creates it twice.
func TestManagedGroupsFollowUpFails(t *testing.T) {
	s, c := newManagedServer(t, "userGroupsManaged", true)
	s.failPut = true
	u, err := c.Users.Create(context.Background(), UserCreateParams{Username: "a", ManagedUserGroups: []string{"g1"}})
	require.ErrorIs(t, err, ErrServer)
	require.NotNil(t, u)
	assert.Equal(t, "u-1", u.ID)
	reqs := s.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, 1, strings.Count(strings.Join(reqs, "\n"), "POST "), "one POST only")
}

// groupPathServer serves the group list operations at one spelling only,
// with one known group; everything else is 404.
func groupPathServer(t *testing.T, prefix string) (*Client, func() int) {
	var mu sync.Mutex
	n := 0
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+prefix, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"totalCount":1,"items":[{"id":"g1","name":"G"}]}`))
	})
	mux.HandleFunc("GET "+prefix+"/g1/users", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"totalCount":1,"items":[{"id":"u1"}]}`))
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient("tok", WithBaseURL(srv.URL), WithRateLimit(rate.Inf, 0), WithRetry(RetryPolicy{}))
	require.NoError(t, err)
	return c, func() int { mu.Lock(); defer mu.Unlock(); r := n; n = 0; return r }
}

// Once a spelling has answered 2xx, a 404 (an unknown group) costs one
// request, whichever spelling won.
func TestGroupPathFallbackRemembersBothOutcomes(t *testing.T) {
	ctx := context.Background()
	for prefix, first := range map[string]int{"/v2/usersgroups": 1, "/v2/usergroups": 2} {
		t.Run(prefix, func(t *testing.T) {
			c, count := groupPathServer(t, prefix)
			_, err := c.UserGroups.List(ctx, nil)
			require.NoError(t, err)
			assert.Equal(t, first, count(), "the first call")
			for range 3 {
				_, err = c.UserGroups.ListUsers(ctx, "unknown", nil)
				require.ErrorIs(t, err, ErrNotFound)
				assert.Equal(t, 1, count(), "a 404 after the spelling is known")
			}
			p, err := c.UserGroups.ListUsers(ctx, "g1", nil)
			require.NoError(t, err)
			assert.Len(t, p.Items, 1)
			assert.Equal(t, 1, count())
		})
	}
}

// One rule for v2 and v1: only "success": false is a failure.
func TestDoCheckedRule(t *testing.T) {
	for body, fails := range map[string]bool{
		`{"success":true}`:                      false,
		`{}`:                                    false,
		``:                                      false,
		`not json`:                              false,
		`[]`:                                    false,
		`{"success":"true"}`:                    false,
		`{"success":false}`:                     true,
		`{"success":"False","message":"owner"}`: true,
	} {
		client, mux := setup(t)
		mux.HandleFunc("DELETE /v2/webhooks/w-1", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(body))
		})
		err := client.DoChecked(context.Background(), http.MethodDelete, "/v2/webhooks/w-1", nil, nil)
		if !fails {
			assert.NoError(t, err, body)
			continue
		}
		assert.ErrorIs(t, err, ErrUnsuccessful, body)
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, body, string(apiErr.Body))
	}
}
