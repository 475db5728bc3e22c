package edapp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// assertPage checks a page's items and count, and that it carries the
// Response it came from.
func assertPage[T any](t *testing.T, want, got *Page[T], msgAndArgs ...any) {
	t.Helper()
	if !assert.NotNil(t, got, msgAndArgs...) {
		return
	}
	assert.Equal(t, want.Items, got.Items, msgAndArgs...)
	assert.Equal(t, want.TotalCount, got.TotalCount, msgAndArgs...)
	if assert.NotNil(t, got.Response, msgAndArgs...) {
		assert.Equal(t, got.TotalCount, got.Response.TotalCount, msgAndArgs...)
		assert.Equal(t, 1, got.Response.Attempts, msgAndArgs...)
	}
}
