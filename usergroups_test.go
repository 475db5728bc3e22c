package edapp

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"net/http/httptest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

func TestUserGroupsCreate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params UserGroupCreateParams
		body   string
	}{
		{"with invite code", UserGroupCreateParams{Name: "New South Wales", InviteCode: "NSW-2024"}, `{"name":"New South Wales","inviteCode":"NSW-2024"}`},
		{"without invite code", UserGroupCreateParams{Name: "New South Wales"}, `{"name":"New South Wales"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mux := setup(t)
			mux.HandleFunc("/v2/usergroups", func(w http.ResponseWriter, r *http.Request) {
				assertRequest(t, r, http.MethodPost, "/v2/usergroups", "", tt.body)
				serveFixture(t, w, "usergroups/group.json")
			})
			g, err := client.UserGroups.Create(context.Background(), tt.params)
			require.NoError(t, err)
			assert.Equal(t, &UserGroup{ID: "grp-nsw", Name: "New South Wales", InviteCode: "NSW-2024"}, g)
		})
	}
}

func TestUserGroupsListUsesTheSpecSpelling(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/usersgroups", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/usersgroups", "page=1&pageSize=10", "")
		serveFixture(t, w, "usergroups/list.json")
	})
	mux.HandleFunc("/v2/usergroups", func(w http.ResponseWriter, r *http.Request) {
		t.Error("the other spelling was asked although the spec's answered")
	})

	page, err := client.UserGroups.List(context.Background(), &ListOptions{Page: 1, PageSize: 10})
	require.NoError(t, err)
	assertPage(t, &Page[UserGroup]{Response: counted(3), Items: []UserGroup{
		{ID: "grp-au", Name: "Australia", HasChildren: true},
		{ID: "grp-nsw", Name: "New South Wales", InviteCode: "NSW-2024", Extra: map[string]json.RawMessage{"isDynamic": json.RawMessage(`false`)}},
		{ID: "grp-sales", Name: "Sales (dynamic)", Extra: map[string]json.RawMessage{"isDynamic": json.RawMessage(`true`)}}, // inviteCode null
	}}, page)
	assert.Equal(t, spellingDocumented, client.served.groupsPath.Load())
}

func TestUserGroupsListChildren(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/usergroups/grp-au/children", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/usergroups/grp-au/children", "pageSize=100", "")
		serveFixture(t, w, "usergroups/children.json") // a bare array
	})
	page, err := client.UserGroups.ListChildren(context.Background(), "grp-au", &ListOptions{PageSize: 100})
	require.NoError(t, err)
	assertPage(t, &Page[UserGroup]{Response: counted(-1), Items: []UserGroup{
		{ID: "grp-nsw", Name: "New South Wales", InviteCode: "NSW-2024"},
		{ID: "grp-vic", Name: "Victoria", HasChildren: true},
	}}, page)
}

func TestUserGroupsAddAndRemoveUser(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		method string
		call   func(*UserGroupsService) error
	}{
		{"AddUser", http.MethodPost, func(s *UserGroupsService) error { return s.AddUser(context.Background(), "grp-nsw", "u-7") }},
		{"RemoveUser", http.MethodDelete, func(s *UserGroupsService) error { return s.RemoveUser(context.Background(), "grp-nsw", "u-7") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mux := setup(t)
			answer := `{"success": true}`
			mux.HandleFunc("/v2/usergroups/grp-nsw/users", func(w http.ResponseWriter, r *http.Request) {
				assertRequest(t, r, tt.method, "/v2/usergroups/grp-nsw/users", "", `{"userId":"u-7"}`)
				_, _ = w.Write([]byte(answer))
			})
			require.NoError(t, tt.call(client.UserGroups))

			answer = `{"success": false, "message": "user is not in the group"}`
			err := tt.call(client.UserGroups)
			require.ErrorIs(t, err, ErrUnsuccessful)
			assert.ErrorContains(t, err, "user is not in the group")
		})
	}
}

func TestUserGroupsListUsers(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/usersgroups/grp-nsw/users", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/usersgroups/grp-nsw/users", "page=3", "")
		serveFixture(t, w, "usergroups/users.json")
	})
	page, err := client.UserGroups.ListUsers(context.Background(), "grp-nsw", &ListOptions{Page: 3})
	require.NoError(t, err)
	assert.Equal(t, 2, totalOf(page))
	require.Len(t, page.Items, 2)
	assert.Equal(t, "jane.doe@example.com", page.Items[0].Username)
	assert.Equal(t, []string{"grp-nsw"}, page.Items[0].ManagedUserGroups)
	assert.Equal(t, time.Date(2024, 3, 7, 5, 10, 36, 0, time.UTC), page.Items[0].LastActiveDate.Time)
	assert.Equal(t, "li.wei", page.Items[1].Username)
}

// groupsCounter counts the requests per escaped path.
type groupsCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *groupsCounter) handle(mux *http.ServeMux, path, answer string) {
	mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.n[r.URL.EscapedPath()]++
		c.mu.Unlock()
		_, _ = w.Write([]byte(answer))
	})
}

func (c *groupsCounter) count404(mux *http.ServeMux) {
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.n[r.URL.EscapedPath()]++
		c.mu.Unlock()
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	})
}

func (c *groupsCounter) counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.n {
		out[k] = v
	}
	return out
}

func TestUserGroupsFallbackIsRemembered(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	c := &groupsCounter{n: map[string]int{}}
	c.count404(mux) // the spec's spelling is unknown to this server
	c.handle(mux, "/v2/usergroups", `{"totalCount":1,"items":[{"id":"grp-au","name":"Australia"}]}`)
	c.handle(mux, "/v2/usergroups/grp-au/users", `{"totalCount":1,"items":[{"id":"u-1","name":"jane"}]}`)
	ctx := context.Background()

	page, err := client.UserGroups.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, []UserGroup{{ID: "grp-au", Name: "Australia"}}, page.Items)
	assert.Equal(t, map[string]int{"/v2/usersgroups": 1, "/v2/usergroups": 1}, c.counts())
	assert.Equal(t, spellingUndocumented, client.served.groupsPath.Load())

	// From now on the client goes straight to the spelling that answered,
	// for both list operations.
	_, err = client.UserGroups.List(ctx, nil)
	require.NoError(t, err)
	users, err := client.UserGroups.ListUsers(ctx, "grp-au", nil)
	require.NoError(t, err)
	assert.Equal(t, "jane", users.Items[0].Username)
	n := 0
	for _, err := range client.UserGroups.AllUsers(ctx, "grp-au", nil) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 1, n)
	assert.Equal(t, map[string]int{
		"/v2/usersgroups":             1,
		"/v2/usergroups":              2,
		"/v2/usergroups/grp-au/users": 2,
	}, c.counts())

	// A group unknown under the remembered spelling is a plain 404.
	_, err = client.UserGroups.ListUsers(ctx, "nope", nil)
	require.ErrorIs(t, err, ErrNotFound)
	assert.Equal(t, 1, c.counts()["/v2/usergroups/nope/users"])
	assert.Zero(t, c.counts()["/v2/usersgroups/nope/users"])
}

func TestUserGroupsTrue404IsNotFound(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	c := &groupsCounter{n: map[string]int{}}
	c.count404(mux)
	c.handle(mux, "/v2/usersgroups", `{"totalCount":0,"items":[]}`)
	ctx := context.Background()

	_, err := client.UserGroups.ListUsers(ctx, "grp-unknown", nil)
	require.ErrorIs(t, err, ErrNotFound)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "/v2/usersgroups/grp-unknown/users", apiErr.Path, "the spec spelling's error")
	assert.Equal(t, map[string]int{
		"/v2/usersgroups/grp-unknown/users": 1,
		"/v2/usergroups/grp-unknown/users":  1,
	}, c.counts())
	assert.Equal(t, spellingUnknown, client.served.groupsPath.Load(), "nothing to remember")

	// The spec's spelling is still the one used.
	_, err = client.UserGroups.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, c.counts()["/v2/usersgroups"])
	assert.Zero(t, c.counts()["/v2/usergroups"])

	// AllUsers yields the ErrNotFound once and stops.
	n, err := firstErr(client.UserGroups.AllUsers(ctx, "grp-unknown", nil))
	assert.Zero(t, n)
	require.ErrorIs(t, err, ErrNotFound)
}

func TestUserGroupsFallbackServerErrorIsNotRemembered(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/usergroups", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"message":"try later"}`, http.StatusServiceUnavailable)
	})
	_, err := client.UserGroups.List(context.Background(), nil)
	require.ErrorIs(t, err, ErrServer)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "/v2/usergroups", apiErr.Path)
	assert.Equal(t, spellingUnknown, client.served.groupsPath.Load())
}

func TestUserGroupsAll(t *testing.T) {
	t.Parallel()
	t.Run("All", func(t *testing.T) {
		checkAllPages(t, "/v2/usersgroups", "", func(ctx context.Context, c *Client) ([]string, error) {
			return collectKeys(c.UserGroups.All(ctx, &ListOptions{PageSize: 2}), func(g UserGroup) string { return g.ID })
		})
	})
	t.Run("AllChildren", func(t *testing.T) {
		checkAllPages(t, "/v2/usergroups/grp-au/children", "", func(ctx context.Context, c *Client) ([]string, error) {
			return collectKeys(c.UserGroups.AllChildren(ctx, "grp-au", &ListOptions{PageSize: 2}), func(g UserGroup) string { return g.ID })
		})
	})
	t.Run("AllUsers", func(t *testing.T) {
		checkAllPages(t, "/v2/usersgroups/grp-au/users", "", func(ctx context.Context, c *Client) ([]string, error) {
			return collectKeys(c.UserGroups.AllUsers(ctx, "grp-au", &ListOptions{PageSize: 2}), func(u User) string { return u.ID })
		})
	})
	t.Run("All after the fallback", func(t *testing.T) {
		checkAllPages(t, "/v2/usergroups", "", func(ctx context.Context, c *Client) ([]string, error) {
			return collectKeys(c.UserGroups.All(ctx, &ListOptions{PageSize: 2}), func(g UserGroup) string { return g.ID })
		})
	})
}

func TestUserGroupsEscapesIDs(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	var paths []string
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.Method+" "+r.URL.EscapedPath())
		_, _ = w.Write([]byte(`[]`))
	})
	ctx := context.Background()
	const id = "g/1 ?"
	_, err := client.UserGroups.ListChildren(ctx, id, nil)
	require.NoError(t, err)
	require.NoError(t, client.UserGroups.AddUser(ctx, id, "u-1"))
	require.NoError(t, client.UserGroups.RemoveUser(ctx, id, "u-1"))
	_, err = client.UserGroups.ListUsers(ctx, id, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"GET /v2/usergroups/g%2F1%20%3F/children",
		"POST /v2/usergroups/g%2F1%20%3F/users",
		"DELETE /v2/usergroups/g%2F1%20%3F/users",
		"GET /v2/usersgroups/g%2F1%20%3F/users",
	}, paths)
}

func TestUserGroupsEmptyIDsAreRefused(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	refuseRequests(t, mux)
	ctx := context.Background()
	_, err := client.UserGroups.ListChildren(ctx, "", nil)
	checkRefused(t, err)
	_, err = firstErr(client.UserGroups.AllChildren(ctx, "", nil))
	checkRefused(t, err)
	checkRefused(t, client.UserGroups.AddUser(ctx, "", "u-1"))
	checkRefused(t, client.UserGroups.AddUser(ctx, "g-1", ""))
	checkRefused(t, client.UserGroups.RemoveUser(ctx, "", "u-1"))
	checkRefused(t, client.UserGroups.RemoveUser(ctx, "g-1", " "))
	_, err = client.UserGroups.ListUsers(ctx, "", nil)
	checkRefused(t, err)
	_, err = firstErr(client.UserGroups.AllUsers(ctx, "", nil))
	checkRefused(t, err)
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
	t.Parallel()
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
