package edapptest

import (
	"slices"
	"time"
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

// SnapshotUser is a user as the fake holds it.
type SnapshotUser struct {
	ID, Username, Email, FirstName, LastName, ExternalID string
	Roles                                                []string
	GroupIDs                                             []string // the groups the user belongs to directly
	LastActive                                           time.Time
}

// SnapshotGroup is a user group; ParentID is "" for a top-level group.
type SnapshotGroup struct {
	ID, Name, ParentID, InviteCode string
	CourseIDs                      []string // the courses assigned to the group itself
}

// SnapshotCollection is a course collection and the courses it holds.
type SnapshotCollection struct {
	ID, ExternalID, Title, Description string
	CourseIDs                          []string
}

// SnapshotCourse is a course and its lessons' ids, in order.
type SnapshotCourse struct {
	ID, ExternalID, Title, Description, Status, Locale, ThumbnailURL string
	Duration                                                         int
	Created, Modified                                                time.Time
	LessonIDs                                                        []string
}

// SnapshotLesson is a lesson.
type SnapshotLesson struct {
	ID, CourseID, ExternalID, Title, Description, Status string
	MinimumScore                                         int
}

// SnapshotProgress is one user's progress in one course, as GET
// /v2/analytics/courseprogress reports it.
type SnapshotProgress struct {
	UserID, CourseID               string
	Opened, Completed              time.Time // zero when not
	LessonsTotal, LessonsCompleted int
	Percentage, Score              float64
}

// Snapshot copies the account's records.
func (s *Server) Snapshot() Snapshot {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.st
	snap := Snapshot{Now: s.Now()}
	for _, u := range st.users.All() {
		snap.Users = append(snap.Users, SnapshotUser{ID: u.id, Username: u.username, Email: u.email,
			FirstName: u.firstName, LastName: u.lastName, ExternalID: u.externalID,
			Roles: slices.Clone(u.roles), GroupIDs: u.groupIDs(), LastActive: u.lastActive})
	}
	for _, g := range st.groups.All() {
		snap.Groups = append(snap.Groups, SnapshotGroup{ID: g.id, Name: g.name, ParentID: g.parentID, InviteCode: g.inviteCode, CourseIDs: g.courseIDs()})
	}
	snap.Collections = snapshotCollections(st)
	for _, c := range st.courses.All() {
		snap.Courses = append(snap.Courses, SnapshotCourse{ID: c.id, ExternalID: c.externalID, Title: c.title,
			Description: c.description, Status: c.status, Locale: c.locale, ThumbnailURL: c.thumbnailURL,
			Duration: c.duration, Created: c.created, Modified: c.modified, LessonIDs: slices.Clone(c.lessonIDs)})
		for _, l := range st.courseLessons(c) {
			snap.Lessons = append(snap.Lessons, SnapshotLesson{ID: l.id, CourseID: c.id, ExternalID: l.externalID,
				Title: l.title, Description: l.description, Status: l.status, MinimumScore: l.minimumScore})
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
		latest = laterOf(latest, laterOf(p.Opened, p.Completed))
	}
	return latest
}

func snapshotCollections(st *store) []SnapshotCollection {
	var out []SnapshotCollection
	for _, col := range st.collections.All() {
		sc := SnapshotCollection{ID: col.id, ExternalID: col.externalID, Title: col.title, Description: col.description}
		for _, c := range collectionCourses(st, col) {
			sc.CourseIDs = append(sc.CourseIDs, c.id)
		}
		out = append(out, sc)
	}
	return out
}

func snapshotProgress(st *store) []SnapshotProgress {
	var out []SnapshotProgress
	for _, r := range st.view().rows {
		cs := st.courseState(r.u, r.cr)
		if !cs.touched && !cs.completed {
			continue
		}
		out = append(out, SnapshotProgress{UserID: r.u.id, CourseID: r.cr.id, Opened: cs.openedAt,
			Completed: cs.completedAt, LessonsTotal: cs.lessonsTotal, LessonsCompleted: cs.lessonsCompleted,
			Percentage: cs.percentage, Score: cs.score})
	}
	return out
}
