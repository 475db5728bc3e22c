package edapptest

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// userPatch is a create or update of a user: nil fields are left alone.
type userPatch struct {
	username, email, firstName, lastName *string
	externalID, timeZone, password       *string
	inviteCode                           *string
	roles, groups, managed               *[]string
	customFields                         *map[string]string
}

// userPatchFromBody reads the v2 user body. The username may come as name,
// username or userName; managed groups as managedUserGroups or
// userGroupsManaged, or only the spelling managed names.
func userPatchFromBody(o obj, managed ManagedGroupsField) (userPatch, error) {
	var p userPatch
	var err error
	set := func(dst **string, keys ...string) {
		if err == nil {
			*dst, err = o.strPtr(keys...)
		}
	}
	setList := func(dst **[]string, keys ...string) {
		if err == nil {
			*dst, err = o.strsPtr(keys...)
		}
	}
	set(&p.username, "username", "name")
	set(&p.email, "email")
	set(&p.firstName, "firstName")
	set(&p.lastName, "lastName")
	set(&p.externalID, "externalId")
	set(&p.timeZone, "timeZone")
	set(&p.password, "password")
	set(&p.inviteCode, "inviteCode")
	setList(&p.roles, "roles")
	setList(&p.groups, "userGroups")
	setList(&p.managed, managedKeys(managed)...)
	if err != nil {
		return p, err
	}
	p.customFields, err = customFieldsPatch(o)
	return p, err
}

// managedKeys are the members that carry the managed groups, as the fake
// is set to read them.
func managedKeys(managed ManagedGroupsField) []string {
	if managed == ManagedGroupsEither {
		return []string{string(ManagedUserGroups), string(UserGroupsManaged)}
	}
	return []string{string(managed)}
}

// customFieldsPatch reads customFields: nil when absent, a pointer to an
// empty map when null or {}.
func customFieldsPatch(o obj) (*map[string]string, error) {
	m, ok, err := o.strMap("customFields")
	if err != nil || !ok {
		return nil, err
	}
	if m == nil {
		m = map[string]string{}
	}
	return &m, nil
}

// applyUser validates p and applies it to u. u is new when it has no id
// yet; it is then stored under a fresh id. Nothing changes on error.
func applyUser(st *store, u *user, p userPatch, now time.Time) error {
	isNew := u.id == ""
	if p.username != nil {
		*p.username = strings.TrimSpace(*p.username)
	}
	invited, err := checkUserPatch(st, u, p, isNew)
	if err != nil {
		return err
	}
	oldName, oldExt := u.username, u.externalID
	p.assignFields(u)
	switch {
	case p.roles != nil:
		u.roles = dedupe(*p.roles)
	case isNew:
		u.roles = slices.Clone(defaultRoles)
	}
	if p.groups != nil {
		u.groups = memberships(u.groups, dedupe(*p.groups), now)
	}
	if invited != nil && !u.inGroup(invited.id) {
		u.groups = append(u.groups, membership{invited.id, now})
	}
	if p.managed != nil {
		u.managed = dedupe(*p.managed)
	}
	if p.customFields != nil {
		u.customFields = maps.Clone(*p.customFields)
	}
	if isNew {
		u.id = st.newID("usr")
		st.users.Add(u.id, u)
	}
	st.indexUser(u, oldName, oldExt)
	return nil
}

// checkUserPatch validates a user write, and returns the group its invite
// code names.
func checkUserPatch(st *store, u *user, p userPatch, isNew bool) (invited *group, err error) {
	switch {
	case p.username != nil && *p.username == "":
		return nil, invalid("username must not be empty")
	case p.username == nil && isNew:
		return nil, invalid("username is required")
	}
	if p.username != nil {
		if o := st.userByUsername(*p.username); o != nil && o != u {
			return nil, conflict("username %q is taken", *p.username)
		}
	}
	if p.externalID != nil && *p.externalID != "" {
		if o := st.userByExternalID(*p.externalID); o != nil && o != u {
			return nil, conflict("external id %q is taken", *p.externalID)
		}
	}
	if p.roles != nil {
		for _, r := range *p.roles {
			if !slices.Contains(roles, r) {
				return nil, invalid("unknown role %q (want one of %s)", r, strings.Join(roles, ", "))
			}
		}
	}
	if err := checkGroupIDs(st, p.groups, p.managed); err != nil {
		return nil, err
	}
	if p.inviteCode != nil && *p.inviteCode != "" {
		if invited = groupByInviteCode(st, *p.inviteCode); invited == nil {
			return nil, invalid("unknown invite code %q", *p.inviteCode)
		}
	}
	return invited, nil
}

func checkGroupIDs(st *store, lists ...*[]string) error {
	for _, list := range lists {
		if list == nil {
			continue
		}
		for _, id := range *list {
			if st.groups.Get(id) == nil {
				return invalid("unknown user group %q", id)
			}
		}
	}
	return nil
}

// assignFields sets the string fields the patch holds.
func (p userPatch) assignFields(u *user) {
	for _, f := range []struct{ dst, v *string }{
		{&u.username, p.username}, {&u.email, p.email}, {&u.firstName, p.firstName},
		{&u.lastName, p.lastName}, {&u.externalID, p.externalID}, {&u.timeZone, p.timeZone},
		{&u.password, p.password},
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
		joined := now
		for _, m := range old {
			if m.groupID == id {
				joined = m.joined
			}
		}
		out = append(out, membership{id, joined})
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
	cf := maps.Clone(u.customFields)
	if cf == nil {
		cf = map[string]string{}
	}
	return v2User{
		ID: u.id, Name: u.username, Email: u.email, FirstName: u.firstName,
		LastName: u.lastName, ExternalID: u.externalID, TimeZone: u.timeZone,
		Roles:             append([]string{}, u.roles...),
		UserGroups:        u.groupIDs(),
		UserGroupsManaged: append([]string{}, u.managed...),
		CustomFields:      cf,
		LastActiveDate:    wt(u.lastActive),
	}
}

func v2CreateUser(c *exchange) {
	o, ok := c.object()
	if !ok {
		return
	}
	p, err := userPatchFromBody(o, c.s.managedField)
	if err != nil {
		c.failErr(err)
		return
	}
	u := &user{}
	if err := applyUser(c.st, u, p, c.now); err != nil {
		c.failErr(err)
		return
	}
	c.json(http.StatusOK, toV2User(u))
}

// v2ListUsers honours userName (username or email, without regard to case)
// and externalId.
func v2ListUsers(c *exchange) {
	name, ext := c.q("username"), c.q("externalid")
	var out []*user
	for _, u := range c.st.users.All() {
		if name != "" && !strings.EqualFold(u.username, name) && !strings.EqualFold(u.email, name) {
			continue
		}
		if ext != "" && u.externalID != ext {
			continue
		}
		out = append(out, u)
	}
	pageMap(c, out, toV2User)
}

func (c *exchange) userParam(i int) *user {
	u := c.st.users.Get(c.params[i])
	if u == nil {
		c.fail(http.StatusNotFound, "user "+quote(c.params[i])+" not found")
	}
	return u
}

func (c *exchange) groupParam(i int) *group {
	g := c.st.groups.Get(c.params[i])
	if g == nil {
		c.fail(http.StatusNotFound, "user group "+quote(c.params[i])+" not found")
	}
	return g
}

func (c *exchange) courseParam(i int) *course {
	cr := c.st.courses.Get(c.params[i])
	if cr == nil {
		c.fail(http.StatusNotFound, "course "+quote(c.params[i])+" not found")
	}
	return cr
}

func quote(s string) string { return `"` + truncate(s, 64) + `"` }

func v2GetUser(c *exchange) {
	if u := c.userParam(0); u != nil {
		c.json(http.StatusOK, toV2User(u))
	}
}

// v2UpdateUser changes only the fields present in the body.
func v2UpdateUser(c *exchange) {
	u := c.userParam(0)
	if u == nil {
		return
	}
	o, ok := c.object()
	if !ok {
		return
	}
	p, err := userPatchFromBody(o, c.s.managedField)
	if err != nil {
		c.failErr(err)
		return
	}
	if err := applyUser(c.st, u, p, c.now); err != nil {
		c.failErr(err)
		return
	}
	c.json(http.StatusOK, toV2User(u))
}

type successBody struct {
	Success bool   `json:"success"`
	Message string `json:"message,omitempty"`
}

func v2DeleteUser(c *exchange) {
	if u := c.userParam(0); u != nil {
		c.st.deleteUser(u.id)
		c.json(http.StatusOK, successBody{Success: true})
	}
}

// v2UserCourses lists the published courses the user can reach.
func v2UserCourses(c *exchange) {
	u := c.userParam(0)
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
	return v2Group{ID: g.id, Name: g.name, InviteCode: g.inviteCode, HasChildren: hasChildren(st, g)}
}

// addGroup validates and stores a new group.
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
	g := &group{id: st.newID("grp"), name: name, parentID: parentID, inviteCode: inviteCode}
	st.groups.Add(g.id, g)
	return g, nil
}

// v2CreateGroup takes {"name", "inviteCode", "parentId"}; parentId is an
// extension of the fake.
func v2CreateGroup(c *exchange) {
	o, ok := c.object()
	if !ok {
		return
	}
	name, _, err := o.str("name")
	if err != nil {
		c.failErr(err)
		return
	}
	code, _, err := o.str("inviteCode")
	if err != nil {
		c.failErr(err)
		return
	}
	parent, _, err := o.str("parentId")
	if err != nil {
		c.failErr(err)
		return
	}
	g, err := addGroup(c.st, name, parent, strings.TrimSpace(code))
	if err != nil {
		c.failErr(err)
		return
	}
	c.json(http.StatusOK, toV2Group(c.st, g))
}

func v2ListGroups(c *exchange) { pageMap(c, c.st.groups.All(), with(c.st, toV2Group)) }

func v2GroupChildren(c *exchange) {
	g := c.groupParam(0)
	if g == nil {
		return
	}
	var kids []*group
	for _, o := range c.st.groups.All() {
		if o.parentID == g.id {
			kids = append(kids, o)
		}
	}
	pageMap(c, kids, with(c.st, toV2Group))
}

func v2GroupUsers(c *exchange) {
	if g := c.groupParam(0); g != nil {
		pageMap(c, c.st.members(g), toV2User)
	}
}

// groupUserIDs reads the users of a membership change: {"userId"},
// {"userIds": [...]} or the userId query parameter.
func (c *exchange) groupUserIDs() ([]string, bool) {
	o, ok := c.object()
	if !ok {
		return nil, false
	}
	var ids []string
	one, _, err := o.str("userId")
	if err != nil {
		c.failErr(err)
		return nil, false
	}
	many, _, err := o.strs("userIds")
	if err != nil {
		c.failErr(err)
		return nil, false
	}
	if one != "" {
		ids = append(ids, one)
	}
	ids = append(ids, many...)
	for _, v := range c.query["userid"] {
		if v != "" {
			ids = append(ids, v)
		}
	}
	if len(ids) == 0 {
		c.fail(http.StatusBadRequest, "userId is required")
		return nil, false
	}
	for _, id := range ids {
		if c.st.users.Get(id) == nil {
			c.fail(http.StatusNotFound, "user "+quote(id)+" not found")
			return nil, false
		}
	}
	return dedupe(ids), true
}

func v2AddGroupUsers(c *exchange) {
	g := c.groupParam(0)
	if g == nil {
		return
	}
	ids, ok := c.groupUserIDs()
	if !ok {
		return
	}
	for _, id := range ids {
		if u := c.st.users.Get(id); !u.inGroup(g.id) {
			u.groups = append(u.groups, membership{g.id, c.now})
		}
	}
	c.json(http.StatusOK, successBody{Success: true})
}

func v2RemoveGroupUsers(c *exchange) {
	g := c.groupParam(0)
	if g == nil {
		return
	}
	ids, ok := c.groupUserIDs()
	if !ok {
		return
	}
	for _, id := range ids {
		u := c.st.users.Get(id)
		u.groups = slices.DeleteFunc(u.groups, func(m membership) bool { return m.groupID == g.id })
	}
	c.json(http.StatusOK, successBody{Success: true})
}
