package sctest

import (
	"fmt"
	"math"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

type courseProgress struct {
	userID, courseID                 string
	opened, completed, due, modified time.Time
	totalLessons, completedLessons   int
	percent                          float64
	score                            int
}

// ProgressSpec is one user's progress in one course, as the course-progress
// feed reports it, for SetCourseProgress.
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
	return s.write(func(st *store, now time.Time) error {
		c := st.courses.Get(spec.CourseID)
		if c == nil || st.users.Get(spec.UserID) == nil {
			return fmt.Errorf("%w: user %q or course %q", ErrNotFound, spec.UserID, spec.CourseID)
		}
		p := &courseProgress{userID: spec.UserID, courseID: spec.CourseID, opened: fakeserver.OrTime(spec.OpenedAt, spec.CompletedAt), completed: spec.CompletedAt, due: spec.DueAt,
			totalLessons: spec.TotalLessons, completedLessons: spec.CompletedLessons, percent: spec.ProgressPercent, score: spec.Score}
		if p.totalLessons == 0 {
			p.totalLessons = len(st.publishedLessons(c))
		}
		if !p.completed.IsZero() && p.completedLessons == 0 && p.percent == 0 {
			p.completedLessons, p.percent = p.totalLessons, 100
		}
		p.modified = latest(spec.ModifiedAt, p.opened, p.completed)
		p.modified = fakeserver.OrTime(p.modified, now)
		st.progress.Add(pair(spec.UserID, spec.CourseID), p)
		return nil
	})
}

func latest(ts ...time.Time) time.Time {
	out := ts[0]
	for _, t := range ts[1:] {
		if t.After(out) {
			out = t
		}
	}
	return out
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
		lp := st.lessonProgressOf(spec.UserID, l, now)
		lp.opened, lp.completed = fakeserver.OrTime(spec.OpenedAt, spec.CompletedAt), spec.CompletedAt
		lp.score, lp.hasScore = spec.Score, spec.Scored
		return nil
	})
}

// resetProgress forgets a user's progress in a course and its lessons.
func (st *store) resetProgress(userID string, c *course) {
	st.progress.Remove(pair(userID, c.ID))
	for _, lid := range c.lessonIDs {
		st.analytics.lessonProgress.Remove(pair(userID, lid))
	}
}

func (st *store) publishedLessons(c *course) []*lesson {
	var out []*lesson
	for _, id := range c.lessonIDs {
		if l := st.lessons.Get(id); l != nil && l.Status == "published" {
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
		if err == nil {
			st.open(u, l, fakeserver.OrTime(at, now), now)
		}
		return err
	})
}

// CompleteLesson records that a user completed a lesson at (now when zero)
// with a score from 0 to 100: an attempt, its events, the lesson's progress
// and the course's, which completes when every published lesson is completed.
// It delivers the completion webhooks before it returns.
func (s Seeding) CompleteLesson(userID, lessonID string, score float64, at time.Time) error {
	out, err := update(s.server, func(st *store, now time.Time) ([]Delivery, error) {
		if score < 0 || score > 100 || math.IsNaN(score) {
			return nil, fmt.Errorf("%w: score %v is not in 0-100", ErrInvalid, score)
		}
		u, l, err := st.userLesson(userID, lessonID)
		if err != nil {
			return nil, err
		}
		return st.complete(u, l, score, fakeserver.OrTime(at, now), now), nil
	})
	s.deliver(out)
	return err
}

func (st *store) userLesson(userID, lessonID string) (*user, *lesson, error) {
	u, l := st.users.Get(userID), st.lessons.Get(lessonID)
	if u == nil || l == nil {
		return nil, nil, fmt.Errorf("%w: user %q or lesson %q", ErrNotFound, userID, lessonID)
	}
	return u, l, nil
}

func (st *store) open(u *user, l *lesson, at, now time.Time) {
	st.addEvent(u, l, "LessonOpened", nil, at, now)
	lp := st.lessonProgressOf(u.ID, l, now)
	if lp.opened.IsZero() || at.Before(lp.opened) {
		lp.opened = at
	}
	st.refreshCourse(u, st.courses.Get(l.CourseID), at)
}

func (st *store) complete(u *user, l *lesson, score float64, at, now time.Time) []Delivery {
	started := at.Add(-10 * time.Minute)
	st.open(u, l, started, now)
	c := st.courses.Get(l.CourseID)
	st.addRow(reportAttempts, started, now, map[string]any{"id": st.uuid("attempt"), "userId": u.ID,
		"userExternalId": u.externalID, "courseId": c.ID, "courseExternalId": c.ExternalID, "lessonId": l.ID,
		"lessonExternalId": l.ExternalID, "startedDateTime": wtp(started), "completedDateTime": wtp(at), "score": score,
		"success": score >= float64(l.MinimumScore), "earnedStars": int(math.Round(score / 100 * 3))})
	st.addEvent(u, l, "LessonCompleted", &score, at, now)
	lp := st.lessonProgressOf(u.ID, l, now)
	lp.completed = fakeserver.OrTime(lp.completed, at)
	lp.score, lp.hasScore, lp.attempts, lp.recorded = score, true, lp.attempts+1, now
	out := st.trainingEvent("TRIGGER_EVENT_TRAINING_LESSON_COMPLETED", u, c, l, at)
	if st.refreshCourse(u, c, at) {
		out = append(out, st.trainingEvent("TRIGGER_EVENT_TRAINING_COURSE_COMPLETED", u, c, nil, at)...)
	}
	return out
}

// refreshCourse works a user's course progress out of their lessons', and
// reports whether the course completed at.
func (st *store) refreshCourse(u *user, c *course, at time.Time) (completed bool) {
	p := st.progress.Get(pair(u.ID, c.ID))
	if p == nil {
		p = &courseProgress{userID: u.ID, courseID: c.ID}
		st.progress.Add(pair(u.ID, c.ID), p)
	}
	lessons := st.publishedLessons(c)
	p.totalLessons, p.completedLessons = len(lessons), 0
	sum, scored := 0.0, 0
	for _, l := range lessons {
		if lp := st.analytics.lessonProgress.Get(pair(u.ID, l.ID)); lp != nil && !lp.completed.IsZero() {
			p.completedLessons++
			if lp.hasScore {
				sum, scored = sum+lp.score, scored+1
			}
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
	if completed = p.completed.IsZero() && p.totalLessons > 0 && p.completedLessons == p.totalLessons; completed {
		p.completed = at
	}
	p.modified = latest(p.modified, at)
	return completed
}
