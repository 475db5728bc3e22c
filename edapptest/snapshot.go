package edapptest

import (
	"slices"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

// Snapshot is a copy of the account's records at one moment, for code that
// builds something from the account (such as another service's copy of it)
// without going through the API.
type Snapshot struct {
	Now         time.Time // the server's clock when the copy was taken
	Users       []SnapshotUser
	Groups      []SnapshotGroup
	Collections []SnapshotCollection
	Courses     []SnapshotCourse
	Lessons     []SnapshotLesson
	// Progress has one record per user and course with recorded progress
	// or a completion, by course in catalog order, then by user.
	Progress []SnapshotProgress
	// LatestActivity is the latest time a learner started or completed a
	// lesson attempt, or opened or completed a course; zero when none did.
	LatestActivity time.Time
}

// SnapshotUser is a user as GET /v2/users/{id} answers it: Name is the
// username, UserGroups the groups the user belongs to directly, and
// LastActiveDate.Time when the user was last active.
type SnapshotUser struct{ v2User }

// SnapshotGroup is a user group as GET /v2/usergroups answers it, with its
// parent ("" for a top-level group) and the courses assigned to it.
type SnapshotGroup struct {
	v2Group
	ParentID  string
	CourseIDs []string
}

// SnapshotCollection is a course collection, with the catalog's fields,
// and the courses it holds.
type SnapshotCollection struct {
	v2Collection
	CourseIDs []string
}

// SnapshotCourse is a course, with the catalog's fields (its dates are
// CreatedDateTime.Time and ModifiedDateTime.Time), and its lessons' ids,
// in order.
type SnapshotCourse struct {
	v2Course
	LessonIDs []string
}

// SnapshotLesson is a lesson, with the catalog's fields, and its course.
type SnapshotLesson struct {
	v2Lesson
	CourseID string
}

// SnapshotProgress is one user's progress in one course, as GET
// /v2/analytics/courseprogress reports it.
type SnapshotProgress struct{ wireCourseProgress }

// Snapshot copies the account's records.
func (s *Server) Snapshot() Snapshot {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.st
	snap := Snapshot{Now: s.Now()}
	for _, u := range st.users.All() {
		snap.Users = append(snap.Users, SnapshotUser{toV2User(u)})
	}
	for _, g := range st.groups.All() {
		snap.Groups = append(snap.Groups, SnapshotGroup{toV2Group(st, g), g.parentID, g.courseIDs()})
	}
	for _, col := range st.collections.All() {
		ids := fakeserver.Map(collectionCourses(st, col), func(c *course) string { return c.ID })
		snap.Collections = append(snap.Collections, SnapshotCollection{*col, ids})
	}
	for _, c := range st.courses.All() {
		snap.Courses = append(snap.Courses, SnapshotCourse{c.v2Course, slices.Clone(c.lessonIDs)})
		for _, l := range st.courseLessons(c) {
			snap.Lessons = append(snap.Lessons, SnapshotLesson{l.v2Lesson, c.ID})
		}
	}
	snap.Progress = snapshotProgress(st)
	snap.LatestActivity = latestActivity(st, snap.Progress)
	return snap
}

// latestActivity is Snapshot.LatestActivity: of the attempts and of
// progress, the course progress of the snapshot.
func latestActivity(st *store, progress []SnapshotProgress) time.Time {
	var latest time.Time
	for _, a := range st.attempts {
		latest = laterOf(latest, laterOf(a.started, a.completed))
	}
	for _, p := range progress {
		latest = laterOf(latest, laterOf(p.OpenedDateTime.Time, p.CompletedDateTime.Time))
	}
	return latest
}

func snapshotProgress(st *store) []SnapshotProgress {
	var out []SnapshotProgress
	for _, r := range st.view().rows {
		cs := st.courseState(r.u, r.cr)
		if !cs.touched && !cs.completed {
			continue
		}
		out = append(out, SnapshotProgress{toWireCourseProgress(r, cs)})
	}
	return out
}
