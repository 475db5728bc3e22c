package v1_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
)

func TestRequestOptionsReachV1Calls(t *testing.T) {
	f := newFake(t, reply{Status: http.StatusServiceUnavailable, Body: `{}`}, ok(`[]`))
	legacy := f.client()
	ctx := context.Background()

	var r edapp.Response
	courses, err := legacy.Users.Courses(ctx, "u-1", edapp.WithResponseInto(&r),
		edapp.WithRequestRetry(edapp.RetryPolicy{MaxRetries: 1, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
	require.NoError(t, err)
	assert.Empty(t, courses)
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, 2, r.Attempts, "retried once under the call's own policy")

	err = legacy.Users.Delete(ctx, "u-1", edapp.WithHeader("Authorization", "Bearer other"))
	assert.ErrorIs(t, err, edapp.ErrInvalidInput)
	_, err = legacy.Reports.Activities(ctx, edapp.WithResponseInto(&r), edapp.WithMaxThrottle(-1))
	assert.ErrorIs(t, err, edapp.ErrInvalidInput)
	assert.Zero(t, r.Attempts)
	assert.Len(t, f.requests(), 2, "refused calls sent nothing")
}
