package edapp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"strings"

	"github.com/edapp-go/edapp/internal/core"
	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/lenient"
)

// UsersService covers the v2 user operations (/v2/users).
type UsersService service

// Role is a user role. The service knows seven, spelt exactly: two for the
// learner app and five for the admin portal.
type Role string

// The seven user roles.
const (
	// RoleAppUser ("app-user") is a learner app role. Together with
	// RolePrizingUser it makes a fully functional learner.
	RoleAppUser Role = "app-user"
	// RolePrizingUser ("prizing-user") is a learner app role. Together with
	// RoleAppUser it makes a fully functional learner.
	RolePrizingUser Role = "prizing-user"
	// RoleAccountAdmin ("account-admin") is an admin portal role.
	RoleAccountAdmin Role = "account-admin"
	// RoleContentAuthor ("content-author") is an admin portal role.
	RoleContentAuthor Role = "content-author"
	// RoleManagerAnalytics ("manager-analytics") is an admin portal role. A
	// user with it can run basic analytics on the groups listed in the
	// user's ManagedUserGroups, without other admin permissions.
	RoleManagerAnalytics Role = "manager-analytics"
	// RoleExcludeFromAnalytics ("exclude-from-analytics") is an admin portal
	// role.
	RoleExcludeFromAnalytics Role = "exclude-from-analytics"
	// RoleReviewer ("reviewer") is an admin portal role.
	RoleReviewer Role = "reviewer"
)

// Roles returns the seven user roles, learner app roles first. The slice is
// new on every call.
func Roles() []Role {
	return []Role{
		RoleAppUser, RolePrizingUser,
		RoleAccountAdmin, RoleContentAuthor, RoleManagerAnalytics, RoleExcludeFromAnalytics, RoleReviewer,
	}
}

// User is a v2 user. Inferred: the vendor documents only the userGroups and
// managedUserGroups field names; the others follow its SDK (see "What is
// inferred" in the package doc).
//
// The SDK's decoding accepts the username as "name" (what the service sends),
// "userName" or "username", and the managed groups as "managedUserGroups"
// (the documented name) or "userGroupsManaged" (the vendor's help page and
// SDK). Encoding writes "name" and "managedUserGroups".
type User struct {
	ID string `json:"id"`
	// Username is the user's login name; it may hold an email address.
	Username  string `json:"name"`
	Email     string `json:"email"`
	FirstName string `json:"firstName"`
	LastName  string `json:"lastName"`
	// ExternalID links the user to a user in an outside system; it is
	// unique within the account.
	ExternalID string `json:"externalId"`
	// TimeZone is the user's time zone, for example an IANA zone name.
	// Rapid Refresh notifications go out at 9 o'clock in this zone.
	TimeZone string `json:"timeZone"`
	Roles    []Role `json:"roles"`
	// UserGroups holds the ids of the user's groups.
	UserGroups []string `json:"userGroups"`
	// ManagedUserGroups holds the ids of the groups the user manages (see
	// RoleManagerAnalytics).
	ManagedUserGroups []string `json:"managedUserGroups"`
	// CustomFields holds the user's custom fields. Their keys are declared
	// in the admin portal; a custom field can drive a dynamic user group.
	CustomFields   map[string]string `json:"customFields"`
	LastActiveDate Time              `json:"lastActiveDate"`
	Extra          RawFields         `json:"-"`
}

// The other spellings of User's fields live in the decoder's table, so the
// record carries only its documented fields.
func init() {
	lenient.Alias[User](
		lenient.Spelling{Name: "userName", Field: "Username"},
		lenient.Spelling{Name: "username", Field: "Username"},
		lenient.Spelling{Name: "userGroupsManaged", Field: "ManagedUserGroups"},
	)
}

// UserCreateParams is the body of Users.Create. Empty fields are not sent.
// The SDK sends name (the username), password, email, firstName, lastName,
// externalId, timeZone, roles, userGroups, managedUserGroups and
// customFields. Inferred: the vendor documents neither these names (beyond
// userGroups and managedUserGroups) nor which fields are required.
//
// Managed groups go out under the key or keys [WithManagedGroupsField]
// chose: by default both managedUserGroups and userGroupsManaged, in one
// body. The same holds for [UserUpdateParams].
//
// Password prints as [REDACTED] under every fmt verb, log/slog and
// encoding/json; Create sends it in full.
type UserCreateParams struct {
	Username          string            `json:"name,omitempty"`
	Password          string            `json:"password,omitempty"`
	Email             string            `json:"email,omitempty"`
	FirstName         string            `json:"firstName,omitempty"`
	LastName          string            `json:"lastName,omitempty"`
	ExternalID        string            `json:"externalId,omitempty"` // unique within the account
	TimeZone          string            `json:"timeZone,omitempty"`
	Roles             []Role            `json:"roles,omitempty"`
	UserGroups        []string          `json:"userGroups,omitempty"`
	ManagedUserGroups []string          `json:"managedUserGroups,omitempty"`
	CustomFields      map[string]string `json:"customFields,omitempty"`
}

// UserUpdateParams is the body of Users.Update. Only what is set is sent:
// a nil pointer, slice or map is left out, so the service keeps its value;
// an empty non-nil slice or map is sent as [] or {}. Setting only TimeZone
// sends {"timeZone": "..."}: this is how a user gets the time zone that
// Rapid Refresh notifications need. The field names sent
// are those of [UserCreateParams], and ManagedUserGroups goes out under the
// key or keys [WithManagedGroupsField] chose. Password prints as
// [REDACTED], as UserCreateParams' does.
type UserUpdateParams struct {
	Username          *string           `json:"name,omitempty"`
	Password          *string           `json:"password,omitempty"`
	Email             *string           `json:"email,omitempty"`
	FirstName         *string           `json:"firstName,omitempty"`
	LastName          *string           `json:"lastName,omitempty"`
	ExternalID        *string           `json:"externalId,omitempty"`
	TimeZone          *string           `json:"timeZone,omitempty"`
	Roles             []Role            `json:"roles,omitzero"`
	UserGroups        []string          `json:"userGroups,omitzero"`
	ManagedUserGroups []string          `json:"managedUserGroups,omitzero"`
	CustomFields      map[string]string `json:"customFields,omitzero"`
}

// ManagedGroupsField says under which key Users.Create and Update send a
// user's managed groups (see [WithManagedGroupsField]).
type ManagedGroupsField = core.ManagedGroupsField

const (
	// ManagedGroupsBoth sends both keys, with the same groups, in one body:
	// the default.
	ManagedGroupsBoth = core.ManagedGroupsBoth
	// ManagedUserGroups sends "managedUserGroups", the key the vendor
	// documents.
	ManagedUserGroups = core.ManagedUserGroups
	// UserGroupsManaged sends "userGroupsManaged", the key the vendor's own
	// tools send and every answer seen carries.
	UserGroupsManaged = core.UserGroupsManaged
)

// WithManagedGroupsField chooses the key or keys under which Users.Create
// and Users.Update send a user's managed groups. The vendor documents
// managedUserGroups, but its own tools and every answer seen spell it
// userGroupsManaged, and which of them the live service honours on a write
// is not known; a key it ignores would drop manager assignments silently.
// The default, [ManagedGroupsBoth], sends both in one body, so that a
// service honouring either (and ignoring the other, as services ignore an
// unknown member) takes the groups in one request. Choose one key once it
// is known to be the one your account's service honours. A value other
// than the three constants is an error.
func WithManagedGroupsField(f ManagedGroupsField) Option {
	return func(c *core.Config) error {
		switch f {
		case ManagedGroupsBoth, ManagedUserGroups, UserGroupsManaged:
			c.ManagedGroups = f
			return nil
		}
		return fmt.Errorf("%w: WithManagedGroupsField(%d): want ManagedGroupsBoth, ManagedUserGroups or UserGroupsManaged", ErrInvalidInput, f)
	}
}

// managedKeys returns the managed groups to send under each key, as the
// client's WithManagedGroupsField says: nil leaves a key out.
func (c *Client) managedKeys(groups []string) (documented, vendor []string) {
	switch c.managed {
	case ManagedUserGroups:
		return groups, nil
	case UserGroupsManaged:
		return nil, groups
	}
	return groups, groups
}

// The bodies Create and Update send: the params' fields, with the
// password in full, and the managed groups under the keys chosen. The
// field types have the params' fields and tags, but not their methods,
// which redact the password.
type (
	userCreateFields UserCreateParams
	userUpdateFields UserUpdateParams
	userCreateBody   struct {
		userCreateFields
		ManagedUserGroups []string `json:"managedUserGroups,omitempty"`
		UserGroupsManaged []string `json:"userGroupsManaged,omitempty"`
	}
	userUpdateBody struct {
		userUpdateFields
		ManagedUserGroups []string `json:"managedUserGroups,omitzero"`
		UserGroupsManaged []string `json:"userGroupsManaged,omitzero"`
	}
)

// String, GoString and Format print the params with the password
// [REDACTED]; LogValue and MarshalJSON do the same for log/slog and
// encoding/json.
func (p UserCreateParams) String() string { return fmt.Sprintf("%+v", userCreateFields(p.masked())) }

func (p UserCreateParams) GoString() string {
	return "edapp.UserCreateParams" + strings.TrimPrefix(fmt.Sprintf("%#v", userCreateFields(p.masked())), "edapp.userCreateFields")
}

func (p UserCreateParams) Format(f fmt.State, verb rune) { formatMasked(f, verb, p) }

func (p UserCreateParams) LogValue() slog.Value { return slog.AnyValue(userCreateFields(p.masked())) }

func (p UserCreateParams) MarshalJSON() ([]byte, error) {
	return json.Marshal(userCreateFields(p.masked()))
}

func (p UserCreateParams) masked() UserCreateParams {
	if p.Password != "" {
		p.Password = redacted
	}
	return p
}

// String, GoString and Format print the params with the password
// [REDACTED]; LogValue and MarshalJSON do the same for log/slog and
// encoding/json.
func (p UserUpdateParams) String() string { return fmt.Sprintf("%+v", userUpdateFields(p.masked())) }

func (p UserUpdateParams) GoString() string {
	return "edapp.UserUpdateParams" + strings.TrimPrefix(fmt.Sprintf("%#v", userUpdateFields(p.masked())), "edapp.userUpdateFields")
}

func (p UserUpdateParams) Format(f fmt.State, verb rune) { formatMasked(f, verb, p) }

func (p UserUpdateParams) LogValue() slog.Value { return slog.AnyValue(userUpdateFields(p.masked())) }

func (p UserUpdateParams) MarshalJSON() ([]byte, error) {
	return json.Marshal(userUpdateFields(p.masked()))
}

func (p UserUpdateParams) masked() UserUpdateParams {
	if p.Password != nil {
		p.Password = Ptr(redacted)
	}
	return p
}

// formatMasked prints v's String for every verb, and its GoString for %#v.
func formatMasked(f fmt.State, verb rune, v interface {
	fmt.Stringer
	fmt.GoStringer
}) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, v.GoString())
		return
	}
	_, _ = io.WriteString(f, v.String())
}

// UserListOptions filters and pages Users.List and Users.All. Username
// matches the username (User.Username), which may hold an email address,
// and is sent as the spec's userName query parameter; ExternalID matches
// the external id.
type UserListOptions struct {
	ListOptions
	Username   string `url:"userName,omitempty"`
	ExternalID string `url:"externalId,omitempty"`
}

// UserCourse is a course a user has access to, with the user's progress in
// it, as GET /v2/users/{userId}/courses answers. The SDK reads the course
// fields (see [Course]) plus "completed", "opened" and "percentageCompleted",
// and keeps the rest in Course's Extra. Inferred: the vendor does not
// document this answer.
type UserCourse struct {
	Course
	Completed           bool    `json:"completed"`
	Opened              bool    `json:"opened"`
	PercentageCompleted float64 `json:"percentageCompleted"`
}

// Create creates a user in the account: POST /v2/users. It sends exactly
// one request, never retried once it may have reached the service (see
// [RetryPolicy]). The answer is the new user.
//
// EdApp API: POST /v2/users
func (s *UsersService) Create(ctx context.Context, params UserCreateParams, reqOpts ...RequestOption) (*User, error) {
	body := userCreateBody{userCreateFields: userCreateFields(params)}
	body.ManagedUserGroups, body.UserGroupsManaged = s.client.managedKeys(params.ManagedUserGroups)
	u := new(User)
	if err := s.client.doForRecord(ctx, http.MethodPost, ids.Fill("/v2/users"), body, u, reqOpts); err != nil {
		return nil, err
	}
	return u, nil
}

// Get gets a user by id: GET /v2/users/{userId}.
//
// EdApp API: GET /v2/users/{userId}
func (s *UsersService) Get(ctx context.Context, userID string, reqOpts ...RequestOption) (*User, error) {
	if err := ids.Require("userID", userID); err != nil {
		return nil, err
	}
	u := new(User)
	if err := s.client.doForRecord(ctx, http.MethodGet, ids.Fill("/v2/users/{userId}", userID), nil, u, reqOpts); err != nil {
		return nil, err
	}
	return u, nil
}

// Update updates a user by id: PUT /v2/users/{userId}, sending only the
// fields set in params. This is how a user's time zone is set:
//
//	client.Users.Update(ctx, id, edapp.UserUpdateParams{TimeZone: edapp.Ptr("Australia/Sydney")})
//
// It sends exactly one request. The answer is the updated user.
//
// EdApp API: PUT /v2/users/{userId}
func (s *UsersService) Update(ctx context.Context, userID string, params UserUpdateParams, reqOpts ...RequestOption) (*User, error) {
	if err := ids.Require("userID", userID); err != nil {
		return nil, err
	}
	body := userUpdateBody{userUpdateFields: userUpdateFields(params)}
	body.ManagedUserGroups, body.UserGroupsManaged = s.client.managedKeys(params.ManagedUserGroups)
	u := new(User)
	if err := s.client.doForRecord(ctx, http.MethodPut, ids.Fill("/v2/users/{userId}", userID), body, u, reqOpts); err != nil {
		return nil, err
	}
	return u, nil
}

// Delete deletes a user by id: DELETE /v2/users/{userId}. An answer of
// {"success": false} is an error matching [ErrUnsuccessful].
//
// EdApp API: DELETE /v2/users/{userId}
func (s *UsersService) Delete(ctx context.Context, userID string, reqOpts ...RequestOption) error {
	if err := ids.Require("userID", userID); err != nil {
		return err
	}
	return s.client.checked(ctx, http.MethodDelete, ids.Fill("/v2/users/{userId}", userID), nil, reqOpts)
}

// List lists one page of the account's users: GET /v2/users.
//
// EdApp API: GET /v2/users
func (s *UsersService) List(ctx context.Context, opts *UserListOptions, reqOpts ...RequestOption) (*Page[User], error) {
	return listPage[User](ctx, s.client, ids.Fill("/v2/users"), opts, reqOpts...)
}

// All iterates over every user of the account (see List). Like every All
// iterator, range over it with two variables: an error is the second value,
// yielded once before the loop ends, and a one-variable loop drops it.
//
//	for u, err := range client.Users.All(ctx, nil) {
//		if err != nil {
//			return err
//		}
//		...
//	}
//
// EdApp API: GET /v2/users (every page)
func (s *UsersService) All(ctx context.Context, opts *UserListOptions, reqOpts ...RequestOption) iter.Seq2[User, error] {
	return all(ctx, opts, s.List, reqOpts)
}

// Courses lists the courses the user has access to: GET
// /v2/users/{userId}/courses. It accepts the paged envelope or a bare
// array, and reads every page.
//
// EdApp API: GET /v2/users/{userId}/courses
func (s *UsersService) Courses(ctx context.Context, userID string, reqOpts ...RequestOption) ([]UserCourse, error) {
	if err := ids.Require("userID", userID); err != nil {
		return nil, err
	}
	path := ids.Fill("/v2/users/{userId}/courses", userID)
	return listAll[UserCourse](ctx, s.client, path, reqOpts)
}
