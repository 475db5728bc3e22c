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
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

func TestUsersCreate(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/users", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodPost, "/v2/users", "",
			`{"name":"sam.lee","password":"p@ss w0rd","email":"sam.lee@example.com","firstName":"Sam","lastName":"Lee",`+
				`"externalId":"HR-2001","roles":["app-user","prizing-user"],"userGroups":["grp-sales"],`+
				`"customFields":{"department":"Sales"}}`)
		serveFixture(t, w, "users/user-created.json")
	})

	u, err := client.Users.Create(context.Background(), UserCreateParams{
		Username:     "sam.lee",
		Password:     "p@ss w0rd",
		Email:        "sam.lee@example.com",
		FirstName:    "Sam",
		LastName:     "Lee",
		ExternalID:   "HR-2001",
		Roles:        []Role{RoleAppUser, RolePrizingUser},
		UserGroups:   []string{"grp-sales"},
		CustomFields: map[string]string{"department": "Sales"},
	})
	require.NoError(t, err)
	assert.Equal(t, &User{
		ID:                "64b7e0c2a1f3d9e8c7b6a5f4",
		Username:          "sam.lee", // from "userName"
		Email:             "sam.lee@example.com",
		FirstName:         "Sam",
		LastName:          "Lee",
		ExternalID:        "HR-2001",
		Roles:             []Role{RoleAppUser, RolePrizingUser},
		UserGroups:        []string{"grp-sales"},
		ManagedUserGroups: []string{},
		CustomFields:      map[string]string{"department": "Sales"},
	}, u)
	assert.True(t, u.LastActiveDate.IsZero(), "null lastActiveDate")
}

func TestUsersCreateSendsEveryField(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/users", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodPost, "/v2/users", "",
			`{"name":"kim","password":"pw","email":"kim@example.com","firstName":"Kim","lastName":"Ng","externalId":"X-1",`+
				`"timeZone":"Australia/Sydney","roles":["app-user","prizing-user","account-admin","content-author",`+
				`"manager-analytics","exclude-from-analytics","reviewer"],"userGroups":["g1","g2"],`+
				`"customFields":{"a":"1","b":"2"},"managedUserGroups":["g2"],"userGroupsManaged":["g2"]}`)
		_, _ = w.Write([]byte(`{"id":"u-new","userGroupsManaged":["g2"]}`)) // the groups took: no follow-up
	})
	_, err := client.Users.Create(context.Background(), UserCreateParams{
		Username: "kim", Password: "pw", Email: "kim@example.com", FirstName: "Kim", LastName: "Ng",
		ExternalID: "X-1", TimeZone: "Australia/Sydney", Roles: Roles(),
		UserGroups: []string{"g1", "g2"}, ManagedUserGroups: []string{"g2"},
		CustomFields: map[string]string{"b": "2", "a": "1"},
	})
	require.NoError(t, err)
}

func TestUsersGet(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/users/5f1a2b3c4d5e6f7a8b9c0d1e", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/users/5f1a2b3c4d5e6f7a8b9c0d1e", "", "")
		serveFixture(t, w, "users/user.json")
	})

	u, err := client.Users.Get(context.Background(), "5f1a2b3c4d5e6f7a8b9c0d1e")
	require.NoError(t, err)
	assert.Equal(t, &User{
		ID:                "5f1a2b3c4d5e6f7a8b9c0d1e",
		Username:          "jane.doe@example.com", // from "name"
		Email:             "jane.doe@example.com",
		FirstName:         "Jane",
		LastName:          "Doe",
		ExternalID:        "HR-1042",
		TimeZone:          "Australia/Sydney",
		Roles:             []Role{RoleAppUser, RolePrizingUser, RoleManagerAnalytics},
		UserGroups:        []string{"grp-sales", "grp-nsw"},
		ManagedUserGroups: []string{"grp-nsw"}, // from "userGroupsManaged"
		CustomFields:      map[string]string{"department": "Sales", "site": "Parramatta"},
		LastActiveDate:    Time{time.Date(2024, 3, 7, 5, 10, 36, 187e6, time.UTC)}, // no zone: UTC
		Extra:             map[string]json.RawMessage{"isArchived": json.RawMessage(`false`)},
	}, u)
}

func TestUsersGetNotFound(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/users/nobody", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"message":"user not found"}`, http.StatusNotFound)
	})
	_, err := client.Users.Get(context.Background(), "nobody")
	require.ErrorIs(t, err, ErrNotFound)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "/v2/users/nobody", apiErr.Path)
	assert.Equal(t, "user not found", apiErr.Message)
}

func TestUsersUpdateOnlyTimeZone(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/users/5f1a2b3c4d5e6f7a8b9c0d1e", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodPut, "/v2/users/5f1a2b3c4d5e6f7a8b9c0d1e", "", `{"timeZone":"Australia/Perth"}`)
		serveFixture(t, w, "users/user-updated.json")
	})

	u, err := client.Users.Update(context.Background(), "5f1a2b3c4d5e6f7a8b9c0d1e",
		UserUpdateParams{TimeZone: Ptr("Australia/Perth")})
	require.NoError(t, err)
	assert.Equal(t, "Australia/Perth", u.TimeZone)
	assert.Equal(t, "jane.doe@example.com", u.Username, `from "username"`)
	assert.Equal(t, []string{"grp-nsw"}, u.ManagedUserGroups)
	assert.Equal(t, time.Date(2024, 3, 7, 5, 10, 36, 0, time.UTC), u.LastActiveDate.Time)
}

func TestUsersUpdateSendsOnlyWhatIsSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params UserUpdateParams
		body   string
	}{
		{"nothing", UserUpdateParams{}, `{}`},
		{"empty string is sent", UserUpdateParams{ExternalID: Ptr("")}, `{"externalId":""}`},
		{"empty slice clears", UserUpdateParams{UserGroups: []string{}, ManagedUserGroups: []string{}}, `{"userGroups":[],"managedUserGroups":[],"userGroupsManaged":[]}`},
		{"empty map clears", UserUpdateParams{CustomFields: map[string]string{}}, `{"customFields":{}}`},
		{"roles", UserUpdateParams{Roles: []Role{RoleReviewer}}, `{"roles":["reviewer"]}`},
		{"everything", UserUpdateParams{
			Username: Ptr("jd"), Password: Ptr("pw"), Email: Ptr("jd@example.com"), FirstName: Ptr("J"),
			LastName: Ptr("D"), ExternalID: Ptr("E"), TimeZone: Ptr("UTC"), Roles: []Role{RoleAppUser},
			UserGroups: []string{"g"}, ManagedUserGroups: []string{"m"}, CustomFields: map[string]string{"k": "v"},
		}, `{"name":"jd","password":"pw","email":"jd@example.com","firstName":"J","lastName":"D","externalId":"E",` +
			`"timeZone":"UTC","roles":["app-user"],"userGroups":["g"],"customFields":{"k":"v"},"managedUserGroups":["m"],"userGroupsManaged":["m"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mux := setup(t)
			mux.HandleFunc("/v2/users/u-1", func(w http.ResponseWriter, r *http.Request) {
				assertRequest(t, r, http.MethodPut, "/v2/users/u-1", "", tt.body)
				_, _ = w.Write([]byte(`{"id":"u-1","userGroupsManaged":["m"]}`)) // the groups took: no follow-up
			})
			_, err := client.Users.Update(context.Background(), "u-1", tt.params)
			require.NoError(t, err)
		})
	}
}

func TestUsersDelete(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		answer string
		want   error
	}{
		{"success true", http.StatusOK, `{"success": true}`, nil},
		{"empty answer", http.StatusNoContent, ``, nil},
		{"other object", http.StatusOK, `{"id": "u-1"}`, nil},
		{"success false", http.StatusOK, `{"success": false}`, ErrUnsuccessful},
		{"not found", http.StatusNotFound, `{"message": "user not found"}`, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mux := setup(t)
			mux.HandleFunc("/v2/users/u-1", func(w http.ResponseWriter, r *http.Request) {
				assertRequest(t, r, http.MethodDelete, "/v2/users/u-1", "", "")
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.answer))
			})
			err := client.Users.Delete(context.Background(), "u-1")
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.want)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, http.MethodDelete, apiErr.Method)
			assert.Equal(t, "/v2/users/u-1", apiErr.Path)
		})
	}
}

func TestUsersList(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/users", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/users", "externalId=HR-1042&page=2&pageSize=50&userName=jane.doe%40example.com", "")
		serveFixture(t, w, "users/list.json")
	})

	page, err := client.Users.List(context.Background(), &UserListOptions{
		ListOptions: ListOptions{Page: 2, PageSize: 50},
		Username:    "jane.doe@example.com",
		ExternalID:  "HR-1042",
	})
	require.NoError(t, err)
	assert.Equal(t, 3, totalOf(page))
	require.Len(t, page.Items, 3)

	// The three spellings of the username, and both of the managed groups.
	assert.Equal(t, "jane.doe@example.com", page.Items[0].Username)
	assert.Equal(t, "raj.patel", page.Items[1].Username)
	assert.Equal(t, "exclude.me", page.Items[2].Username)
	assert.Equal(t, []string{}, page.Items[0].ManagedUserGroups)
	assert.Equal(t, []string{"grp-sales"}, page.Items[1].ManagedUserGroups)
	assert.Nil(t, page.Items[2].ManagedUserGroups)

	assert.Equal(t, []Role{RoleAccountAdmin, RoleContentAuthor, RoleReviewer}, page.Items[1].Roles)
	assert.Equal(t, time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC), page.Items[1].LastActiveDate.Time)
	assert.True(t, page.Items[2].LastActiveDate.IsZero(), `"" lastActiveDate`)
	assert.Nil(t, page.Items[2].CustomFields)
}

func TestUsersListWithoutOptions(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/users", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodGet, "/v2/users", "", "")
		_, _ = w.Write([]byte(`{"totalCount":0,"items":[]}`))
	})
	page, err := client.Users.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, page.Items)
	assert.Equal(t, 0, totalOf(page))
}

func TestUsersListOddFieldKeepsTheRest(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/users", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"totalCount":2,"items":[` +
			`{"id":"u-1","name":"a","lastActiveDate":"last tuesday","roles":["app-user"]},` +
			`{"id":"u-2","userName":"b","customFields":{"n":"1"}}]}`))
	})
	page, err := client.Users.List(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 2)
	assert.Equal(t, "a", page.Items[0].Username)
	assert.Equal(t, []Role{RoleAppUser}, page.Items[0].Roles)
	assert.True(t, page.Items[0].LastActiveDate.IsZero())
	assert.Equal(t, "b", page.Items[1].Username)
}

func TestUsersAll(t *testing.T) {
	t.Parallel()
	checkAllPages(t, "/v2/users", "userName=jane&externalId=HR-1", func(ctx context.Context, c *Client) ([]string, error) {
		opts := &UserListOptions{ListOptions: ListOptions{PageSize: 2}, Username: "jane", ExternalID: "HR-1"}
		keys, err := collectKeys(c.Users.All(ctx, opts), func(u User) string { return u.ID })
		assert.Equal(t, &UserListOptions{ListOptions: ListOptions{PageSize: 2}, Username: "jane", ExternalID: "HR-1"}, opts, "caller's options untouched")
		return keys, err
	})
}

func TestUsersAllStopsAfterAnError(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	calls := 0
	mux.HandleFunc("/v2/users", func(w http.ResponseWriter, r *http.Request) {
		calls++
		page := r.URL.Query().Get("page")
		if page == "2" {
			http.Error(w, `{"message":"boom"}`, http.StatusInternalServerError)
			return
		}
		_, _ = fmt.Fprintf(w, `{"totalCount":6,"items":[{"id":"a%s"},{"id":"b%s"}]}`, page, page)
	})
	n, err := firstErr(client.Users.All(context.Background(), &UserListOptions{ListOptions: ListOptions{PageSize: 2}}, WithPageConcurrency(1)))
	assert.Equal(t, 2, n)
	require.ErrorIs(t, err, ErrServer)
	assert.Equal(t, 2, calls)
}

func TestUsersCourses(t *testing.T) {
	t.Parallel()
	for _, fixture := range []string{"users/courses.json", "users/courses-bare.json"} {
		t.Run(fixture, func(t *testing.T) {
			client, mux := setup(t)
			mux.HandleFunc("/v2/users/u-1/courses", func(w http.ResponseWriter, r *http.Request) {
				assertRequest(t, r, http.MethodGet, "/v2/users/u-1/courses", "page=1&pageSize=1000", "")
				serveFixture(t, w, fixture)
			})
			courses, err := client.Users.Courses(context.Background(), "u-1")
			require.NoError(t, err)
			require.NotEmpty(t, courses)
			c := courses[0]
			assert.Equal(t, "crs-safety", c.ID)
			assert.Equal(t, "Workplace Safety Basics", c.Title)
			assert.Equal(t, time.Date(2023, 11, 2, 9, 15, 0, 0, time.UTC), c.CreatedDateTime.Time)
			if fixture != "users/courses.json" {
				require.Len(t, courses, 1)
				return
			}
			require.Len(t, courses, 2)
			assert.Equal(t, UserCourse{
				Course: Course{
					ID: "crs-safety", ExternalID: "LMS-SAFE-1", Title: "Workplace Safety Basics",
					Description: "Hazards, reporting and first aid.", Status: "published", Locale: "en", Duration: 25,
					ThumbnailURL:     "https://cdn.example.com/thumbs/safety.png",
					CreatedDateTime:  Time{time.Date(2023, 11, 2, 9, 15, 0, 0, time.UTC)},
					ModifiedDateTime: Time{time.Date(2024, 1, 10, 3, 0, 0, 0, time.UTC)},
				},
				Completed: true, Opened: true, PercentageCompleted: 100,
			}, c)
			f := courses[1]
			assert.Equal(t, time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC), f.CreatedDateTime.Time, "createDateTime")
			assert.False(t, f.Completed)
			assert.True(t, f.Opened)
			assert.InDelta(t, 33.3, f.PercentageCompleted, 1e-9)
		})
	}
}

func TestUsersEscapesIDs(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	var paths []string
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.EscapedPath())
		_, _ = w.Write([]byte(`{}`))
	})
	ctx := context.Background()
	const id = "a/b c?d#e%"
	_, err := client.Users.Get(ctx, id)
	require.NoError(t, err)
	_, err = client.Users.Courses(ctx, id)
	require.NoError(t, err)
	require.NoError(t, client.Users.Delete(ctx, id))
	assert.Equal(t, []string{
		"/v2/users/a%2Fb%20c%3Fd%23e%25",
		"/v2/users/a%2Fb%20c%3Fd%23e%25/courses",
		"/v2/users/a%2Fb%20c%3Fd%23e%25",
	}, paths)
}

func TestUsersEmptyIDsAreRefused(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	refuseRequests(t, mux)
	ctx := context.Background()
	for _, id := range []string{"", "  "} {
		_, err := client.Users.Get(ctx, id)
		checkRefused(t, err)
		_, err = client.Users.Update(ctx, id, UserUpdateParams{TimeZone: Ptr("UTC")})
		checkRefused(t, err)
		checkRefused(t, client.Users.Delete(ctx, id))
		_, err = client.Users.Courses(ctx, id)
		checkRefused(t, err)
	}
}

func TestUserDecodeVariants(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     User
	}{
		{"name wins over the others", `{"name":"n","userName":"un","username":"u"}`, User{Username: "n"}},
		{"userName", `{"userName":"un"}`, User{Username: "un"}},
		{"username", `{"username":"u"}`, User{Username: "u"}},
		{"empty name falls through", `{"name":"","username":"u"}`, User{Username: "u"}},
		{"spec's managed groups win", `{"managedUserGroups":["a"],"userGroupsManaged":["b"]}`, User{ManagedUserGroups: []string{"a"}}},
		{"vendor's managed groups", `{"userGroupsManaged":["b"]}`, User{ManagedUserGroups: []string{"b"}}},
		{"null", `null`, User{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u User
			require.NoError(t, decodeAnswer([]byte(tt.in), &u))
			assert.Equal(t, tt.want, u)
		})
	}
}

func TestUserEncodesTheSentSpellings(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(User{ID: "u", Username: "n", ManagedUserGroups: []string{"g"}})
	require.NoError(t, err)
	var back User
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, "n", back.Username)
	assert.Equal(t, []string{"g"}, back.ManagedUserGroups)
	assert.Contains(t, string(b), `"name":"n"`)
	assert.Contains(t, string(b), `"managedUserGroups":["g"]`)
}

func TestRoles(t *testing.T) {
	t.Parallel()
	want := []Role{"app-user", "prizing-user", "account-admin", "content-author",
		"manager-analytics", "exclude-from-analytics", "reviewer"}
	assert.Equal(t, want, Roles())
	r := Roles()
	r[0] = "changed"
	assert.Equal(t, RoleAppUser, Roles()[0], "a new slice on every call")
}

func TestUsersCoursesReadsEveryPage(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	var pages []string
	mux.HandleFunc("/v2/users/u-1/courses", func(w http.ResponseWriter, r *http.Request) {
		pages = append(pages, r.URL.Query().Get("page"))
		// A server that serves its default 25 courses a page, whatever was asked.
		switch r.URL.Query().Get("page") {
		case "1":
			var items []string
			for i := range 25 {
				items = append(items, fmt.Sprintf(`{"id":"c%d"}`, i+1))
			}
			fmt.Fprintf(w, `{"totalCount":26,"items":[%s]}`, strings.Join(items, ","))
		case "2":
			io.WriteString(w, `{"totalCount":26,"items":[{"id":"c26","completed":true}]}`)
		default:
			t.Errorf("asked for page %s", r.URL.Query().Get("page"))
		}
	})
	courses, err := client.Users.Courses(context.Background(), "u-1")
	require.NoError(t, err)
	require.Len(t, courses, 26)
	assert.Equal(t, "c26", courses[25].ID)
	assert.True(t, courses[25].Completed)
	assert.Equal(t, []string{"1", "2"}, pages)
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

func newManagedServer(t *testing.T, honours string, echo bool, opts ...Option) (*managedServer, *Client) {
	s := &managedServer{honours: honours, echo: echo, users: map[string][]string{}}
	srv := httptest.NewServer(s.handler(t))
	t.Cleanup(srv.Close)
	c, err := NewClient("tok", append([]Option{WithBaseURL(srv.URL), WithRateLimit(rate.Inf, 0), WithRetry(RetryPolicy{})}, opts...)...)
	require.NoError(t, err)
	return s, c
}

// By default the managed groups go out under both keys in one body, so a
// service that honours either takes them with one request a write.
func TestManagedGroupsBothKeysInOneRequest(t *testing.T) {
	t.Parallel()
	for _, honours := range []string{"managedUserGroups", "userGroupsManaged"} {
		s, c := newManagedServer(t, honours, true)
		ctx := context.Background()
		u, err := c.Users.Create(ctx, UserCreateParams{Username: "a", ManagedUserGroups: []string{"g1"}})
		require.NoError(t, err)
		assert.Equal(t, []string{"g1"}, u.ManagedUserGroups, honours)
		assert.Equal(t, []string{`POST /v2/users {"name":"a","managedUserGroups":["g1"],"userGroupsManaged":["g1"]}`}, s.requests())

		_, err = c.Users.Update(ctx, u.ID, UserUpdateParams{TimeZone: Ptr("UTC"), ManagedUserGroups: []string{}})
		require.NoError(t, err)
		assert.Equal(t, []string{`PUT /v2/users/u-1 {"timeZone":"UTC","managedUserGroups":[],"userGroupsManaged":[]}`}, s.requests())
		assert.Equal(t, []string{}, s.users["u-1"], honours)

		// Without managed groups, neither key is sent.
		_, err = c.Users.Update(ctx, "u-1", UserUpdateParams{TimeZone: Ptr("UTC")})
		require.NoError(t, err)
		assert.Equal(t, []string{`PUT /v2/users/u-1 {"timeZone":"UTC"}`}, s.requests())
	}
}

// WithManagedGroupsField sends one key, the one chosen, and still one
// request a write, whatever the answer shows.
func TestWithManagedGroupsFieldSendsOneKey(t *testing.T) {
	t.Parallel()
	for f, key := range map[ManagedGroupsField]string{ManagedUserGroups: "managedUserGroups", UserGroupsManaged: "userGroupsManaged"} {
		s, c := newManagedServer(t, "", false, WithManagedGroupsField(f))
		ctx := context.Background()
		_, err := c.Users.Create(ctx, UserCreateParams{Username: "a", ManagedUserGroups: []string{"g1"}})
		require.NoError(t, err)
		assert.Equal(t, []string{`POST /v2/users {"name":"a","` + key + `":["g1"]}`}, s.requests())
		_, err = c.Users.Update(ctx, "u-1", UserUpdateParams{ManagedUserGroups: []string{"g2"}})
		require.NoError(t, err)
		assert.Equal(t, []string{`PUT /v2/users/u-1 {"` + key + `":["g2"]}`}, s.requests())
	}
	_, err := NewClient("tok", WithManagedGroupsField(ManagedGroupsField(7)))
	assert.ErrorIs(t, err, ErrInvalidInput)
}

// A user's password prints as [REDACTED] however the params are printed,
// and goes out in full.
func TestUserParamsHidePasswords(t *testing.T) {
	t.Parallel()
	s, c := newManagedServer(t, "", false)
	create := UserCreateParams{Username: "a", Password: "pw-s3cr3t"}
	update := UserUpdateParams{Password: Ptr("pw-s3cr3t")}
	for _, v := range []any{create, update, &create, &update} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
			assert.NotContains(t, fmt.Sprintf(verb, v), "s3cr3t", verb)
		}
		b, err := json.Marshal(v)
		require.NoError(t, err)
		assert.NotContains(t, string(b), "s3cr3t")
	}
	_, err := c.Users.Create(context.Background(), create)
	require.NoError(t, err)
	_, err = c.Users.Update(context.Background(), "u-1", update)
	require.NoError(t, err)
	assert.Equal(t, []string{`POST /v2/users {"name":"a","password":"pw-s3cr3t"}`, `PUT /v2/users/u-1 {"password":"pw-s3cr3t"}`}, s.requests())
}
