package edapptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewServerDefaults(t *testing.T) {
	h := newHarness(t)
	assert.True(t, strings.HasPrefix(h.URL, "http://127.0.0.1:"), h.URL)
	assert.Len(t, h.Token, 32)
	other := New(t)
	defer other.Close()
	assert.NotEqual(t, h.Token, other.Token, "tokens are random")

	h2 := newHarness(t, WithToken("secret"))
	assert.Equal(t, "secret", h2.Token)
	h2.get("/v2/users", nil)
}

func TestAuth(t *testing.T) {
	h := newHarness(t, WithToken("right"))
	for _, tc := range []struct{ name, header string }{
		{"missing", ""},
		{"wrong", "Bearer wrong"},
		{"no scheme", "right"},
		{"basic", "Basic right"},
		{"prefix", "Bearer righ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", h.URL+"/v2/users", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
			assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
			var body map[string]string
			require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
			assert.Equal(t, map[string]string{"message": "Unauthorized"}, body)
		})
	}
	// The scheme is matched without regard to case.
	r := h.raw("GET", "/v2/users", "", nil)
	assert.Equal(t, 401, r.status)
	req, _ := http.NewRequest("GET", h.URL+"/v2/users", nil)
	req.Header.Set("Authorization", "bearer right")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 200, res.StatusCode)
	// Unknown routes need the token too.
	assert.Equal(t, 401, h.raw("GET", "/v3/nothing", "", nil).status)
}

func TestRoutingErrors(t *testing.T) {
	h := newHarness(t)
	r := h.do("GET", "/v2/nothing", nil)
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Contains(t, r.message(t), "no route")
	assert.Equal(t, 404, h.do("GET", "/", nil).status)
	assert.Equal(t, 404, h.do("GET", "/v2/users/a/b/c", nil).status)

	r = h.do("PATCH", "/v2/users", nil)
	assert.Equal(t, http.StatusNotFound, r.status)
	r.message(t)

	for _, body := range []string{`{`, `[1,2]`, `"x"`, `{"name": "a"} trailing`, `null`, `{"name": 5}`, `{"roles": "app-user"}`} {
		r = h.raw("POST", "/v2/users", h.Token, []byte(body))
		assert.Equal(t, http.StatusBadRequest, r.status, "body %s: %s", body, r.body)
		r.message(t)
	}
	r = h.raw("POST", "/v2/usergroups", h.Token, []byte(`{"name":`))
	assert.Equal(t, 400, r.status)
	assert.Contains(t, r.message(t), "malformed JSON")

	r = h.raw("POST", "/v2/users", h.Token, []byte(`{"name":"`+strings.Repeat("a", MaxBodyBytes)+`"}`))
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status)

	// Unknown ids are 404 with a message.
	for _, p := range []string{"/v2/users/usr_404", "/v2/users/usr_404/courses", "/v2/usergroups/grp_1/children",
		"/v2/usersgroups/grp_1/users", "/v2/catalog/courses/crs_9/lessons", "/v2/catalog/coursecollections/col_1/courses",
		"/v1/users/usr_1/courses", "/v1/reports/user/usr_1/course/crs_1", "/v2/analytics/users/usr_1/lesson-progress",
		"/v2/analytics/users/usr_1/lesson-progress/events"} {
		r := h.do("GET", p, nil)
		assert.Equal(t, 404, r.status, p)
		assert.Contains(t, r.message(t), "not found", p)
	}
	assert.NotEmpty(t, r.header.Get("X-Request-Id"))
}

func TestCaseInsensitivePathsAndQueryNames(t *testing.T) {
	h := newHarness(t)
	for i := range 3 {
		h.mustUser(UserSpec{Username: fmt.Sprintf("user%d", i), ExternalID: fmt.Sprint("E", i)})
	}
	col, err := h.AddCollection(CollectionSpec{Title: "Safety"})
	require.NoError(t, err)
	h.mustCourse(CourseSpec{Title: "C", CollectionIDs: []string{col}})

	var p page[v2User]
	h.get("/V2/Users?PageSize=2&PAGE=2", &p)
	assert.Equal(t, 3, p.TotalCount)
	assert.Equal(t, []string{"usr_3"}, ids(p.Items, func(u v2User) string { return u.ID }))
	h.get("/v2/USERS?EXTERNALID=E1", &p)
	assert.Equal(t, []string{"usr_2"}, ids(p.Items, func(u v2User) string { return u.ID }))
	var cols page[v2Collection]
	h.get("/v2/catalog/courseCollections", &cols)
	require.Len(t, cols.Items, 1)
	h.get("/v2/Catalog/CourseCollections/"+col+"/Courses", nil)

	// Ids are matched exactly.
	assert.Equal(t, 404, h.do("GET", "/v2/users/USR_1", nil).status)
	assert.Equal(t, 404, h.do("GET", "/v2/catalog/coursecollections/"+strings.ToUpper(col)+"/courses", nil).status)

	var u v2User
	h.ok("POST", "/v2/users", map[string]any{"NAME": "shouty", "EMAIL": "s@example.com"}, &u)
	assert.Equal(t, "shouty", u.Name)
	assert.Equal(t, "s@example.com", u.Email)
}

func TestGroupSpellings(t *testing.T) {
	h := newHarness(t)
	uid := h.mustUser(UserSpec{Username: "ann"})
	for i, spelling := range []string{"usergroups", "usersgroups", "UserGroups"} {
		var g v2Group
		h.ok("POST", "/v2/"+spelling, map[string]string{"name": "G" + spelling, "inviteCode": fmt.Sprint("code", i)}, &g)
		kid := v2Group{ID: h.mustGroup("kid", g.ID, ""), Name: "kid"}
		var list page[v2Group]
		h.get("/v2/"+spelling, &list)
		assert.Equal(t, 2*(i+1), list.TotalCount)
		var kids page[v2Group]
		h.get("/v2/"+spelling+"/"+g.ID+"/children", &kids)
		assert.Equal(t, []v2Group{{ID: kid.ID, Name: "kid"}}, kids.Items)

		var ok successBody
		h.ok("POST", "/v2/"+spelling+"/"+g.ID+"/users", map[string]string{"userId": uid}, &ok)
		assert.True(t, ok.Success)
		var members page[v2User]
		h.get("/v2/"+spelling+"/"+g.ID+"/users", &members)
		assert.Equal(t, []string{uid}, ids(members.Items, func(u v2User) string { return u.ID }))
		h.ok("DELETE", "/v2/"+spelling+"/"+g.ID+"/users", map[string]string{"userId": uid}, &ok)
		h.get("/v2/"+spelling+"/"+g.ID+"/users", &members)
		assert.Empty(t, members.Items)
		assert.Equal(t, 0, members.TotalCount)
	}
}

func TestGroupMembershipForms(t *testing.T) {
	h := newHarness(t)
	a := h.mustUser(UserSpec{Username: "a"})
	b := h.mustUser(UserSpec{Username: "b"})
	c := h.mustUser(UserSpec{Username: "c"})
	g := h.mustGroup("G", "", "")
	for _, u := range []string{a, b, c, a} { // a again: already a member
		h.ok("POST", "/v2/usergroups/"+g+"/users", map[string]any{"userId": u}, nil)
	}
	var members page[v2User]
	h.get("/v2/usersgroups/"+g+"/users", &members)
	assert.Equal(t, []string{a, b, c}, ids(members.Items, func(u v2User) string { return u.ID }))

	h.ok("DELETE", "/v2/usergroups/"+g+"/users", map[string]any{"userId": b}, nil)
	h.get("/v2/usersgroups/"+g+"/users", &members)
	assert.Equal(t, []string{a, c}, ids(members.Items, func(u v2User) string { return u.ID }))

	assert.Equal(t, 400, h.do("POST", "/v2/usergroups/"+g+"/users", map[string]any{}).status)
	assert.Equal(t, 404, h.do("POST", "/v2/usergroups/"+g+"/users", map[string]any{"userId": "usr_99"}).status)
	assert.Equal(t, 404, h.do("POST", "/v2/usergroups/grp_99/users", map[string]any{"userId": a}).status)

	var u v2User
	h.get("/v2/users/"+a, &u)
	assert.Equal(t, []string{g}, u.UserGroups)
}

func TestV2UserRecordAndUpdate(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, WithClock(clock.Now))
	g1 := h.mustGroup("One", "", "")
	g2 := h.mustGroup("Two", "", "")

	r := h.do("POST", "/v2/users", map[string]any{
		"name": "jdoe", "email": "j@example.com", "password": "pw", "firstName": "J", "lastName": "Doe",
		"externalId": "E1", "roles": []string{"app-user", "manager-analytics"},
		"userGroups": []string{g1}, "managedUserGroups": []string{g2},
		"customFields": map[string]string{"site": "Sydney"},
	})
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, []string{"id", "name", "email", "firstName", "lastName", "externalId", "timeZone",
		"roles", "userGroups", "userGroupsManaged", "customFields", "lastActiveDate"}, keys(t, r.body))
	var u map[string]any
	r.json(t, &u)
	id := u["id"].(string)
	assert.Equal(t, "usr_1", id)
	assert.Equal(t, "jdoe", u["name"])
	assert.Equal(t, []any{g1}, u["userGroups"])
	assert.Equal(t, []any{g2}, u["userGroupsManaged"])
	assert.Equal(t, map[string]any{"site": "Sydney"}, u["customFields"])
	assert.Nil(t, u["lastActiveDate"])
	assert.NotContains(t, string(r.body), "pw", "the password is never echoed")

	// PUT changes only what is present.
	var got v2User
	h.ok("PUT", "/v2/users/"+id, map[string]string{"timeZone": "Australia/Sydney"}, &got)
	assert.Equal(t, "Australia/Sydney", got.TimeZone)
	assert.Equal(t, "jdoe", got.Name)
	assert.Equal(t, "E1", got.ExternalID)
	assert.Equal(t, []string{"app-user", "manager-analytics"}, got.Roles)
	assert.Equal(t, []string{g1}, got.UserGroups)
	assert.Equal(t, map[string]string{"site": "Sydney"}, got.CustomFields)

	h.ok("PUT", "/v2/users/"+id, map[string]any{"name": "john", "userGroupsManaged": []string{}, "userGroups": []string{g2, g1}}, &got)
	assert.Equal(t, "john", got.Name)
	assert.Empty(t, got.UserGroupsManaged)
	assert.Equal(t, []string{g2, g1}, got.UserGroups)

	// Default roles, unknown role, unknown group, missing username.
	var plain v2User
	h.ok("POST", "/v2/users", map[string]string{"name": "plain"}, &plain)
	assert.Equal(t, []string{"app-user", "prizing-user"}, plain.Roles)
	assert.Equal(t, map[string]string{}, plain.CustomFields)
	r = h.do("POST", "/v2/users", map[string]any{"name": "x", "roles": []string{"admin"}})
	assert.Equal(t, 400, r.status)
	assert.Contains(t, r.message(t), "unknown role")
	assert.Equal(t, 400, h.do("POST", "/v2/users", map[string]any{"name": "x", "userGroups": []string{"grp_9"}}).status)
	assert.Equal(t, 400, h.do("POST", "/v2/users", map[string]any{"email": "x@example.com"}).status)
	assert.Equal(t, 400, h.do("PUT", "/v2/users/"+id, map[string]any{"name": ""}).status)
	assert.Equal(t, 404, h.do("PUT", "/v2/users/usr_99", map[string]any{"name": "z"}).status)

	// Every role of the spec is accepted.
	h.ok("PUT", "/v2/users/"+id, map[string]any{"roles": roles}, &got)
	assert.Equal(t, roles, got.Roles)

	// Delete.
	var ok successBody
	h.ok("DELETE", "/v2/users/"+id, nil, &ok)
	assert.True(t, ok.Success)
	assert.Equal(t, 404, h.do("GET", "/v2/users/"+id, nil).status)
	assert.Equal(t, 404, h.do("DELETE", "/v2/users/"+id, nil).status)
}

func TestExternalIDConflict(t *testing.T) {
	h := newHarness(t)
	h.ok("POST", "/v2/users", map[string]string{"name": "a", "externalId": "X1"}, nil)
	var b v2User
	h.ok("POST", "/v2/users", map[string]string{"name": "b", "externalId": "X2"}, &b)

	r := h.do("POST", "/v2/users", map[string]string{"name": "c", "externalId": "X1"})
	assert.Equal(t, http.StatusConflict, r.status)
	assert.Contains(t, r.message(t), "external id")
	assert.Equal(t, 409, h.do("PUT", "/v2/users/"+b.ID, map[string]string{"externalId": "X1"}).status)
	assert.Equal(t, 409, h.do("POST", "/v1/users", map[string]any{"username": "d", "externalIdentifier": "X1"}).status)
	// Usernames are unique too, without regard to case.
	assert.Equal(t, 409, h.do("POST", "/v2/users", map[string]string{"name": "A"}).status)
	// Setting one's own external id again is fine; so is an empty one.
	h.ok("PUT", "/v2/users/"+b.ID, map[string]string{"externalId": "X2"}, nil)
	h.ok("POST", "/v2/users", map[string]string{"name": "e", "externalId": ""}, nil)
	h.ok("POST", "/v2/users", map[string]string{"name": "f"}, nil)

	_, err := h.AddUser(UserSpec{Username: "g", ExternalID: "X2"})
	assert.ErrorIs(t, err, ErrConflict)
	var p page[v2User]
	h.get("/v2/users?externalId=X2", &p)
	assert.Equal(t, []string{b.ID}, ids(p.Items, func(u v2User) string { return u.ID }))
}

func TestInviteCode(t *testing.T) {
	h := newHarness(t)
	var g v2Group
	h.ok("POST", "/v2/usergroups", map[string]string{"name": "Warehouse", "inviteCode": "JOIN-ME"}, &g)
	assert.Equal(t, v2Group{ID: g.ID, Name: "Warehouse", InviteCode: "JOIN-ME"}, g)
	assert.Equal(t, 409, h.do("POST", "/v2/usergroups", map[string]string{"name": "Other", "inviteCode": "join-me"}).status)
	assert.Equal(t, 400, h.do("POST", "/v2/usergroups", map[string]string{"inviteCode": "X"}).status)

	var u v2User
	h.ok("POST", "/v2/users", map[string]string{"name": "newbie", "inviteCode": "join-me"}, &u)
	assert.Equal(t, []string{g.ID}, u.UserGroups)
	var members page[v2User]
	h.get("/v2/usersgroups/"+g.ID+"/users", &members)
	assert.Equal(t, []string{u.ID}, ids(members.Items, func(u v2User) string { return u.ID }))

	r := h.do("POST", "/v2/users", map[string]string{"name": "lost", "inviteCode": "NOPE"})
	assert.Equal(t, 400, r.status)
	assert.Contains(t, r.message(t), "invite code")

	id := h.mustUser(UserSpec{Username: "seeded", InviteCode: "JOIN-ME"})
	h.get("/v2/users/"+id, &u)
	assert.Equal(t, []string{g.ID}, u.UserGroups)
}

func TestHierarchyAccess(t *testing.T) {
	h := newHarness(t)
	parent := h.mustGroup("Parent", "", "")
	child := h.mustGroup("Child", parent, "")
	grandchild := h.mustGroup("Grandchild", child, "")
	sibling := h.mustGroup("Sibling", parent, "")
	parentCourse, _ := h.mustCourse(CourseSpec{Title: "Parent course", Lessons: lessonSpecs("P1")})
	childCourse, _ := h.mustCourse(CourseSpec{Title: "Child course", Lessons: lessonSpecs("C1")})
	require.NoError(t, h.AssignCourse(parent, parentCourse))
	require.NoError(t, h.AssignCourse(child, childCourse))

	inParent := h.mustUser(UserSpec{Username: "p", Groups: []string{parent}})
	inChild := h.mustUser(UserSpec{Username: "c", Groups: []string{child}})
	inGrandchild := h.mustUser(UserSpec{Username: "g", Groups: []string{grandchild}})
	inSibling := h.mustUser(UserSpec{Username: "s", Groups: []string{sibling}})
	nowhere := h.mustUser(UserSpec{Username: "n"})

	v2Courses := func(uid string) []string {
		var p page[v2UserCourse]
		h.get("/v2/users/"+uid+"/courses", &p)
		assert.Equal(t, len(p.Items), p.TotalCount)
		return ids(p.Items, func(c v2UserCourse) string { return c.ID })
	}
	v1Courses := func(uid string) []string {
		var cs []v1Course
		h.get("/v1/users/"+uid+"/courses", &cs)
		return ids(cs, func(c v1Course) string { return c.ID })
	}
	for _, tc := range []struct {
		name string
		uid  string
		want []string
	}{
		{"parent member gets only the parent's course", inParent, []string{parentCourse}},
		{"child member gets the parent's course too", inChild, []string{parentCourse, childCourse}},
		{"grandchild member gets both", inGrandchild, []string{parentCourse, childCourse}},
		{"sibling gets only the parent's course", inSibling, []string{parentCourse}},
		{"no group, no courses", nowhere, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, v2Courses(tc.uid))
			assert.Equal(t, tc.want, v1Courses(tc.uid))
		})
	}

	// The hasChildren flag follows the hierarchy.
	var groups page[v2Group]
	h.get("/v2/usersgroups", &groups)
	has := map[string]bool{}
	for _, g := range groups.Items {
		has[g.Name] = g.HasChildren
	}
	assert.Equal(t, map[string]bool{"Parent": true, "Child": true, "Grandchild": false, "Sibling": false}, has)

	// Deleting a group moves its children up: the grandchild now hangs off
	// the parent and loses the child's course.
	h.ok("DELETE", "/v1/usergroups/"+child, nil, nil)
	assert.Equal(t, []string{parentCourse}, v2Courses(inGrandchild))
	assert.Equal(t, []string{}, v2Courses(inChild))
	var kids page[v2Group]
	h.get("/v2/usergroups/"+parent+"/children", &kids)
	assert.ElementsMatch(t, []string{grandchild, sibling}, ids(kids.Items, func(g v2Group) string { return g.ID }))

	// Unpublished courses leave the learners' lists.
	h.locked(func(st *store, _ time.Time) error { st.courses.Get(parentCourse).Status = "unpublished"; return nil })
	assert.Equal(t, []string{}, v2Courses(inParent))
	assert.Equal(t, []string{}, v1Courses(inParent))
	var all page[v2Course]
	h.get("/v2/catalog/courses", &all)
	assert.Equal(t, 2, all.TotalCount, "the catalog still lists it")
	assert.Equal(t, "unpublished", all.Items[0].Status)
}

func TestPaging(t *testing.T) {
	h := newHarness(t)
	for i := range 1005 {
		h.mustUser(UserSpec{Username: fmt.Sprintf("u%04d", i)})
	}
	var p page[v2User]
	h.get("/v2/users", &p)
	assert.Equal(t, 1005, p.TotalCount)
	assert.Len(t, p.Items, 25)
	assert.Equal(t, "u0000", p.Items[0].Name)

	h.get("/v2/users?page=3&pageSize=10", &p)
	assert.Equal(t, []string{"usr_21", "usr_22"}, ids(p.Items[:2], func(u v2User) string { return u.ID }))
	assert.Len(t, p.Items, 10)

	h.get("/v2/users?pageSize=5000", &p)
	assert.Len(t, p.Items, 1000, "pageSize is clamped to 1000")
	assert.Equal(t, 1005, p.TotalCount)
	h.get("/v2/users?pageSize=1000&page=2", &p)
	assert.Len(t, p.Items, 5)

	h.get("/v2/users?pageSize=1000&page=3", &p)
	assert.Empty(t, p.Items)
	assert.NotNil(t, p.Items)
	h.get("/v2/users?page=9223372036854775807&pageSize=1000", &p)
	assert.Empty(t, p.Items)
	h.get("/v2/users?page=0&pageSize=0", &p)
	assert.Len(t, p.Items, 25)

	h.get("/v2/users?page=two&pageSize=lots", &p) // not numbers: the defaults
	assert.Equal(t, "usr_1", p.Items[0].ID)
	assert.Len(t, p.Items, 25)

	r := h.do("GET", "/v2/users?page=99999999999999999999999", nil)
	assert.Equal(t, 200, r.status)

	// An empty list is an empty array, never null.
	r = h.do("GET", "/v2/webhooks", nil)
	assert.Equal(t, "[]\n", string(r.body))
	r = h.do("GET", "/v2/analytics/attempts", nil)
	assert.JSONEq(t, `{"totalCount":0,"items":[]}`, string(r.body))
}

func TestBareArrays(t *testing.T) {
	h := newHarness(t)
	course, lessons := h.mustCourse(CourseSpec{Title: "C", ExternalID: "C-1", Lessons: []LessonSpec{
		{Title: "L1", ExternalID: "L-1", MinimumScore: 70, Description: "first"},
		{Title: "L2", Status: "unpublished"},
	}})
	r := h.do("GET", "/v2/catalog/courses/"+course+"/lessons", nil)
	require.Equal(t, 200, r.status)
	require.Equal(t, byte('['), r.body[0], string(r.body))
	var ls []map[string]any
	r.json(t, &ls)
	require.Len(t, ls, 2)
	assert.Equal(t, map[string]any{"id": lessons[0], "externalId": "L-1", "title": "L1", "description": "first",
		"status": "published", "minimumScore": float64(70)}, ls[0])
	assert.Equal(t, "unpublished", ls[1]["status"])

	_, err := h.AddWebhook(WebhookSpec{EventName: edapp.EventLessonCompleted, URL: "http://127.0.0.1:1/hook"})
	require.NoError(t, err)
	r = h.do("GET", "/v2/webhooks", nil)
	require.Equal(t, byte('['), r.body[0], string(r.body))
}

func TestCatalog(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, WithClock(clock.Now))
	col, err := h.AddCollection(CollectionSpec{Title: "Safety", ExternalID: "COL-1", Description: "All about safety"})
	require.NoError(t, err)
	c1, _ := h.mustCourse(CourseSpec{Title: "In collection", ExternalID: "C1", CollectionIDs: []string{col}, Duration: 30,
		Locale: "en-AU", ThumbnailURL: "https://img.example.com/1.png", Description: "d"})
	c2, _ := h.mustCourse(CourseSpec{Title: "At the root"})

	var cols page[v2Collection]
	h.get("/v2/catalog/coursecollections", &cols)
	assert.Equal(t, []v2Collection{{ID: col, ExternalID: "COL-1", Title: "Safety", Description: "All about safety"}}, cols.Items)

	r := h.do("GET", "/v2/catalog/courses", nil)
	var courses page[map[string]any]
	r.json(t, &courses)
	require.Equal(t, 2, courses.TotalCount)
	assert.Equal(t, map[string]any{
		"id": c1, "externalId": "C1", "title": "In collection", "description": "d", "status": "published",
		"locale": "en-AU", "duration": float64(30), "thumbnailUrl": "https://img.example.com/1.png",
		"createdDateTime": "2024-03-07T05:10:36.187Z", "modifiedDateTime": "2024-03-07T05:10:36.187Z",
	}, courses.Items[0])
	assert.NotContains(t, courses.Items[1], "collectionId")
	assert.Equal(t, "en", courses.Items[1]["locale"])

	var inCol page[v2Course]
	h.get("/v2/catalog/coursecollections/"+col+"/courses", &inCol)
	assert.Equal(t, []string{c1}, ids(inCol.Items, func(c v2Course) string { return c.ID }))
	_ = c2

	// Helper errors.
	_, _, err = h.AddCourse(CourseSpec{Title: "dup", ExternalID: "C1"})
	assert.ErrorIs(t, err, ErrConflict)
	_, _, err = h.AddCourse(CourseSpec{Title: "x", CollectionIDs: []string{"col_9"}})
	assert.ErrorIs(t, err, ErrNotFound)
	_, _, err = h.AddCourse(CourseSpec{})
	assert.ErrorIs(t, err, ErrInvalid)
	_, _, err = h.AddCourse(CourseSpec{Title: "twice", Lessons: []LessonSpec{{Title: "a", ExternalID: "L"}, {Title: "b", ExternalID: "L"}}})
	assert.ErrorIs(t, err, ErrConflict)
}

func TestHelperErrors(t *testing.T) {
	h := newHarness(t)
	g := h.mustGroup("G", "", "CODE")
	u := h.mustUser(UserSpec{Username: "u"})
	c, ls := h.mustCourse(CourseSpec{Title: "C", Lessons: lessonSpecs("L")})

	for name, err := range map[string]error{
		"AssignCourse group":  h.AssignCourse("grp_9", c),
		"AssignCourse course": h.AssignCourse(g, "crs_9"),
		"AddGroupMember":      h.AddGroupMember(GroupMemberSpec{GroupID: g, UserID: "usr_9"}),
		"AddAttempt": func() error {
			_, err := h.AddAttempt(AttemptSpec{UserID: u, LessonID: "les_9"})
			return err
		}(),
		"RemoveUserFromGroup": h.RemoveUserFromGroup("grp_9", u),
		"CompleteLesson user": h.CompleteLesson("usr_9", ls[0], 50),
		"CompleteLesson":      h.CompleteLesson(u, "les_9", 50),
		"PublishCourse":       h.PublishCourse("crs_9"),
		"AddInteraction":      h.AddInteraction(Interaction{UserID: u, LessonID: "les_9"}),
		"SendCourseReminder":  h.SendCourseReminder(u, "crs_9", time.Time{}),
		"AddGroup parent":     func() error { _, err := h.AddGroup(GroupSpec{Name: "x", ParentID: "grp_9"}); return err }(),
		"OpenLesson":          func() error { _, err := h.OpenLesson("usr_9", ls[0]); return err }(),
		"AddSurveyAnswer": func() error {
			_, err := h.AddSurveyAnswer(SurveyAnswerSpec{UserID: u, QuestionID: "srq_9", Answer: "x"})
			return err
		}(),
		"AddSurveyQuestion":     func() error { _, _, err := h.AddSurveyQuestion(SurveyQuestionSpec{LessonID: "les_9"}); return err }(),
		"AddUser unknown group": func() error { _, err := h.AddUser(UserSpec{Username: "x", Groups: []string{"grp_9"}}); return err }(),
	} {
		assert.Error(t, err, name)
		if !strings.HasPrefix(name, "AddGroup") && !strings.HasPrefix(name, "AddUser") {
			assert.ErrorIs(t, err, ErrNotFound, name)
		}
	}
	_, err := h.AddGroup(GroupSpec{Name: "dup", InviteCode: "code"})
	assert.ErrorIs(t, err, ErrConflict)
	_, err = h.AddGroup(GroupSpec{Name: " "})
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = h.AddUser(UserSpec{Username: "r", Roles: []string{"boss"}})
	assert.ErrorIs(t, err, ErrInvalid)
	assert.ErrorIs(t, h.CompleteLesson(u, ls[0], 101), ErrInvalid)
	assert.ErrorIs(t, h.AddInteraction(Interaction{UserID: u, LessonID: ls[0], Type: "click"}), ErrInvalid)
	assert.ErrorIs(t, h.Emit("NoSuchEvent", nil), ErrInvalid)
	_, err = h.AddWebhook(WebhookSpec{EventName: "NoSuchEvent", URL: "http://127.0.0.1/"})
	assert.ErrorIs(t, err, ErrInvalid)
	assert.False(t, errors.Is(err, ErrNotFound))

	// Membership helpers work.
	require.NoError(t, h.AddGroupMember(GroupMemberSpec{GroupID: g, UserID: u}))
	require.NoError(t, h.AddGroupMember(GroupMemberSpec{GroupID: g, UserID: u}))
	var got v2User
	h.get("/v2/users/"+u, &got)
	assert.Equal(t, []string{g}, got.UserGroups)
	require.NoError(t, h.RemoveUserFromGroup(g, u))
	h.get("/v2/users/"+u, &got)
	assert.Empty(t, got.UserGroups)
}

func TestFailNext(t *testing.T) {
	h := newHarness(t)
	h.FailNext(2, http.StatusServiceUnavailable, 1500*time.Millisecond)

	// Unauthenticated requests do not use up failures.
	assert.Equal(t, 401, h.raw("GET", "/v2/users", "", nil).status)
	assert.Equal(t, 401, h.raw("GET", "/launch-lesson?token=x&lesson=y", "", nil).status)

	for range 2 {
		r := h.do("GET", "/v2/users", nil)
		assert.Equal(t, http.StatusServiceUnavailable, r.status)
		assert.Equal(t, "2", r.header.Get("Retry-After"))
		assert.Equal(t, "Service Unavailable", r.message(t))
	}
	h.get("/v2/users", nil)

	h.FailNext(1, http.StatusTooManyRequests, 0)
	r := h.do("POST", "/v2/users", map[string]string{"name": "x"})
	assert.Equal(t, 429, r.status)
	assert.Empty(t, r.header.Get("Retry-After"))
	var p page[v2User]
	h.get("/v2/users", &p)
	assert.Equal(t, 0, p.TotalCount, "the failed POST changed nothing")

	h.FailNext(1, 42, time.Second)
	assert.Equal(t, 500, h.do("GET", "/v2/users", nil).status)
	h.FailNext(5, 500, 0)
	h.FailNext(0, 500, 0)
	h.get("/v2/users", nil)
}

func TestLatency(t *testing.T) {
	h := newHarness(t, WithLatency(50*time.Millisecond))
	start := time.Now()
	h.get("/v2/users", nil)
	assert.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)

	h.SetLatency(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", h.URL+"/v2/users", nil)
	req.Header.Set("Authorization", "Bearer "+h.Token)
	start = time.Now()
	_, err := http.DefaultClient.Do(req)
	assert.Error(t, err)
	assert.Less(t, time.Since(start), 10*time.Second)

	h.SetLatency(0)
	start = time.Now()
	h.get("/v2/users", nil)
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestRequestLog(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, WithClock(clock.Now))
	h.ok("POST", "/v2/users?x=1", map[string]string{"name": "logged"}, nil)
	h.raw("GET", "/v2/users", "wrong-token", nil)

	reqs := h.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "POST", reqs[0].Method)
	assert.Equal(t, "/v2/users", reqs[0].Path)
	assert.Equal(t, "x=1", reqs[0].RawQuery)
	assert.JSONEq(t, `{"name":"logged"}`, string(reqs[0].Body))
	assert.Equal(t, "application/json", reqs[0].Header.Get("Content-Type"))
	assert.Equal(t, 200, reqs[0].Status)
	assert.Equal(t, clock.Now(), reqs[0].Time)
	assert.Equal(t, 401, reqs[1].Status)
	for _, r := range reqs {
		assert.Equal(t, []string{"REDACTED"}, r.Header["Authorization"])
		for k, vs := range r.Header {
			for _, v := range vs {
				assert.NotContains(t, v, h.Token, k)
				assert.NotContains(t, v, "wrong-token", k)
			}
		}
	}

	// The copy is the caller's.
	reqs[0].Header.Set("X", "y")
	reqs[0].Body[0] = 'Z'
	again := h.Requests()
	assert.Empty(t, again[0].Header.Get("X"))
	assert.Equal(t, byte('{'), again[0].Body[0])

	h.ResetRequests()
	assert.Empty(t, h.Requests())
}

func TestConcurrentUse(t *testing.T) {
	h := newHarness(t)
	demo, err := seedDemo(h.Server)
	require.NoError(t, err)
	done := make(chan struct{})
	errs := make(chan error, 64)
	for i := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for j := range 10 {
				paths := []string{"/v2/users", "/v2/analytics/courseprogress", "/v1/users/" + demo.UserIDs[1] + "/courses",
					"/v2/analytics/attempts", "/v2/catalog/courses"}
				req, _ := http.NewRequest("GET", h.URL+paths[(i+j)%len(paths)], nil)
				req.Header.Set("Authorization", "Bearer "+h.Token)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err
					return
				}
				res.Body.Close()
				if res.StatusCode != 200 {
					errs <- fmt.Errorf("status %d", res.StatusCode)
				}
				if _, err := h.OpenLesson(demo.UserIDs[i%4], demo.LessonIDs[1][j%2]); err != nil {
					errs <- err
				}
				_ = h.CompleteLesson(demo.UserIDs[i%4], demo.LessonIDs[1][j%2], 75)
				_ = h.Requests()
				_ = h.Deliveries()
			}
		}()
	}
	for range 8 {
		<-done
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestAddKinds: the AddX helpers of the kinds without a record of their
// own (members, children, collection courses, attempts) show through the
// routes.
func TestAddKinds(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, WithClock(clock.Now))
	c, ls := h.mustCourse(CourseSpec{Title: "C", Lessons: lessonSpecs("A", "B")})
	top := h.mustGroup("Top", "", "")
	g, err := h.AddGroup(GroupSpec{Name: "Team", ParentID: top, CourseIDs: []string{c}})
	require.NoError(t, err)
	u := h.mustUser(UserSpec{Username: "u"})
	require.NoError(t, h.AddGroupMember(GroupMemberSpec{GroupID: g, UserID: u}))
	var kids page[v2Group]
	h.get("/v2/usergroups/"+top+"/children", &kids)
	assert.Equal(t, []string{g}, ids(kids.Items, func(g v2Group) string { return g.ID }))
	var mine page[v2UserCourse]
	h.get("/v2/users/"+u+"/courses", &mine)
	assert.Len(t, mine.Items, 1, "GroupSpec.CourseIDs assigns")

	col1, err := h.AddCollection(CollectionSpec{Title: "One"})
	require.NoError(t, err)
	col2, err := h.AddCollection(CollectionSpec{Title: "Two"})
	require.NoError(t, err)
	_, _, err = h.AddCourse(CourseSpec{Title: "In both", CollectionIDs: []string{col1, col2, col2}})
	require.NoError(t, err)
	for _, col := range []string{col1, col2} {
		var in page[v2Course]
		h.get("/v2/catalog/coursecollections/"+col+"/courses", &in)
		assert.Len(t, in.Items, 1, col)
	}

	day := 24 * time.Hour
	start := clock.Now().Add(-3 * day)
	a1, err := h.AddAttempt(AttemptSpec{UserID: u, LessonID: ls[0], Started: start, Completed: start.Add(time.Minute), Score: 80})
	require.NoError(t, err)
	_, err = h.AddAttempt(AttemptSpec{UserID: u, LessonID: ls[1], Started: start.Add(day)})
	require.NoError(t, err)
	_, err = h.AddAttempt(AttemptSpec{UserID: u, LessonID: ls[1], Started: start.Add(day), Completed: start.Add(day - time.Minute)})
	assert.ErrorIs(t, err, ErrInvalid, "completed before it started")
	var attempts page[wireAttempt]
	h.get("/v2/analytics/attempts", &attempts)
	require.Len(t, attempts.Items, 2)
	assert.Equal(t, a1, attempts.Items[0].ID)
	assert.Equal(t, 80, attempts.Items[0].Score)
	assert.True(t, attempts.Items[1].CompletedDateTime.IsZero(), "an open attempt")
	var progress page[wireCourseProgress]
	h.get("/v2/analytics/courseprogress", &progress)
	require.Len(t, progress.Items, 1)
	assert.False(t, progress.Items[0].Completed)
	end := start.Add(2*day + time.Hour)
	_, err = h.AddAttempt(AttemptSpec{UserID: u, LessonID: ls[1], Started: start.Add(2 * day), Completed: end, Score: 90})
	require.NoError(t, err)
	h.get("/v2/analytics/courseprogress", &progress)
	assert.True(t, progress.Items[0].Completed, "the last lesson completes the course")
	assert.Equal(t, end.UTC(), progress.Items[0].CompletedDateTime.Time)
	assert.Empty(t, h.Deliveries())
}
