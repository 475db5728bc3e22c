package usersync

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/edapp-go/edapp"
)

// Result counts what Apply did, as far as it can know.
type Result struct {
	Created, Updated, Deleted int
	// Unknown is the action whose answer was lost (the connection broke
	// after the request went out) and whose outcome a check could not
	// learn. The service may have carried it out; the next run's plan
	// shows whether it did, and converges either way.
	Unknown *Action
}

// ApplyError is a failed Apply: the action that failed, and the result up
// to it.
type ApplyError struct {
	Action Action
	Result Result
	Err    error
}

func (e *ApplyError) Error() string {
	done := e.Result.Created + e.Result.Updated + e.Result.Deleted
	what := fmt.Sprintf("%s %s: %v", e.Action.Kind, e.Action.ExternalID(), e.Err)
	if e.Result.Unknown != nil {
		return fmt.Sprintf("%s (%d change(s) made; whether the service carried this one out is unknown: the next run's plan shows it)", what, done)
	}
	return fmt.Sprintf("%s (%d change(s) made)", what, done)
}

func (e *ApplyError) Unwrap() error { return e.Err }

// Apply carries out the plan: creates, then updates, then deletes, and
// stops at the first failure with an *[ApplyError]. A plan over its cap on
// deletions is refused (see Check) before any request. onDone, when not
// nil, is called after each action the service carried out, with the
// user's id.
func (p *Plan) Apply(ctx context.Context, c *edapp.Client, onDone func(a Action, userID string)) (Result, error) {
	if err := p.Check(); err != nil {
		return Result{}, err
	}
	if onDone == nil {
		onDone = func(Action, string) {}
	}
	var res Result
	for _, act := range p.Creates {
		id, unknown, err := create(ctx, c, act)
		if id != "" {
			res.Created++
			onDone(act, id)
		}
		if unknown {
			res.Unknown = &act
		}
		if err != nil {
			return res, &ApplyError{Action: act, Result: res, Err: err}
		}
	}
	for _, act := range p.Updates {
		if _, err := c.Users.Update(ctx, act.User.ID, act.updateParams()); err != nil {
			return res, &ApplyError{Action: act, Result: res, Err: err}
		}
		res.Updated++
		onDone(act, act.User.ID)
	}
	for _, act := range p.Deletes {
		if err := c.Users.Delete(ctx, act.User.ID); err != nil {
			return res, &ApplyError{Action: act, Result: res, Err: err}
		}
		res.Deleted++
		onDone(act, act.User.ID)
	}
	return res, nil
}

// create creates the action's user and returns its id when the service
// created it. When the answer was lost, it asks the service (a GET, safe
// to repeat) whether the user now exists; unknown is true when that check
// failed too.
func create(ctx context.Context, c *edapp.Client, act Action) (id string, unknown bool, err error) {
	u, err := c.Users.Create(ctx, act.createParams())
	if err == nil {
		return u.ID, false, nil
	}
	if u != nil && u.ID != "" {
		return u.ID, false, err // created, but a follow-up failed
	}
	if !answerLost(err) {
		return "", false, err
	}
	page, lerr := c.Users.List(ctx, &edapp.UserListOptions{ExternalID: act.Row.ExternalID})
	if lerr != nil {
		return "", true, fmt.Errorf("%w; checking whether the user was created: %w", err, lerr)
	}
	for _, found := range page.Items {
		if idKey(found.ExternalID) == idKey(act.Row.ExternalID) {
			return found.ID, false, fmt.Errorf("%w; the user was created all the same (id %s)", err, found.ID)
		}
	}
	return "", false, fmt.Errorf("%w; the user was not created", err)
}

// answerLost reports whether the service may have acted on a request that
// failed: anything but an error status below 500, a request refused before
// it was sent (a bad value, or the client's own limiter holding it back).
func answerLost(err error) bool {
	var ae *edapp.APIError
	if errors.As(err, &ae) {
		return ae.StatusCode >= http.StatusInternalServerError
	}
	return !errors.Is(err, edapp.ErrInvalidInput) && !errors.Is(err, edapp.ErrRateLimited)
}

func (a Action) createParams() edapp.UserCreateParams {
	return edapp.UserCreateParams{
		ExternalID: a.Row.ExternalID,
		Username:   a.Row.Username,
		Email:      a.Row.Email,
		FirstName:  a.Row.FirstName,
		LastName:   a.Row.LastName,
		TimeZone:   a.Row.TimeZone,
		Roles:      a.roles,
		UserGroups: a.groups,
	}
}

// updateParams sets the fields that change, and leaves the others out.
func (a Action) updateParams() edapp.UserUpdateParams {
	var p edapp.UserUpdateParams
	for _, c := range a.Changes {
		v := edapp.Ptr(c.To)
		switch c.Field {
		case "username":
			p.Username = v
		case "email":
			p.Email = v
		case "firstName":
			p.FirstName = v
		case "lastName":
			p.LastName = v
		case "timeZone":
			p.TimeZone = v
		case "userGroups":
			p.UserGroups = a.groups
		case "roles":
			p.Roles = a.roles
		}
	}
	return p
}
