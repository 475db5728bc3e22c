package edapptest

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

// userPatch is a user write as the bodies of POST /v2/users and PUT
// /v2/users/{id} carry it: nil fields are left alone.
type userPatch struct {
	Name              *string            `json:"name"`
	Email             *string            `json:"email"`
	FirstName         *string            `json:"firstName"`
	LastName          *string            `json:"lastName"`
	ExternalID        *string            `json:"externalId"`
	TimeZone          *string            `json:"timeZone"`
	InviteCode        *string            `json:"inviteCode"`
	Roles             *[]string          `json:"roles"`
	Groups            *[]string          `json:"userGroups"`
	ManagedUserGroups *[]string          `json:"managedUserGroups"`
	UserGroupsManaged *[]string          `json:"userGroupsManaged"`
	CustomFields      *map[string]string `json:"customFields"`
}

// resolve reads the managed groups from either spelling the SDK sends,
// managedUserGroups first.
func (p userPatch) resolve() userPatch {
	if p.ManagedUserGroups == nil {
		p.ManagedUserGroups = p.UserGroupsManaged
	}
	return p
}

func applyUser(st *store, u *user, p userPatch, now time.Time) error {
	isNew := u.ID == ""
	if p.Name != nil {
		*p.Name = strings.TrimSpace(*p.Name)
	}
	invited, err := checkUserPatch(st, u, p, isNew)
	if err != nil {
		return err
	}
	oldName, oldExt := u.Name, u.ExternalID
	p.assignFields(u)
	switch {
	case p.Roles != nil:
		u.Roles = dedupe(*p.Roles)
	case isNew:
		u.Roles = slices.Clone(defaultRoles)
	}
	if p.Groups != nil {
		u.groups = memberships(u.groups, dedupe(*p.Groups), now)
	}
	if invited != nil && !u.inGroup(invited.ID) {
		u.groups = append(u.groups, membership{invited.ID, now})
	}
	if p.ManagedUserGroups != nil {
		u.UserGroupsManaged = dedupe(*p.ManagedUserGroups)
	}
	if p.CustomFields != nil {
		u.CustomFields = maps.Clone(*p.CustomFields)
	}
	if isNew {
		u.ID = st.newID("usr")
		st.users.Add(u.ID, u)
	}
	st.indexUser(u, oldName, oldExt)
	return nil
}

// checkUserPatch validates a user write, and returns the group its invite
// code names.
func checkUserPatch(st *store, u *user, p userPatch, isNew bool) (invited *group, err error) {
	name, ext, code := deref(p.Name), deref(p.ExternalID), deref(p.InviteCode)
	taken := func(o *user) bool { return o != nil && o != u }
	switch {
	case p.Name != nil && name == "":
		return nil, invalid("username must not be empty")
	case p.Name == nil && isNew:
		return nil, invalid("username is required")
	case p.Name != nil && taken(st.userByUsername(name)):
		return nil, conflict("username %q is taken", name)
	case ext != "" && taken(st.userByExternalID(ext)):
		return nil, conflict("external id %q is taken", ext)
	}
	for _, r := range deref(p.Roles) {
		if !slices.Contains(roles, r) {
			return nil, invalid("unknown role %q (want one of %s)", r, strings.Join(roles, ", "))
		}
	}
	for _, id := range append(deref(p.Groups), deref(p.ManagedUserGroups)...) {
		if st.groups.Get(id) == nil {
			return nil, invalid("unknown user group %q", id)
		}
	}
	if invited = groupByInviteCode(st, code); code != "" && invited == nil {
		return nil, invalid("unknown invite code %q", code)
	}
	return invited, nil
}

func (p userPatch) assignFields(u *user) {
	for _, f := range []struct{ dst, v *string }{
		{&u.Name, p.Name}, {&u.Email, p.Email}, {&u.FirstName, p.FirstName},
		{&u.LastName, p.LastName}, {&u.ExternalID, p.ExternalID}, {&u.TimeZone, p.TimeZone},
	} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
}

// memberships makes ids the user's groups, keeping the join time of the
// groups the user stays in.
func memberships(old []membership, ids []string, now time.Time) []membership {
	var out []membership
	for _, id := range ids {
		i := slices.IndexFunc(old, func(m membership) bool { return m.groupID == id })
		out = append(out, membership{id, now})
		if i >= 0 {
			out[len(out)-1].joined = old[i].joined
		}
	}
	return out
}

func dedupe(in []string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func toV2User(u *user) v2User {
	v := u.v2User
	v.Roles, v.UserGroups = append([]string{}, u.Roles...), u.groupIDs()
	v.UserGroupsManaged = append([]string{}, u.UserGroupsManaged...)
	if v.CustomFields = maps.Clone(u.CustomFields); v.CustomFields == nil {
		v.CustomFields = map[string]string{}
	}
	return v
}

var v2CreateUser = withBody(func(c *exchange, p userPatch) (any, error) {
	u := &user{}
	err := applyUser(c.st, u, p.resolve(), c.now)
	return toV2User(u), err
})

func v2ListUsers(c *exchange) {
	ext := c.q("externalId")
	pageMap(c, c.st.users.Filter(func(u *user) bool { return ext == "" || u.ExternalID == ext }), toV2User)
}

func (c *exchange) userParam() *user                { return param(c, "id", &c.st.users, "user") }
func (c *exchange) groupParam() *group              { return param(c, "id", &c.st.groups, "user group") }
func (c *exchange) courseParam(name string) *course { return param(c, name, &c.st.courses, "course") }

// param finds the record the path's wildcard name holds, or answers 404.
func param[T any](c *exchange, name string, t *fakeserver.Table[T], what string) *T {
	v := t.Get(c.r.PathValue(name))
	if v == nil {
		c.fail(http.StatusNotFound, what+" "+quote(c.r.PathValue(name))+" not found")
	}
	return v
}

// quote quotes a value for an error message, cut short when long.
func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return `"` + s + `"`
}

func v2GetUser(c *exchange) {
	if u := c.userParam(); u != nil {
		c.json(http.StatusOK, toV2User(u))
	}
}

// v2UpdateUser changes only the fields present in the body.
func v2UpdateUser(c *exchange) {
	u := c.userParam()
	if u == nil {
		return
	}
	var p userPatch
	if c.decode(&p) {
		err := applyUser(c.st, u, p.resolve(), c.now)
		c.reply(toV2User(u), err)
	}
}

type successBody struct {
	Success bool   `json:"success"`
	Message string `json:"message,omitempty"`
}

func v2DeleteUser(c *exchange) {
	if u := c.userParam(); u != nil {
		c.st.deleteUser(u.ID)
		c.json(http.StatusOK, successBody{Success: true})
	}
}

func v2UserCourses(c *exchange) {
	u := c.userParam()
	if u == nil {
		return
	}
	out := []v2UserCourse{}
	for _, cr := range c.st.courses.All() {
		if !cr.published() {
			continue
		}
		cs := c.st.courseState(u, cr)
		if !cs.unlocked {
			continue
		}
		out = append(out, v2UserCourse{
			v2Course:            toV2Course(cr),
			Completed:           cs.completed,
			Opened:              !cs.openedAt.IsZero(),
			PercentageCompleted: cs.percentage,
		})
	}
	pageOf(c, out)
}

func toV2Group(st *store, g *group) v2Group {
	v := g.v2Group
	v.HasChildren = len(children(st, g)) > 0
	return v
}

func addGroup(st *store, name, parentID, inviteCode string) (*group, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, invalid("name is required")
	}
	if parentID != "" && st.groups.Get(parentID) == nil {
		return nil, invalid("unknown parent user group %q", parentID)
	}
	if inviteCode != "" && groupByInviteCode(st, inviteCode) != nil {
		return nil, conflict("invite code %q is taken", inviteCode)
	}
	g := &group{v2Group: v2Group{ID: st.newID("grp"), Name: name, InviteCode: inviteCode}, parentID: parentID}
	st.groups.Add(g.ID, g)
	return g, nil
}

// v2CreateGroup takes {"name", "inviteCode"}.
var v2CreateGroup = withBody(func(c *exchange, in struct{ Name, InviteCode string }) (any, error) {
	g, err := addGroup(c.st, in.Name, "", strings.TrimSpace(in.InviteCode))
	if err != nil {
		return nil, err
	}
	return toV2Group(c.st, g), nil
})

func v2ListGroups(c *exchange) {
	pageMap(c, c.st.groups.All(), func(g *group) v2Group { return toV2Group(c.st, g) })
}

func v2GroupChildren(c *exchange) {
	g := c.groupParam()
	if g == nil {
		return
	}
	pageMap(c, children(c.st, g), func(g *group) v2Group { return toV2Group(c.st, g) })
}

func v2GroupUsers(c *exchange) {
	if g := c.groupParam(); g != nil {
		pageMap(c, c.st.members(g), toV2User)
	}
}

// groupUser reads the user of a membership change, {"userId"}.
func (c *exchange) groupUser() *user {
	var in struct{ UserID string }
	if !c.decode(&in) {
		return nil
	}
	if in.UserID == "" {
		c.fail(http.StatusBadRequest, "userId is required")
		return nil
	}
	u := c.st.users.Get(in.UserID)
	if u == nil {
		c.fail(http.StatusNotFound, "user "+quote(in.UserID)+" not found")
	}
	return u
}

func v2AddGroupUsers(c *exchange) {
	g := c.groupParam()
	if g == nil {
		return
	}
	if u := c.groupUser(); u != nil {
		if !u.inGroup(g.ID) {
			u.groups = append(u.groups, membership{g.ID, c.now})
		}
		c.json(http.StatusOK, successBody{Success: true})
	}
}

func v2RemoveGroupUsers(c *exchange) {
	g := c.groupParam()
	if g == nil {
		return
	}
	if u := c.groupUser(); u != nil {
		u.groups = slices.DeleteFunc(u.groups, func(m membership) bool { return m.groupID == g.ID })
		c.json(http.StatusOK, successBody{Success: true})
	}
}
