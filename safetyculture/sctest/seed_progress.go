package sctest

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

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
		p := spec
		p.OpenedAt = fakeserver.OrTime(p.OpenedAt, p.CompletedAt)
		if p.TotalLessons == 0 {
			p.TotalLessons = len(st.publishedLessons(c))
		}
		if !p.CompletedAt.IsZero() && p.CompletedLessons == 0 && p.ProgressPercent == 0 {
			p.CompletedLessons, p.ProgressPercent = p.TotalLessons, 100
		}
		p.ModifiedAt = fakeserver.OrTime(slices.MaxFunc([]time.Time{p.ModifiedAt, p.OpenedAt, p.CompletedAt}, time.Time.Compare), now)
		st.progress.Add(pair(p.UserID, p.CourseID), &p)
		return nil
	})
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
		lp.LessonProgressSpec = spec
		lp.OpenedAt = fakeserver.OrTime(spec.OpenedAt, spec.CompletedAt)
		return nil
	})
}

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
	if lp.OpenedAt.IsZero() || at.Before(lp.OpenedAt) {
		lp.OpenedAt = at
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
	lp.CompletedAt = fakeserver.OrTime(lp.CompletedAt, at)
	lp.Score, lp.Scored, lp.attempts, lp.recorded = score, true, lp.attempts+1, now
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
		p = &ProgressSpec{UserID: u.ID, CourseID: c.ID}
		st.progress.Add(pair(u.ID, c.ID), p)
	}
	lessons := st.publishedLessons(c)
	p.TotalLessons, p.CompletedLessons = len(lessons), 0
	sum, scored := 0.0, 0
	for _, l := range lessons {
		if lp := st.analytics.lessonProgress.Get(pair(u.ID, l.ID)); lp != nil && !lp.CompletedAt.IsZero() {
			p.CompletedLessons++
			if lp.Scored {
				sum, scored = sum+lp.Score, scored+1
			}
		}
	}
	if p.OpenedAt.IsZero() || at.Before(p.OpenedAt) {
		p.OpenedAt = at
	}
	if p.TotalLessons > 0 {
		p.ProgressPercent = 100 * float64(p.CompletedLessons) / float64(p.TotalLessons)
	}
	if scored > 0 {
		p.Score = int(math.Round(sum / float64(scored)))
	}
	if completed = p.CompletedAt.IsZero() && p.TotalLessons > 0 && p.CompletedLessons == p.TotalLessons; completed {
		p.CompletedAt = at
	}
	p.ModifiedAt = slices.MaxFunc([]time.Time{p.ModifiedAt, at}, time.Time.Compare)
	return completed
}
