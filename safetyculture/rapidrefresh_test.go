package safetyculture

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRapidRefreshService(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/rapid-refresh/v1", 200, `{"totalCount":1,"items":[{"id":"r1","title":"Daily quiz"}]}`)
	w.handle("GET /training/rapid-refresh/v1/{id}", 200, `{"id":"r1","title":"Daily quiz"}`)
	c := w.client(t)
	page, err := c.RapidRefresh.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, "r1", page.Items[0].ID)
	all, err := collect(t, c.RapidRefresh.All(ctx, nil))
	require.NoError(t, err)
	assert.Len(t, all, 1)
	r, err := c.RapidRefresh.Get(ctx, "r1")
	require.NoError(t, err)
	assert.Equal(t, "Daily quiz", r.Title)
}
