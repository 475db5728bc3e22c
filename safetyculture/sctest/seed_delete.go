package sctest

import (
	"fmt"
	"slices"
	"time"
)

// DeleteUser removes a user, as an administrator deleting them does: the
// users, group and site feeds leave them out, and so do the course-progress and lesson
// feeds, which no longer report their progress. A feed asked for rows
// modified after a date says nothing of the deletion.
func (s Seeding) DeleteUser(userID string) error {
	return s.write(func(st *store, _ time.Time) error {
		u := st.users.Get(userID)
		if u == nil {
			return fmt.Errorf("%w: user %q", ErrNotFound, userID)
		}
		st.users.Remove(userID)
		delete(st.userByEmail, u.email)
		gone := func(k memberKey) bool {
			if k.userID == userID {
				delete(st.members, k)
				return true
			}
			return false
		}
		st.groupUsers = slices.DeleteFunc(st.groupUsers, gone)
		st.siteMembers = slices.DeleteFunc(st.siteMembers, gone)
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
		for _, k := range slices.Clone(st.progressKeys) {
			if k.courseID == courseID {
				st.resetProgress(k.userID, c)
			}
		}
		for _, id := range c.lessonIDs {
			st.lessons.Remove(id)
		}
		st.courses.Remove(courseID)
		return nil
	})
}
