package edapp_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

// estimatingLimiter lets every call through at once but says a call would
// wait delay, as a full WindowLimiter does.
type estimatingLimiter struct{ delay time.Duration }

func (estimatingLimiter) Wait(context.Context) error { return nil }
func (l estimatingLimiter) Delay(bool) time.Duration { return l.delay }

// TestObserverWaitEventCarriesTheEstimate checks that a limiter wait is
// reported with the limiter's estimate from when it began.
func TestObserverWaitEventCarriesTheEstimate(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	var log eventLog
	c := srv.Client(edapp.WithObserver(log.observer()), edapp.WithLimiter(estimatingLimiter{3*time.Minute + 47*time.Second}))
	_, err := c.Users.List(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, log.waits, 1)
	assert.Equal(t, 3*time.Minute+47*time.Second, log.waits[0].Expected)
}
