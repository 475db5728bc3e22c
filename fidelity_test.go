package edapp

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
