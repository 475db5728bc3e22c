package sctest

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrNotFound and ErrConflict are what the seeding helpers return for an
// unknown id and for a duplicate; ErrInvalid for a value the service
// would refuse.
var (
	ErrNotFound = errors.New("sctest: not found")
	ErrConflict = errors.New("sctest: conflict")
	ErrInvalid  = errors.New("sctest: invalid")
)

type user struct {
	id, email, firstName, lastName, externalID, seatType string
	active                                               bool
	lastSeen, created                                    time.Time
}

// UserSpec describes a user for AddUser. Zero fields take defaults: a new
// id (user_ and 32 hex digits), seat type "full", created now, active
// unless Inactive.
type UserSpec struct {
	ID, Email, FirstName, LastName string
	ExternalID                     string // the training side's user_external_id
	SeatType                       string
	Inactive                       bool
	Owner                          bool // the user owns the token (by default the first user added does)
	LastSeenAt, CreatedAt          time.Time
}

// AddUser adds a user; emails are unique without regard to case. The
// first user added is the token's owner, whom WhoAmI names.
func (s Seeding) AddUser(spec UserSpec) (string, error) {
	var id string
	err := s.write(func(st *store, now time.Time) (err error) { id, err = st.addUser(spec, now); return err })
	return id, err
}

func (st *store) addUser(spec UserSpec, now time.Time) (string, error) {
	email := strings.ToLower(strings.TrimSpace(spec.Email))
	if email == "" {
		return "", fmt.Errorf("%w: a user needs an email", ErrInvalid)
	}
	if st.userByEmail[email] != nil {
		return "", fmt.Errorf("%w: email %q is taken", ErrConflict, spec.Email)
	}
	u := &user{id: spec.ID, email: spec.Email, firstName: spec.FirstName, lastName: spec.LastName,
		externalID: spec.ExternalID, seatType: orDefault(spec.SeatType, "full"), active: !spec.Inactive,
		lastSeen: spec.LastSeenAt, created: spec.CreatedAt}
	if u.id == "" {
		u.id = "user_" + st.hexID("user", 32)
	}
	if st.users.Get(u.id) != nil {
		return "", fmt.Errorf("%w: user %q exists", ErrConflict, u.id)
	}
	if u.created.IsZero() {
		u.created = now
	}
	st.users.Add(u.id, u)
	st.userByEmail[email] = u
	if st.ownerID == "" || spec.Owner {
		st.ownerID = u.id
	}
	return u.id, nil
}

func orDefault(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return v
}

type group struct{ id, name string }

// AddGroup adds a group (groups are flat) and returns its id (role_ and
// 32 hex digits unless id is given).
func (s Seeding) AddGroup(id, name string) (string, error) {
	err := s.write(func(st *store, _ time.Time) (err error) { id, err = st.addGroup(id, name); return err })
	return id, err
}

func (st *store) addGroup(id, name string) (string, error) {
	if id == "" {
		id = "role_" + st.hexID("group", 32)
	}
	if st.groups.Get(id) != nil {
		return "", fmt.Errorf("%w: group %q exists", ErrConflict, id)
	}
	st.groups.Add(id, &group{id: id, name: name})
	return id, nil
}

// AddGroupUser makes a user a member of a group.
func (s Seeding) AddGroupUser(groupID, userID string) error {
	return s.write(func(st *store, _ time.Time) error {
		if st.groups.Get(groupID) == nil || st.users.Get(userID) == nil {
			return fmt.Errorf("%w: group %q or user %q", ErrNotFound, groupID, userID)
		}
		st.addMember(&st.groupUsers, memberKey{groupID, userID})
		return nil
	})
}

type site struct {
	id, uuid, name, creatorID, metaLabel, parentID string
	deleted                                        bool
}

// SiteSpec describes a site. ParentID is the parent site's id ("" for a
// top-level site); the feed writes it as the parent's site_uuid, as the
// service does.
type SiteSpec struct {
	ID, Name, ParentID, CreatorID string
	MetaLabel                     string // "area", "region", "location"...; default "location"
	Deleted                       bool
}

// AddSite adds a site and returns its id (location_ and 32 hex digits
// unless given).
func (s Seeding) AddSite(spec SiteSpec) (string, error) {
	var id string
	err := s.write(func(st *store, _ time.Time) (err error) { id, err = st.addSite(spec); return err })
	return id, err
}

func (st *store) addSite(spec SiteSpec) (string, error) {
	if spec.ParentID != "" && st.sites.Get(spec.ParentID) == nil {
		return "", fmt.Errorf("%w: parent site %q", ErrNotFound, spec.ParentID)
	}
	h := st.hexID("site", 32)
	id := orDefault(spec.ID, "location_"+h)
	if st.sites.Get(id) != nil {
		return "", fmt.Errorf("%w: site %q exists", ErrConflict, id)
	}
	st.sites.Add(id, &site{id: id, uuid: uuidOf(h), name: spec.Name, creatorID: orDefault(spec.CreatorID, st.ownerID),
		metaLabel: orDefault(spec.MetaLabel, "location"), parentID: spec.ParentID, deleted: spec.Deleted})
	return id, nil
}

// AddSiteMember makes a user a member of a site.
func (s Seeding) AddSiteMember(siteID, userID string) error {
	return s.write(func(st *store, _ time.Time) error {
		if st.sites.Get(siteID) == nil || st.users.Get(userID) == nil {
			return fmt.Errorf("%w: site %q or user %q", ErrNotFound, siteID, userID)
		}
		st.addMember(&st.siteMembers, memberKey{siteID, userID})
		return nil
	})
}

// addMember adds a membership to a list once.
func (st *store) addMember(list *[]memberKey, k memberKey) {
	if !st.members[k] {
		st.members[k] = true
		*list = append(*list, k)
	}
}

// UserCount is the number of users the fake holds.
func (s *Server) UserCount() int {
	n := 0
	s.read(func(st *store, _ time.Time) { n = st.users.Len() })
	return n
}

// AdvanceClock moves the fake's clock on by d, on top of WithClock's, as
// when a seeded history ends after the clock's time. A negative d does
// nothing.
func (s Seeding) AdvanceClock(d time.Duration) {
	if d > 0 {
		s.ahead.Add(int64(d))
	}
}

// Now reads the fake's clock: WithClock's, moved on by AdvanceClock.
func (s *Server) Now() time.Time { return s.now() }
