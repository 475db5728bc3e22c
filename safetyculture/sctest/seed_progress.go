package sctest

import (
	"fmt"
	"math"
	"time"
)

type courseProgress struct {
	opened, completed, due, modified time.Time
	totalLessons, completedLessons   int
	percent                          float64
	score                            int
}

// ProgressSpec is one user's progress in one course, as the
// course-progress feed reports it, for SetCourseProgress. With
// CompletedAt set and the counts zero, every lesson is completed (100%).
// TotalLessons defaults to the course's published lessons, ModifiedAt to
// the latest of the dates, OpenedAt to CompletedAt.
type ProgressSpec struct {
	UserID, CourseID                         string
	OpenedAt, CompletedAt, DueAt, ModifiedAt time.Time
	TotalLessons, CompletedLessons           int
	ProgressPercent                          float64
	Score                                    int
}

// SetCourseProgress records (or replaces) a user's progress in a course,
// as a migration imports it: no lesson scores, no attempts.
func (s Seeding) SetCourseProgress(spec ProgressSpec) error {
	return s.write(func(st *store, now time.Time) error { return st.setProgress(spec, now) })
}

func (st *store) setProgress(spec ProgressSpec, now time.Time) error {
	c := st.courses.Get(spec.CourseID)
	if c == nil || st.users.Get(spec.UserID) == nil {
		return fmt.Errorf("%w: user %q or course %q", ErrNotFound, spec.UserID, spec.CourseID)
	}
	p := &courseProgress{opened: spec.OpenedAt, completed: spec.CompletedAt, due: spec.DueAt, modified: spec.ModifiedAt,
		totalLessons: spec.TotalLessons, completedLessons: spec.CompletedLessons, percent: spec.ProgressPercent, score: spec.Score}
	if p.totalLessons == 0 {
		p.totalLessons = len(st.publishedLessons(c))
	}
	if !p.completed.IsZero() && p.completedLessons == 0 && p.percent == 0 {
		p.completedLessons, p.percent = p.totalLessons, 100
	}
	if p.opened.IsZero() {
		p.opened = p.completed
	}
	for _, t := range []time.Time{p.opened, p.completed} {
		if t.After(p.modified) {
			p.modified = t
		}
	}
	if p.modified.IsZero() {
		p.modified = now
	}
	st.putProgress(ucKey{spec.UserID, spec.CourseID}, p)
	return nil
}

// LessonProgressSpec is one user's progress in one lesson, for
// SetLessonProgress. Scored says whether Score was recorded.
type LessonProgressSpec struct {
	UserID, LessonID      string
	OpenedAt, CompletedAt time.Time
	Score                 float64
	Scored                bool
}

// SetLessonProgress records (or replaces) a user's progress in a lesson,
// as a migration imports it: no attempt, no event.
func (s Seeding) SetLessonProgress(spec LessonProgressSpec) error {
	return s.write(func(st *store, now time.Time) error {
		_, l, err := st.userLesson(spec.UserID, spec.LessonID)
		if err != nil {
			return err
		}
		lp := st.analytics.lessonProgressOf(ulKey{spec.UserID, l.id}, l.courseID, now)
		lp.opened, lp.completed = orNow(spec.OpenedAt, spec.CompletedAt), spec.CompletedAt
		lp.score, lp.hasScore = spec.Score, spec.Scored
		return nil
	})
}

func (st *store) putProgress(k ucKey, p *courseProgress) {
	if st.progress[k] == nil {
		st.progressKeys = append(st.progressKeys, k)
	}
	st.progress[k] = p
}

func (st *store) publishedLessons(c *course) []*lesson {
	var out []*lesson
	for _, id := range c.lessonIDs {
		if l := st.lessons.Get(id); l != nil && l.status == "published" {
			out = append(out, l)
		}
	}
	return out
}

// OpenLesson records that a user opened a lesson at (now when zero): a
// LessonOpened event, the lesson's progress and the course's.
func (s Seeding) OpenLesson(userID, lessonID string, at time.Time) error {
	return s.write(func(st *store, now time.Time) error {
		u, l, err := st.userLesson(userID, lessonID)
		if err != nil {
			return err
		}
		st.open(u, l, orNow(at, now), now)
		return nil
	})
}

// CompleteLesson records that a user completed a lesson at (now when
// zero) with a score from 0 to 100: an attempt, its events, the lesson's
// progress and the course's, which completes when every published lesson
// is completed. It delivers TRIGGER_EVENT_TRAINING_LESSON_COMPLETED, and
// TRIGGER_EVENT_TRAINING_COURSE_COMPLETED when the course completes, to
// the webhooks registered for them, before it returns.
func (s Seeding) CompleteLesson(userID, lessonID string, score float64, at time.Time) error {
	var out []outgoing
	err := s.write(func(st *store, now time.Time) error {
		if score < 0 || score > 100 || math.IsNaN(score) {
			return fmt.Errorf("%w: score %v is not in 0-100", ErrInvalid, score)
		}
		u, l, err := st.userLesson(userID, lessonID)
		if err != nil {
			return err
		}
		out = st.complete(u, l, score, orNow(at, now), now)
		return nil
	})
	if err == nil {
		s.deliver(out)
	}
	return err
}

func orNow(at, now time.Time) time.Time {
	if at.IsZero() {
		return now
	}
	return at
}

func (st *store) userLesson(userID, lessonID string) (*user, *lesson, error) {
	u, l := st.users.Get(userID), st.lessons.Get(lessonID)
	if u == nil || l == nil {
		return nil, nil, fmt.Errorf("%w: user %q or lesson %q", ErrNotFound, userID, lessonID)
	}
	return u, l, nil
}

func (st *store) open(u *user, l *lesson, at, now time.Time) {
	st.analytics.addEvent(progressEvent{userID: u.id, lessonID: l.id, courseID: l.courseID, name: "LessonOpened", at: at}, now)
	lp := st.analytics.lessonProgressOf(ulKey{u.id, l.id}, l.courseID, now)
	if lp.opened.IsZero() || at.Before(lp.opened) {
		lp.opened = at
	}
	st.refreshCourse(u, st.courses.Get(l.courseID), at)
}

func (st *store) complete(u *user, l *lesson, score float64, at, now time.Time) []outgoing {
	started := at.Add(-10 * time.Minute)
	st.open(u, l, started, now)
	st.analytics.addAttempt(&attempt{id: uuidOf(st.hexID("attempt", 32)), userID: u.id, lessonID: l.id,
		courseID: l.courseID, started: started, completed: at, score: score,
		success: score >= float64(l.minimumScore), recorded: now})
	st.analytics.addEvent(progressEvent{userID: u.id, lessonID: l.id, courseID: l.courseID, name: "LessonCompleted",
		at: at, score: score, hasScore: true}, now)
	lp := st.analytics.lessonProgressOf(ulKey{u.id, l.id}, l.courseID, now)
	if lp.completed.IsZero() {
		lp.completed = at
	}
	lp.score, lp.hasScore, lp.attempts, lp.recorded = score, true, lp.attempts+1, now
	c := st.courses.Get(l.courseID)
	before := st.progress[ucKey{u.id, c.id}]
	wasDone := before != nil && !before.completed.IsZero()
	st.refreshCourse(u, c, at)
	out := []outgoing{st.trainingEvent("TRIGGER_EVENT_TRAINING_LESSON_COMPLETED", u, c, l, at)}
	if p := st.progress[ucKey{u.id, c.id}]; !wasDone && !p.completed.IsZero() {
		out = append(out, st.trainingEvent("TRIGGER_EVENT_TRAINING_COURSE_COMPLETED", u, c, nil, at))
	}
	return out
}

// refreshCourse works a user's course progress out again from their
// lesson progress, after activity at.
func (st *store) refreshCourse(u *user, c *course, at time.Time) {
	k := ucKey{u.id, c.id}
	p := st.progress[k]
	if p == nil {
		p = &courseProgress{}
		st.putProgress(k, p)
	}
	lessons := st.publishedLessons(c)
	p.totalLessons, p.completedLessons = len(lessons), 0
	sum, scored := 0.0, 0
	for _, l := range lessons {
		lp := st.analytics.lessonProgress[ulKey{u.id, l.id}]
		if lp == nil || lp.completed.IsZero() {
			continue
		}
		p.completedLessons++
		if lp.hasScore {
			sum, scored = sum+lp.score, scored+1
		}
	}
	if p.opened.IsZero() || at.Before(p.opened) {
		p.opened = at
	}
	if p.totalLessons > 0 {
		p.percent = 100 * float64(p.completedLessons) / float64(p.totalLessons)
	}
	if scored > 0 {
		p.score = int(math.Round(sum / float64(scored)))
	}
	if p.completed.IsZero() && p.totalLessons > 0 && p.completedLessons == p.totalLessons {
		p.completed = at
	}
	if at.After(p.modified) {
		p.modified = at
	}
}
