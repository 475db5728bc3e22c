package safetyculture

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLeaderboardsService(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/individualleaderboards/v1", 200, `{"totalCount":1,"items":[{"id":"b1","name":"March","startDate":"2024-03-01T00:00:00Z","endDate":"2024-03-31T00:00:00Z","learnerAccess":"ALL"}]}`)
	w.handle("GET /training/individualleaderboards/v1/rankings", 200, `{"leaderboardId":"b1","leaderboardName":"March","rankings":[{"rank":1,"participantId":"user_1","participantName":"Mia Chen","totalScore":420,"isNotAttempted":false}]}`)
	c := w.client(t)
	page, err := c.Leaderboards.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, int(page.Items[0].StartDate.Month()))
	all, err := collect(t, c.Leaderboards.All(ctx, nil))
	require.NoError(t, err)
	assert.Len(t, all, 1)
	r, err := c.Leaderboards.Rankings(ctx, "b1")
	require.NoError(t, err)
	assert.Equal(t, 420.0, r.Rankings[0].TotalScore)
	assert.Equal(t, "leaderboardId=b1", w.requests()[2].URL.RawQuery)
}
