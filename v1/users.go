package v1

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/edapp-go/edapp"

	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/edapp-go/edapp/internal/pager"
)

// UsersService covers the v1 user operations: POST /v1/users,
// DELETE /v1/users/{id}, GET /v1/users, GET /v1/users/{id}/courses, and
// GET /v1/users/id/{id}/token and /v1/users/external/{externalId}/token.
type UsersService service

// User is the v1 shape of a user.
//
// Save sends only what is set: an empty string and a nil UserGroups are
// left out of the body, so an update changes only the fields it carries.
// An empty, non-nil UserGroups is sent as []. Inferred: the vendor does not
// document which fields are required, how to clear one, or what an empty
// usergroups does.
type User struct {
	// ID is returned by the service. Sending it makes Save an update
	// instead of an insert.
	ID       string `json:"id,omitempty"`
	Username string `json:"username,omitempty"` // the SDK also decodes userName or name
	Email    string `json:"email,omitempty"`
	// UserGroups holds group ids.
	UserGroups []string `json:"usergroups,omitzero"`
	FirstName  string   `json:"firstName,omitempty"`
	LastName   string   `json:"lastName,omitempty"`
	// ExternalID links the user to a user in an outside system. It is sent
	// as externalIdentifier (the name the v1 create body takes, as far as
	// is known) and decoded from externalIdentifier or externalId.
	ExternalID string          `json:"externalIdentifier,omitempty"`
	Extra      edapp.RawFields `json:"-"`
}

// The other spellings of the username and external id, in order of
// preference, live in the decoder's table, so the record carries only its
// documented fields.
func init() {
	lenient.Alias[User](
		lenient.Spelling{Name: "userName", Field: "Username"},
		lenient.Spelling{Name: "name", Field: "Username"},
		lenient.Spelling{Name: "externalId", Field: "ExternalID"},
	)
}

// Save inserts or updates a user with POST /v1/users. Without an ID it is an
// insert; with an ID it is an update of that user, and the id travels in
// the body. It returns the user as the service answered, with its
// id; when the answer to an update carries no id, the id sent is kept.
// An insert answered without an id is an error.
//
// EdApp API: POST /v1/users
func (s *UsersService) Save(ctx context.Context, user User, reqOpts ...edapp.RequestOption) (*User, error) {
	path := ids.Fill("/v1/users")
	var out User
	if err := (*service)(s).do(ctx, http.MethodPost, path, user, &out, reqOpts...); err != nil {
		return nil, err
	}
	if out.ID == "" {
		if user.ID == "" {
			return nil, fmt.Errorf("edapp/v1: POST %s: the answer carries no id for the inserted user", path.Path)
		}
		if out.isZero() {
			// An empty answer to an update: the user is what was sent.
			out = user
			out.UserGroups = slices.Clone(user.UserGroups)
		}
		out.ID = user.ID
	}
	return &out, nil
}

func (u *User) isZero() bool {
	return u.ID == "" && u.Username == "" && u.Email == "" && u.UserGroups == nil &&
		u.FirstName == "" && u.LastName == "" && u.ExternalID == ""
}

// Delete deletes a user with DELETE /v1/users/{id}. An answer of
// {"success": false} is an *[edapp.APIError] matching [edapp.ErrUnsuccessful];
// {"success": true}, {} and an empty answer are success.
//
// EdApp API: DELETE /v1/users/{userId}
func (s *UsersService) Delete(ctx context.Context, userID string, reqOpts ...edapp.RequestOption) error {
	if err := ids.Require("userID", userID); err != nil {
		return err
	}
	return (*service)(s).deleteOK(ctx, ids.Fill("/v1/users/{userId}", userID), reqOpts)
}

// Courses lists the courses the user may access, with GET
// /v1/users/{id}/courses: each course with its lessons, the unlocked,
// completed and opened flags and their dates, and each lesson's launch
// link. The answer is a bare JSON array.
//
// The launch links in the answer expire 20 minutes after this call, so
// fetch a fresh one when the learner is about to open a lesson; LaunchLink
// does that.
//
// EdApp API: GET /v1/users/{userId}/courses
func (s *UsersService) Courses(ctx context.Context, userID string, reqOpts ...edapp.RequestOption) ([]Course, error) {
	if err := ids.Require("userID", userID); err != nil {
		return nil, err
	}
	var courses []Course
	if err := (*service)(s).do(ctx, http.MethodGet, ids.Fill("/v1/users/{userId}/courses", userID), nil, &courses, reqOpts...); err != nil {
		return nil, err
	}
	return courses, nil
}

// ErrLessonNotFound is wrapped by LaunchLink's error when none of the user's
// courses holds the lesson. It also matches [edapp.ErrNotFound], so
// errors.Is(err, edapp.ErrNotFound) covers an unknown user (a 404 from the
// service) and an unknown lesson alike.
var ErrLessonNotFound error = lessonNotFound{}

type lessonNotFound struct{}

func (lessonNotFound) Error() string        { return "edapp/v1: lesson not found" }
func (lessonNotFound) Is(target error) bool { return target == edapp.ErrNotFound }

// ErrNoLaunchLink is wrapped by LaunchLink's error when the user's courses
// hold the lesson but give it no usable launchURI (none, or one without a
// token or lesson parameter; the vendor does not say when the service
// leaves it out).
var ErrNoLaunchLink = errors.New("edapp/v1: lesson has no usable launch link")

// LaunchLink fetches the user's courses now (GET /v1/users/{id}/courses)
// and returns the launch link of the lesson with id lessonID, from
// whichever course holds it. IssuedAt is the time taken just before the
// request, so ExpiresAt (IssuedAt plus 20 minutes) is never later than the
// token's real death.
//
// The token expires 20 minutes after it is issued, so call LaunchLink
// right before handing the link to the learner, and call it
// again rather than reusing a link; check Expired if a link was kept.
//
// A lesson in none of the courses is an error naming the lesson id that
// wraps [ErrLessonNotFound] (and so matches [edapp.ErrNotFound]). A lesson
// present without a usable launchURI wraps [ErrNoLaunchLink]. Errors never
// contain the launch token; the link's String hides it too, and only its
// URL and Token fields hold it.
//
// EdApp API: GET /v1/users/{userId}/courses
func (s *UsersService) LaunchLink(ctx context.Context, userID, lessonID string, reqOpts ...edapp.RequestOption) (*edapp.LaunchLink, error) {
	if err := ids.Require("userID", userID); err != nil {
		return nil, err
	}
	if err := ids.Require("lessonID", lessonID); err != nil {
		return nil, err
	}
	issuedAt := s.now()
	courses, err := s.Courses(ctx, userID, reqOpts...)
	if err != nil {
		return nil, err
	}
	return launchLinkIn(courses, userID, lessonID, issuedAt)
}

// launchLinkIn finds lessonID's launch link in a user's courses.
func launchLinkIn(courses []Course, userID, lessonID string, issuedAt time.Time) (*edapp.LaunchLink, error) {
	found := false
	var parseErr error
	for i := range courses {
		l, ok := courses[i].Lesson(lessonID)
		if !ok {
			continue
		}
		found = true
		if l.LaunchURI == "" {
			continue
		}
		link, err := edapp.ParseLaunchLink(l.LaunchURI, issuedAt)
		if err != nil {
			parseErr = err
			continue
		}
		return link, nil
	}
	switch {
	case !found:
		return nil, fmt.Errorf("%w: no course of user %q holds lesson %q", ErrLessonNotFound, userID, lessonID)
	case parseErr != nil:
		// parseErr never holds the token; it is not wrapped, since its
		// edapp.ErrInvalidInput would wrongly say nothing was sent.
		return nil, fmt.Errorf("%w: lesson %q (user %q): %v", ErrNoLaunchLink, lessonID, userID, parseErr)
	default:
		return nil, fmt.Errorf("%w: lesson %q (user %q): launchURI is empty", ErrNoLaunchLink, lessonID, userID)
	}
}

// List lists the account's users in their v1 shape: GET /v1/users. The
// answer is taken to be a bare JSON array; the paged envelope is accepted
// too (then only its one answer is read). Inferred: the vendor does not
// document this operation; an outside v1 client calls it.
//
// EdApp API: GET /v1/users
func (s *UsersService) List(ctx context.Context, reqOpts ...edapp.RequestOption) ([]User, error) {
	var l pager.List[User]
	if err := (*service)(s).do(ctx, http.MethodGet, ids.Fill("/v1/users"), nil, &l, reqOpts...); err != nil {
		return nil, err
	}
	return l.Items, nil
}

// Token fetches a user's token by the user's id: GET
// /v1/users/id/{id}/token. See TokenByExternalID.
//
// EdApp API: GET /v1/users/id/{userId}/token
func (s *UsersService) Token(ctx context.Context, userID string, reqOpts ...edapp.RequestOption) (UserToken, error) {
	if err := ids.Require("userID", userID); err != nil {
		return UserToken{}, err
	}
	return s.token(ctx, ids.Fill("/v1/users/id/{userId}/token", userID), reqOpts)
}

// TokenByExternalID fetches a user's token by the user's external id: GET
// /v1/users/external/{externalId}/token.
//
// {"token": "..."} and a bare JSON string are accepted. Inferred: the vendor
// does not document these two operations; an outside v1 client calls
// them. The token is a secret, like a launch
// token: the [UserToken] returned prints as [REDACTED] (call Value for the
// token), and no error shows it. An answer without a token is an
// *[edapp.DecodeError], whose Body is left empty.
//
// EdApp API: GET /v1/users/external/{externalId}/token
func (s *UsersService) TokenByExternalID(ctx context.Context, externalID string, reqOpts ...edapp.RequestOption) (UserToken, error) {
	if err := ids.Require("externalID", externalID); err != nil {
		return UserToken{}, err
	}
	return s.token(ctx, ids.Fill("/v1/users/external/{externalId}/token", externalID), reqOpts)
}

func (s *UsersService) token(ctx context.Context, path ids.Path, reqOpts []edapp.RequestOption) (UserToken, error) {
	var ans tokenAnswer
	err := (*service)(s).do(ctx, http.MethodGet, path, nil, &ans, reqOpts...)
	if de := (*edapp.DecodeError)(nil); errors.As(err, &de) {
		// The excerpt of an answer that did not decode may hold the
		// token in a form redaction does not know: leave it out.
		return UserToken{}, &edapp.DecodeError{StatusCode: de.StatusCode, Method: de.Method, Path: de.Path, Err: de.Err}
	}
	if err != nil {
		return UserToken{}, err
	}
	if ans.value == "" {
		return UserToken{}, &edapp.DecodeError{StatusCode: http.StatusOK, Method: http.MethodGet, Path: path.Path,
			Err: errors.New("the answer holds no token")}
	}
	return UserToken{secret: edapp.NewSecret(ans.value)}, nil
}

// tokenAnswer decodes {"token": "..."} or a bare JSON string.
type tokenAnswer struct{ value string }

func (a *tokenAnswer) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &a.value)
	}
	var o struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	a.value = o.Token
	return nil
}
