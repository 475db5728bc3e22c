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
