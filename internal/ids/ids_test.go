package ids

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFillEscapesEachValueAsOneSegment(t *testing.T) {
	for _, tc := range []struct {
		route  string
		values []string
		want   string
	}{
		{"/v2/users", nil, "/v2/users"},
		{"/v2/users/{userId}", []string{"a b/c?d"}, "/v2/users/a%20b%2Fc%3Fd"},
		{"/v1/reports/user/{userId}/course/{courseId}", []string{"u1", "c1"}, "/v1/reports/user/u1/course/c1"},
		{"/v2/users/{userId}", []string{".."}, "/v2/users/%2E%2E"},
		{"/v2/users/{userId}/courses", []string{"{x}"}, "/v2/users/%7Bx%7D/courses"},
		{"/v2/users/{userId}", []string{"a", "extra"}, "/v2/users/a"},
	} {
		p := Fill(tc.route, tc.values...)
		assert.Equal(t, tc.want, p.Path, tc.route)
		assert.Equal(t, tc.route, p.Route)
	}
}
