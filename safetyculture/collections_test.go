package safetyculture

import (
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCollectionsService(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/collections/v1", 200, `{"totalCount":1,"items":[{"id":"k1","title":"Safety"}]}`)
	w.handle("GET /training/collections/v1/{id}/courses", 200, `{"totalCount":1,"items":[{"id":"c1","title":"Lifting"}]}`)
	c := w.client(t)
	page, err := c.Collections.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, "Safety", page.Items[0].Title)
	assert.Equal(t, 0, page.NextPage)
	all, err := collect(t, c.Collections.All(ctx, nil))
	require.NoError(t, err)
	assert.Len(t, all, 1)
	courses, err := c.Collections.ListCourses(ctx, "k1", &edapp.ListOptions{PageSize: 10})
	require.NoError(t, err)
	assert.Equal(t, "Lifting", courses.Items[0].Title)
	allCourses, err := collect(t, c.Collections.AllCourses(ctx, "k1", nil))
	require.NoError(t, err)
	assert.Len(t, allCourses, 1)
	_, err = collect(t, c.Collections.AllCourses(ctx, "", nil))
	assert.Error(t, err)
}
