package sctest

import (
	"fmt"
	"strings"
	"time"
)

type course struct {
	id, externalID, title, description, status, locale, thumbnailURL string
	mandatory, published                                             bool
	duration, version                                                int
	dueBy, created, modified                                         time.Time
	lessonIDs                                                        []string
}

type lesson struct {
	id, courseID, externalID, title, description, status string
	minimumScore                                         int
}

// CourseSpec describes a course for AddCourse. Zero fields take defaults:
// a new id (24 hex digits), status "published" (and then isPublished),
// locale "en", created and modified now.
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
		courseID, lessonIDs, err = st.addCourse(spec, now)
		return err
	})
	return courseID, lessonIDs, err
}

func (st *store) addCourse(spec CourseSpec, now time.Time) (string, []string, error) {
	if strings.TrimSpace(spec.Title) == "" {
		return "", nil, fmt.Errorf("%w: a course needs a title", ErrInvalid)
	}
	c := &course{id: orDefault(spec.ID, st.hexID("course", 24)), externalID: spec.ExternalID, title: spec.Title,
		description: spec.Description, status: orDefault(spec.Status, "published"), locale: orDefault(spec.Locale, "en"),
		thumbnailURL: spec.ThumbnailURL, mandatory: spec.Mandatory, duration: spec.Duration, version: 1,
		dueBy: spec.DueBy, created: spec.Created, modified: spec.Modified}
	if st.courses.Get(c.id) != nil {
		return "", nil, fmt.Errorf("%w: course %q exists", ErrConflict, c.id)
	}
	c.published = strings.EqualFold(c.status, "published")
	if c.created.IsZero() {
		c.created = now
	}
	if c.modified.IsZero() {
		c.modified = c.created
	}
	for _, ls := range spec.Lessons {
		l := &lesson{id: orDefault(ls.ID, st.hexID("lesson", 24)), courseID: c.id, externalID: ls.ExternalID,
			title: ls.Title, description: ls.Description, status: orDefault(ls.Status, "published"), minimumScore: ls.MinimumScore}
		st.lessons.Add(l.id, l)
		c.lessonIDs = append(c.lessonIDs, l.id)
	}
	st.courses.Add(c.id, c)
	return c.id, c.lessonIDs, nil
}

// knownCourses checks that every id names a course.
func (st *store) knownCourses(ids []string) error {
	for _, id := range ids {
		if st.courses.Get(id) == nil {
			return fmt.Errorf("%w: course %q", ErrNotFound, id)
		}
	}
	return nil
}

type collection struct {
	id, title, description string
	courseIDs              []string
}

// AddCollection adds a course collection holding the given courses.
func (s Seeding) AddCollection(title, description string, courseIDs []string) (string, error) {
	return s.addWithCourses("collection", courseIDs, func(st *store, id string) {
		st.collections.Add(id, &collection{id: id, title: title, description: description, courseIDs: courseIDs})
	})
}

// addWithCourses checks that courseIDs name courses, then adds a record
// of a kind under a new UUID.
func (s Seeding) addWithCourses(kind string, courseIDs []string, add func(st *store, id string)) (string, error) {
	var id string
	err := s.write(func(st *store, _ time.Time) error {
		if err := st.knownCourses(courseIDs); err != nil {
			return err
		}
		id = uuidOf(st.hexID(kind, 32))
		add(st, id)
		return nil
	})
	return id, err
}

type path struct {
	id, title, description string
	published              bool
	courseIDs              []string
}

// AddPath adds a learning path through the given courses, in order.
func (s Seeding) AddPath(title string, published bool, courseIDs []string) (string, error) {
	return s.addWithCourses("path", courseIDs, func(st *store, id string) {
		st.paths.Add(id, &path{id: id, title: title, published: published, courseIDs: courseIDs})
	})
}

type rapidRefresh struct {
	id, title, courseID string
	published           bool
}

// AddRapidRefresh adds a rapid refresh (a short quiz series), optionally
// about a course.
func (s Seeding) AddRapidRefresh(title, courseID string, published bool) (string, error) {
	var courses []string
	if courseID != "" {
		courses = []string{courseID}
	}
	return s.addWithCourses("rapidrefresh", courses, func(st *store, id string) {
		st.refreshes.Add(id, &rapidRefresh{id: id, title: title, courseID: courseID, published: published})
	})
}

type leaderboard struct {
	id, name, learnerAccess string
	start, end              time.Time
	rankings                []Ranking
}

// Ranking is one participant's place on a leaderboard.
type Ranking struct {
	UserID       string
	TotalScore   int
	NotAttempted bool
}

// AddLeaderboard adds an individual leaderboard; its rankings are ordered
// by TotalScore, highest first, when GET .../rankings answers them.
func (s Seeding) AddLeaderboard(name string, start, end time.Time, rankings []Ranking) (string, error) {
	var id string
	err := s.write(func(st *store, _ time.Time) error {
		for _, r := range rankings {
			if st.users.Get(r.UserID) == nil {
				return fmt.Errorf("%w: user %q", ErrNotFound, r.UserID)
			}
		}
		id = uuidOf(st.hexID("leaderboard", 32))
		st.boards.Add(id, &leaderboard{id: id, name: name, learnerAccess: "LEARNER_ACCESS_ALL", start: start, end: end, rankings: rankings})
		return nil
	})
	return id, err
}
