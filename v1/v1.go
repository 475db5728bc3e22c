package v1

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/opt"
)

// Client holds the v1 operations. Create it with [New]; like the root client
// it is safe for concurrent use.
type Client struct {
	// Users: POST /v1/users, DELETE /v1/users/{id}, GET /v1/users,
	// GET /v1/users/{id}/courses and fresh launch links from the latter,
	// and a user's token.
	Users *UsersService
	// UserGroups: POST /v1/usergroups, DELETE /v1/usergroups/{id} and
	// GET /v1/usergroups.
	UserGroups *UserGroupsService
	// Reports: GET /v1/reports/user/{id}/course/{id} and
	// GET /v1/reports/activities.
	Reports *ReportsService

	common service
}

// service is what every v1 service holds.
type service struct {
	client *edapp.Client
	now    func() time.Time
}

// Option configures a [Client] in [New]. An Option given a bad value makes
// New fail with an error wrapping [edapp.ErrInvalidInput]; a nil Option is
// skipped.
type Option func(*service) error

// WithClock makes the v1 client read the time from now instead of
// time.Now. The time is used for the IssuedAt of launch links, so a test
// that drives a fake service on a fake clock can give the same clock here.
// A nil now is an error.
func WithClock(now func() time.Time) Option {
	return func(s *service) error {
		if now == nil {
			return fmt.Errorf("%w: v1.WithClock needs a clock, got nil", edapp.ErrInvalidInput)
		}
		s.now = now
		return nil
	}
}

// New returns the v1 operations on top of client: every request goes
// through client.Do and so shares its base URL, token, rate limit, retries
// and error types. A nil client or an option's bad value is an error
// wrapping [edapp.ErrInvalidInput]: the first one found.
func New(client *edapp.Client, opts ...Option) (*Client, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: v1.New needs an *edapp.Client, got nil", edapp.ErrInvalidInput)
	}
	c := &Client{common: service{client: client, now: time.Now}}
	if err := opt.Apply(&c.common, opts); err != nil {
		return nil, err
	}
	c.Users = (*UsersService)(&c.common)
	c.UserGroups = (*UserGroupsService)(&c.common)
	c.Reports = (*ReportsService)(&c.common)
	return c, nil
}

var errNoClient = fmt.Errorf("%w: a v1.Client not made by v1.New", edapp.ErrInvalidInput)

// do sends one request through the root client, naming its route for the
// client's Observer.
func (s *service) do(ctx context.Context, method string, p ids.Path, body, out any, reqOpts ...edapp.RequestOption) error {
	if s == nil || s.client == nil {
		return errNoClient
	}
	return s.client.Do(ctx, method, p.Path, nil, body, out, withRoute(p, reqOpts)...)
}

// withRoute returns reqOpts with the route of p last, where the caller's own
// options cannot change it.
func withRoute(p ids.Path, reqOpts []edapp.RequestOption) []edapp.RequestOption {
	return append(slices.Clip(reqOpts), edapp.WithRoute(p.Route))
}

// deleteOK sends a DELETE. Its answer is judged by edapp.Client.DoChecked,
// the one rule for v2 and v1: only {"success": false} is a failure, an
// *edapp.APIError that matches edapp.ErrUnsuccessful.
func (s *service) deleteOK(ctx context.Context, p ids.Path, reqOpts []edapp.RequestOption) error {
	if s == nil || s.client == nil {
		return errNoClient
	}
	return s.client.DoChecked(ctx, http.MethodDelete, p.Path, nil, nil, withRoute(p, reqOpts)...)
}
