package safetyculture

import (
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPathsService(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/paths/v1", 200, `{"totalCount":1,"items":[{"id":"p1","title":"Onboarding","isPublished":true}]}`)
	w.handle("GET /training/paths/v1/{id}", 200, `{"path":{"id":"p1","title":"Onboarding","courses":["c1"]}}`)
	c := w.client(t)
	page, err := c.Paths.List(ctx, &edapp.ListOptions{Page: 1})
	require.NoError(t, err)
	assert.True(t, page.Items[0].IsPublished)
	all, err := collect(t, c.Paths.All(ctx, nil))
	require.NoError(t, err)
	assert.Len(t, all, 1)
	p, err := c.Paths.Get(ctx, "p1")
	require.NoError(t, err)
	assert.JSONEq(t, `["c1"]`, string(p.Extra["courses"]))
}
