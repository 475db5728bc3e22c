package sctest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

type user struct {
	wireUser
	externalID string
}

// UserSpec describes a user for AddUser.
type UserSpec struct {
	ID, Email, FirstName, LastName string
	ExternalID                     string // the training side's user_external_id
	SeatType                       string
	Inactive                       bool
	Owner                          bool // the user owns the token (by default the first user added does)
	LastSeenAt, CreatedAt          time.Time
}

// AddUser adds a user; emails are unique without regard to case.
func (s Seeding) AddUser(spec UserSpec) (string, error) {
	return update(s.server, func(st *store, now time.Time) (string, error) {
		email := strings.ToLower(strings.TrimSpace(spec.Email))
		if email == "" {
			return "", fmt.Errorf("%w: a user needs an email", ErrInvalid)
		} else if st.userByEmail[email] != nil {
			return "", fmt.Errorf("%w: email %q is taken", ErrConflict, spec.Email)
		}
		u := &user{wireUser{ID: spec.ID, OrganisationID: st.orgID, Email: spec.Email, Firstname: spec.FirstName,
			Lastname: spec.LastName, Active: !spec.Inactive, LastSeenAt: wtp(spec.LastSeenAt),
			SeatType: fakeserver.OrDefault(spec.SeatType, "full"), CreatedAt: wtp(fakeserver.OrTime(spec.CreatedAt, now))}, spec.ExternalID}
		if u.ID == "" {
			u.ID = "user_" + st.hexID("user", 32)
		}
		if st.users.Get(u.ID) != nil {
			return "", fmt.Errorf("%w: user %q exists", ErrConflict, u.ID)
		}
		st.users.Add(u.ID, u)
		st.userByEmail[email] = u
		if st.ownerID == "" || spec.Owner {
			st.ownerID = u.ID
		}
		return u.ID, nil
	})
}

// AddGroup adds a flat group and returns its id, role_ and 32 hex digits
// unless given.
func (s Seeding) AddGroup(id, name string) (string, error) {
	return update(s.server, func(st *store, _ time.Time) (string, error) {
		if id == "" {
			id = "role_" + st.hexID("group", 32)
		}
		if st.groups.Get(id) != nil {
			return "", fmt.Errorf("%w: group %q exists", ErrConflict, id)
		}
		st.groups.Add(id, &wireGroup{ID: id, Name: name, OrganisationID: st.orgID})
		return id, nil
	})
}

// AddGroupUser makes a user a member of a group.
func (s Seeding) AddGroupUser(groupID, userID string) error {
	return addMember(s, &s.st.groupUsers, wireGroupUser{UserID: userID, GroupID: groupID, OrganisationID: s.OrganisationID()},
		groupID, userID, func(st *store) bool { return st.groups.Get(groupID) != nil })
}

// SiteSpec describes a site.
type SiteSpec struct {
	ID, Name, ParentID, CreatorID string
	MetaLabel                     string // "area", "region", "location"...; default "location"
	Deleted                       bool
}

// AddSite adds a site and returns its id (location_ and 32 hex digits
// unless given).
func (s Seeding) AddSite(spec SiteSpec) (string, error) {
	return update(s.server, func(st *store, _ time.Time) (string, error) {
		var parentUUID *string
		if parent := st.sites.Get(spec.ParentID); parent != nil {
			parentUUID = &parent.SiteUUID
		} else if spec.ParentID != "" {
			return "", fmt.Errorf("%w: parent site %q", ErrNotFound, spec.ParentID)
		}
		h := st.hexID("site", 32)
		id := fakeserver.OrDefault(spec.ID, "location_"+h)
		if st.sites.Get(id) != nil {
			return "", fmt.Errorf("%w: site %q exists", ErrConflict, id)
		}
		st.sites.Add(id, &wireSite{ID: id, SiteUUID: uuidOf(h), Name: spec.Name, CreatorID: fakeserver.OrDefault(spec.CreatorID, st.ownerID),
			OrganisationID: st.orgID, MetaLabel: fakeserver.OrDefault(spec.MetaLabel, "location"), ParentID: parentUUID, Deleted: spec.Deleted})
		return id, nil
	})
}

// AddSiteMember makes a user a member of a site.
func (s Seeding) AddSiteMember(siteID, userID string) error {
	return addMember(s, &s.st.siteMembers, wireSiteMember{SiteID: siteID, MemberID: userID},
		siteID, userID, func(st *store) bool { return st.sites.Get(siteID) != nil })
}

func addMember[T any](s Seeding, list *[]T, m T, parentID, userID string, parentExists func(st *store) bool) error {
	return s.write(func(st *store, _ time.Time) error {
		if !parentExists(st) || st.users.Get(userID) == nil {
			return fmt.Errorf("%w: group or site %q, or user %q", ErrNotFound, parentID, userID)
		}
		if k := pair(userID, parentID); !st.members[k] {
			st.members[k] = true
			*list = append(*list, m)
		}
		return nil
	})
}

type course struct {
	wireCourse
	lessonIDs []string
}

type lesson = wireLesson

// CourseSpec describes a course for AddCourse.
type CourseSpec struct {
	ID, ExternalID, Title, Description, Status, Locale, ThumbnailURL string
	Mandatory                                                        bool
	Duration                                                         int // minutes
	DueBy, Created, Modified                                         time.Time
	Lessons                                                          []LessonSpec
}

// LessonSpec describes a lesson of a course.
type LessonSpec struct {
	ID, ExternalID, Title, Description, Status string
	MinimumScore                               int
}

// AddCourse adds a course and its lessons and returns their ids.
func (s Seeding) AddCourse(spec CourseSpec) (courseID string, lessonIDs []string, err error) {
	err = s.write(func(st *store, now time.Time) error {
		if strings.TrimSpace(spec.Title) == "" {
			return fmt.Errorf("%w: a course needs a title", ErrInvalid)
		}
		created := fakeserver.OrTime(spec.Created, now)
		c := &course{wireCourse: wireCourse{ID: fakeserver.OrDefault(spec.ID, st.hexID("course", 24)), ExternalID: spec.ExternalID,
			Title: spec.Title, Description: spec.Description, Status: fakeserver.OrDefault(spec.Status, "published"),
			Locale: fakeserver.OrDefault(spec.Locale, "en"), ThumbnailURL: spec.ThumbnailURL, IsMandatory: spec.Mandatory,
			Duration: spec.Duration, DueBy: wtp(spec.DueBy), CreatedDatetime: wtp(created),
			ModifiedDatetime: wtp(fakeserver.OrTime(spec.Modified, created)), LessonCount: len(spec.Lessons), PublishedVersionNumber: 1}}
		if st.courses.Get(c.ID) != nil {
			return fmt.Errorf("%w: course %q exists", ErrConflict, c.ID)
		}
		c.IsPublished = strings.EqualFold(c.Status, "published")
		for _, ls := range spec.Lessons {
			l := &lesson{ID: fakeserver.OrDefault(ls.ID, st.hexID("lesson", 24)), CourseID: c.ID, ExternalID: ls.ExternalID,
				Title: ls.Title, Description: ls.Description, Status: fakeserver.OrDefault(ls.Status, "published"), MinimumScore: ls.MinimumScore}
			st.lessons.Add(l.ID, l)
			c.lessonIDs = append(c.lessonIDs, l.ID)
		}
		st.courses.Add(c.ID, c)
		courseID, lessonIDs = c.ID, c.lessonIDs
		return nil
	})
	return courseID, lessonIDs, err
}

type collection struct {
	wireCollection
	courseIDs []string
}

// AddCollection adds a course collection holding the given courses.
func (s Seeding) AddCollection(title, description string, courseIDs []string) (string, error) {
	return s.addWithCourses("collection", courseIDs, func(st *store, id string) {
		st.collections.Add(id, &collection{wireCollection{ID: id, Title: title, Description: description, CourseCount: len(courseIDs)}, courseIDs})
	})
}

func (s Seeding) addWithCourses(kind string, courseIDs []string, add func(st *store, id string)) (string, error) {
	return update(s.server, func(st *store, _ time.Time) (string, error) {
		for _, id := range courseIDs {
			if st.courses.Get(id) == nil {
				return "", fmt.Errorf("%w: course %q", ErrNotFound, id)
			}
		}
		id := st.uuid(kind)
		add(st, id)
		return id, nil
	})
}

// AddPath adds a learning path through the given courses, in order.
func (s Seeding) AddPath(title string, published bool, courseIDs []string) (string, error) {
	return s.addWithCourses("path", courseIDs, func(st *store, id string) {
		p := &wirePath{ID: id, Title: title, IsPublished: published, Courses: []wireCourseRef{}}
		for _, c := range mapIDs(courseIDs, st.courses.Get) {
			p.Courses = append(p.Courses, wireCourseRef{ID: c.ID, ExternalID: c.ExternalID})
		}
		st.paths.Add(id, p)
	})
}

// AddRapidRefresh adds a rapid refresh, about a course unless "".
func (s Seeding) AddRapidRefresh(title, courseID string, published bool) (string, error) {
	courses := []string{courseID}
	if courseID == "" {
		courses = nil
	}
	return s.addWithCourses("rapidrefresh", courses, func(st *store, id string) {
		st.refreshes.Add(id, &wireRapidRefresh{ID: id, Title: title, CourseID: courseID, IsPublished: published})
	})
}

// DeleteUser removes a user, as an administrator deleting them does: the
// feeds leave them and their progress out.
func (s Seeding) DeleteUser(userID string) error {
	return s.write(func(st *store, _ time.Time) error {
		u := st.users.Get(userID)
		if u == nil {
			return fmt.Errorf("%w: user %q", ErrNotFound, userID)
		}
		st.users.Remove(userID)
		delete(st.userByEmail, strings.ToLower(strings.TrimSpace(u.Email)))
		maps.DeleteFunc(st.members, func(k string, _ bool) bool { return strings.HasPrefix(k, pair(userID, "")) })
		st.groupUsers = slices.DeleteFunc(st.groupUsers, func(m wireGroupUser) bool { return m.UserID == userID })
		st.siteMembers = slices.DeleteFunc(st.siteMembers, func(m wireSiteMember) bool { return m.MemberID == userID })
		for _, c := range st.courses.All() {
			st.resetProgress(userID, c)
		}
		return nil
	})
}

// DeleteCourse removes a course and its lessons, and everyone's progress
// in them, which the feeds then leave out as DeleteUser's do.
func (s Seeding) DeleteCourse(courseID string) error {
	return s.write(func(st *store, _ time.Time) error {
		c := st.courses.Get(courseID)
		if c == nil {
			return fmt.Errorf("%w: course %q", ErrNotFound, courseID)
		}
		for _, u := range st.users.All() {
			st.resetProgress(u.ID, c)
		}
		for _, id := range c.lessonIDs {
			st.lessons.Remove(id)
		}
		st.courses.Remove(courseID)
		return nil
	})
}
