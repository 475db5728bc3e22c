package v1_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
	v1 "github.com/edapp-go/edapp/v1"
)

func TestRequestOptionsReachV1Calls(t *testing.T) {
	t.Parallel()
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

// v1.New reports the first bad value as an error wrapping
// edapp.ErrInvalidInput, as every constructor of the SDK does.
func TestNewOptions(t *testing.T) {
	t.Parallel()
	client, err := edapp.NewClient("t")
	require.NoError(t, err)
	clock := func() time.Time { return time.Time{} }
	for _, tc := range []struct {
		name   string
		client *edapp.Client
		opts   []v1.Option
		ok     bool
	}{
		{"no options", client, nil, true},
		{"a clock", client, []v1.Option{v1.WithClock(clock)}, true},
		{"a nil option is skipped, as by edapp.NewClient", client, []v1.Option{nil}, true},
		{"nil client", nil, nil, false},
		{"nil clock", client, []v1.Option{v1.WithClock(nil)}, false},
		{"the first bad value", client, []v1.Option{v1.WithClock(nil), v1.WithClock(clock)}, false},
	} {
		c, err := v1.New(tc.client, tc.opts...)
		if tc.ok {
			assert.NoError(t, err, tc.name)
			assert.NotNil(t, c, tc.name)
			continue
		}
		assert.ErrorIs(t, err, edapp.ErrInvalidInput, tc.name)
		assert.Nil(t, c, tc.name)
	}
}
