package safetyculture

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// TestSctest429PausesOnlyThatEndpoint spends the courses endpoint's budget
// on sctest from another client, so that the client under test gets the
// fake's 429 with x-ratelimit-reset: the courses endpoint is then paused,
// and the other endpoints, catalogue ones included, are not.
func TestSctest429PausesOnlyThatEndpoint(t *testing.T) {
	t.Parallel()
	fake := sctest.New(t, sctest.WithLimits(sctest.Limits{Catalogue: 1, Other: 800, Window: time.Minute}))
	_, err := fake.AddUser(sctest.UserSpec{Email: "ana@example.com"})
	must(t, err)
	ctx := testCtx(t)
	_, err = clientOf(t, fake).Courses.List(ctx, nil) // another process, the same user
	must(t, err)

	var logs logBuffer
	sc := clientOf(t, fake, edapp.WithLogger(logs.logger()))
	_, err = sc.Courses.List(ctx, nil, edapp.WithMaxThrottle(0))
	var apiErr *edapp.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 {
		t.Fatalf("courses over the fake's limit: %v, want its 429", err)
	}
	if _, err := sc.Courses.List(ctx, nil, edapp.WithMaxThrottle(time.Second)); !errors.Is(err, edapp.ErrRateLimited) {
		t.Errorf("courses during the pause: %v, want ErrRateLimited", err)
	}
	if got := fake.RequestCount("GET /training/courses/v1"); got != 2 {
		t.Errorf("the fake saw %d course requests, want 2: a paused endpoint sends nothing", got)
	}
	if _, err := sc.Collections.List(ctx, nil, edapp.WithMaxThrottle(0)); err != nil {
		t.Errorf("another catalogue endpoint: %v", err)
	}
	if _, err := sc.Feeds.ListUsers(ctx, nil, edapp.WithMaxThrottle(0)); err != nil {
		t.Errorf("a feed: %v", err)
	}
	if log := logs.String(); !strings.Contains(log, "pausing the requests of GET /training/courses/v1 only") {
		t.Errorf("log: %s", log)
	}
}
