package v1_test

import (
	"context"
	"errors"
	"testing"

	"github.com/edapp-go/edapp"
)

func TestDotOnlyIDsAreRefusedBeforeSending(t *testing.T) {
	f := newFake(t)
	c := f.client()
	ctx := context.Background()
	for _, id := range []string{".", "..", "..."} {
		errs := map[string]error{}
		errs["Users.Delete"] = c.Users.Delete(ctx, id)
		_, errs["Users.Courses"] = c.Users.Courses(ctx, id)
		_, errs["Users.LaunchLink user"] = c.Users.LaunchLink(ctx, id, "l-1")
		_, errs["Users.LaunchLink lesson"] = c.Users.LaunchLink(ctx, "u-1", id)
		errs["UserGroups.Delete"] = c.UserGroups.Delete(ctx, id)
		_, errs["Reports.UserCourse"] = c.Reports.UserCourse(ctx, id, "c-1")
		for name, err := range errs {
			if !errors.Is(err, edapp.ErrInvalidInput) {
				t.Errorf("%s(%q) = %v, want ErrInvalidInput", name, id, err)
			}
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
