package edapp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDefaultRateLimitConformance drives the default limiter with its own
// reservation API on a simulated clock: a client that sends as fast as the
// limiter allows for two hours. No 5-minute window may hold more than the
// service's 1400 requests, and every window in steady state must use at
// least 95% of them.
func TestDefaultRateLimitConformance(t *testing.T) {
	c, err := NewClient("t")
	require.NoError(t, err)
	lim := c.limiter
	require.NotNil(t, lim)
	assert.Equal(t, DefaultRateLimit, lim.Limit())
	assert.Equal(t, DefaultRateBurst, lim.Burst())

	const window = 5 * time.Minute
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	var sent []time.Time
	for now.Sub(start) < 2*time.Hour {
		r := lim.ReserveN(now, 1)
		require.True(t, r.OK())
		now = now.Add(r.DelayFrom(now))
		sent = append(sent, now)
	}

	// Sliding windows [sent[i], sent[i]+5m], closed at both ends: the
	// strictest reading of "per 5 minutes".
	maxIn, minIn := 0, len(sent)
	j := 0
	for i := range sent {
		for j < len(sent) && !sent[j].After(sent[i].Add(window)) {
			j++
		}
		n := j - i
		maxIn = max(maxIn, n)
		if sent[i].Add(window).Before(sent[len(sent)-1]) {
			minIn = min(minIn, n)
		}
	}
	t.Logf("requests: %d in 2h; per 5-minute window: max %d, min %d (%.1f%% of 1400)", len(sent), maxIn, minIn, float64(minIn)/14)
	assert.LessOrEqual(t, maxIn, 1400, "a 5-minute window exceeds the service's limit")
	assert.GreaterOrEqual(t, float64(minIn), 0.95*1400, "sustained load uses under 95% of the budget")
}
