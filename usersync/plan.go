// Package usersync makes an account's users match a list of desired users,
// matched by external id: the engine behind `edapp users sync`, for tools
// that want the same plan and the same guards.
//
//	rows, err := usersync.ReadCSV(f)            // or build []usersync.Row yourself
//	acct, err := usersync.Load(ctx, client)     // the account's users and groups
//	plan, err := usersync.NewPlan(rows, acct, usersync.Options{DeleteMissing: true, MaxDeletes: usersync.DefaultMaxDeletes(acct)})
//	res, err := plan.Apply(ctx, client, nil)    // or print plan.Creates, Updates, Deletes first
//
// External ids are compared, on both sides, without surrounding space and
// ignoring case (Unicode simple case folding; no Unicode normalisation):
// "emp-001 " in the service is the user of the row "EMP-001".
//
// An input that cannot be right is refused whole, before any change, with
// an *[InputError] listing every problem: no rows at all, a cell that is
// not valid UTF-8, a missing or duplicate external id, an external id with
// control characters or look-alike letters, an unknown role or group, a new
// user without a username, two users of the account whose external ids
// differ only in case or surrounding space. Users without an external id are never touched. Deletions are
// capped ([Options.MaxDeletes]): a plan over the cap is refused with a
// *[TooManyDeletesError] before the first request that changes anything.
package usersync

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/edapp-go/edapp"
)

// Kind is what an [Action] does to a user.
type Kind string

const (
	Create Kind = "create"
	Update Kind = "update"
	Delete Kind = "delete"
)

// Change is one field of a user that an [Action] sets. From is empty for a
// create. Lists (userGroups, roles) read as sorted names joined by ";".
type Change struct {
	Field    string
	From, To string
}

// Action is one step of a [Plan].
type Action struct {
	Kind    Kind
	Row     Row        // the desired user (create, update)
	User    edapp.User // the current user (update, delete)
	Changes []Change   // create, update

	groups []string     // resolved group ids; nil: not given
	roles  []edapp.Role // nil: not given
}

// ExternalID is the external id of the user the action is about.
func (a Action) ExternalID() string {
	if a.Kind == Delete {
		return a.User.ExternalID
	}
	return a.Row.ExternalID
}

// Account is the state a plan is made against.
type Account struct {
	Users  []edapp.User
	Groups []edapp.UserGroup
}

// Load lists the account's users and groups through the bulk lane.
func Load(ctx context.Context, c *edapp.Client) (Account, error) {
	var acct Account
	for g, err := range c.UserGroups.All(ctx, nil, edapp.WithBulk()) {
		if err != nil {
			return Account{}, fmt.Errorf("listing groups: %w", err)
		}
		acct.Groups = append(acct.Groups, g)
	}
	for u, err := range c.Users.All(ctx, nil, edapp.WithBulk()) {
		if err != nil {
			return Account{}, fmt.Errorf("listing users: %w", err)
		}
		acct.Users = append(acct.Users, u)
	}
	return acct, nil
}

// DefaultMaxDeletes is the cap on deletions `edapp users sync` applies
// unless told otherwise, for [Options.MaxDeletes]: 10% of acct's managed
// users (those with an external id), and at least 1.
func DefaultMaxDeletes(acct Account) int {
	managed := 0
	for _, u := range acct.Users {
		if idKey(u.ExternalID) != "" {
			managed++
		}
	}
	return max(1, managed/10)
}

// Options shape a plan.
type Options struct {
	// DeleteMissing deletes the managed users (those with an external id)
	// that the rows do not list. Users without an external id are never
	// deleted.
	DeleteMissing bool
	// MaxDeletes is the most deletions a plan may hold; a plan with more is
	// refused by Check and Apply. It means what it says: the zero value
	// allows none, so deleting is always asked for on purpose, with a
	// number ([DefaultMaxDeletes] gives the command's 10%). There is no
	// unlimited value, and a negative one is an error.
	MaxDeletes int
}

// Plan is what a sync would change. Build it with [NewPlan].
type Plan struct {
	Creates, Updates, Deletes []Action
	Unchanged                 int
	Managed                   int // the account's users with an external id

	maxDeletes int
}

// MaxDeletes is the cap on deletions that applies to the plan.
func (p *Plan) MaxDeletes() int { return p.maxDeletes }

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool { return len(p.Creates)+len(p.Updates)+len(p.Deletes) == 0 }

// TooManyDeletesError is a plan whose deletions are over the cap. Nothing
// was changed.
type TooManyDeletesError struct {
	Deletes, Managed, Max int
}

func (e *TooManyDeletesError) Error() string {
	return fmt.Sprintf("the plan deletes %d of %d managed users, more than the limit of %d", e.Deletes, e.Managed, e.Max)
}

// Check refuses a plan whose deletions are over its cap, and a plan that
// deletes a user and creates one whose external ids differ only in case or
// surrounding space (an *[InputError] naming both): that would replace a
// person, and lose their history, over a spelling.
func (p *Plan) Check() error {
	if len(p.Deletes) > p.maxDeletes {
		return &TooManyDeletesError{Deletes: len(p.Deletes), Managed: p.Managed, Max: p.maxDeletes}
	}
	deleted := map[string]Action{}
	for _, d := range p.Deletes {
		deleted[idKey(d.User.ExternalID)] = d
	}
	var bad InputError
	for _, c := range p.Creates {
		if d, ok := deleted[idKey(c.Row.ExternalID)]; ok {
			bad.add(c.Row.Line, "the plan deletes %q (id %s) and creates %q: they differ only in case or surrounding space", d.User.ExternalID, d.User.ID, c.Row.ExternalID)
		}
	}
	return bad.err()
}

// NewPlan compares the desired rows with the account. An input that cannot
// be right is an *[InputError] listing every problem. A plan over the cap on
// deletions is returned, for showing, together with a
// *[TooManyDeletesError]; Apply refuses it too.
func NewPlan(rows []Row, acct Account, opts Options) (*Plan, error) {
	if opts.MaxDeletes < 0 {
		return nil, fmt.Errorf("usersync: %w: MaxDeletes %d: want 0 or more", edapp.ErrInvalidInput, opts.MaxDeletes)
	}
	var bad InputError
	checkRows(rows, &bad)
	groups := newGroupIndex(acct.Groups)
	byExt := managedUsers(acct.Users, &bad)
	p := &Plan{Managed: len(byExt), maxDeletes: opts.MaxDeletes}
	for _, row := range rows {
		p.add(row, byExt, groups, &bad)
	}
	if err := bad.err(); err != nil {
		return nil, err
	}
	if opts.DeleteMissing {
		for _, u := range byExt {
			p.Deletes = append(p.Deletes, Action{Kind: Delete, User: u})
		}
		sort.Slice(p.Deletes, func(i, j int) bool { return p.Deletes[i].User.ExternalID < p.Deletes[j].User.ExternalID })
	}
	return p, p.Check()
}

// managedUsers indexes the users with an external id by its key (see
// idKey). Two users whose ids have the same key are a problem: no row could
// tell them apart.
func managedUsers(users []edapp.User, bad *InputError) map[string]edapp.User {
	byExt := map[string]edapp.User{}
	for _, u := range users {
		k := idKey(u.ExternalID)
		if k == "" {
			continue
		}
		if prev, dup := byExt[k]; dup {
			bad.add(0, "the account has two users whose external ids differ only in case or surrounding space: %q (id %s) and %q (id %s); make them distinct in the service first",
				prev.ExternalID, prev.ID, u.ExternalID, u.ID)
			continue
		}
		byExt[k] = u
	}
	return byExt
}

// add plans one row, and takes its user out of byExt (what is left there
// is missing from the rows).
func (p *Plan) add(row Row, byExt map[string]edapp.User, groups groupIndex, bad *InputError) {
	act := Action{Row: row}
	for _, ref := range row.UserGroups {
		id, err := groups.resolve(ref)
		if err != nil {
			bad.add(row.Line, "%v", err)
		} else if !slices.Contains(act.groups, id) {
			act.groups = append(act.groups, id)
		}
	}
	for _, n := range row.Roles {
		if r := edapp.Role(strings.ToLower(n)); !slices.Contains(act.roles, r) {
			act.roles = append(act.roles, r)
		}
	}
	u, exists := byExt[idKey(row.ExternalID)]
	if !exists {
		if row.Username == "" && row.ExternalID != "" {
			bad.add(row.Line, "new user %q needs a username", row.ExternalID)
		}
		act.Kind, act.Changes = Create, act.changes(edapp.User{}, groups)
		p.Creates = append(p.Creates, act)
		return
	}
	delete(byExt, idKey(row.ExternalID))
	act.Kind, act.User = Update, u
	if act.Changes = act.changes(u, groups); len(act.Changes) > 0 {
		p.Updates = append(p.Updates, act)
	} else {
		p.Unchanged++
	}
}

// changes lists the fields the row sets that differ from u's (for a create,
// u is empty and every field given is listed).
func (a Action) changes(u edapp.User, groups groupIndex) []Change {
	var out []Change
	for _, f := range []struct{ name, want, have string }{
		{"username", a.Row.Username, u.Username},
		{"email", a.Row.Email, u.Email},
		{"firstName", a.Row.FirstName, u.FirstName},
		{"lastName", a.Row.LastName, u.LastName},
		{"timeZone", a.Row.TimeZone, u.TimeZone},
	} {
		if f.want != "" && f.want != f.have {
			out = append(out, Change{Field: f.name, From: f.have, To: f.want})
		}
	}
	create := u.ID == ""
	if a.groups != nil && (create || !sameSet(a.groups, u.UserGroups)) {
		out = append(out, Change{Field: "userGroups", From: groups.names(u.UserGroups), To: groups.names(a.groups)})
	}
	if a.roles != nil && (create || !sameSet(a.roles, u.Roles)) {
		out = append(out, Change{Field: "roles", From: roleNames(u.Roles), To: roleNames(a.roles)})
	}
	return out
}

func sameSet[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func roleNames(rs []edapp.Role) string {
	s := make([]string, 0, len(rs))
	for _, r := range rs {
		s = append(s, string(r))
	}
	slices.Sort(s)
	return strings.Join(s, ";")
}

// groupIndex resolves a group by id or name.
type groupIndex struct {
	byID   map[string]edapp.UserGroup
	byName map[string][]edapp.UserGroup // lower-cased name
}

func newGroupIndex(groups []edapp.UserGroup) groupIndex {
	gi := groupIndex{byID: map[string]edapp.UserGroup{}, byName: map[string][]edapp.UserGroup{}}
	for _, g := range groups {
		gi.byID[g.ID] = g
		k := strings.ToLower(g.Name)
		gi.byName[k] = append(gi.byName[k], g)
	}
	return gi
}

func (gi groupIndex) resolve(ref string) (string, error) {
	if g, ok := gi.byID[ref]; ok {
		return g.ID, nil
	}
	switch gs := gi.byName[strings.ToLower(ref)]; len(gs) {
	case 0:
		return "", fmt.Errorf("unknown group %q", ref)
	case 1:
		return gs[0].ID, nil
	default:
		return "", fmt.Errorf("group name %q is ambiguous (%d groups); use its id", ref, len(gs))
	}
}

// names lists the groups' names (their ids when nameless), sorted, joined by ";".
func (gi groupIndex) names(ids []string) string {
	names := make([]string, 0, len(ids))
	for _, id := range ids {
		if g, ok := gi.byID[id]; ok && g.Name != "" {
			names = append(names, g.Name)
		} else {
			names = append(names, id)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ";")
}
