package edapptest

import (
	"math"
	"slices"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

// filter holds the analytics filters of one request: the course and user
// filters and the lower time bound, the ones the SDK's callers use.
type filter struct {
	courseID, courseExt, userID string
	from                        time.Time
}

// filter reads the filters, the time bound from the parameter named from;
// on a bad time it answers 400 and reports false.
func (c *exchange) filter(from string) (filter, bool) {
	f := filter{courseID: c.q("courseId"), courseExt: c.q("courseExternalId"), userID: c.q("userId")}
	var ok bool
	f.from, ok = c.timeParam(from)
	return f, ok
}

func (f filter) match(st *store, userID, courseID string, at time.Time) bool {
	return (f.userID == "" || userID == f.userID) && (f.courseID == "" || courseID == f.courseID) &&
		(f.courseExt == "" || orZero(st.courses.Get(courseID)).ExternalID == f.courseExt) && !at.Before(f.from)
}

// refs are the user, lesson and course of a record. The fake deletes a
// user's records with the user, so all three exist; a missing one would
// be a zero record, whose fields read "".
type refs struct {
	u *user
	l *lesson
	c *course
}

func (st *store) refs(userID, lessonID, courseID string) refs {
	return refs{orZero(st.users.Get(userID)), orZero(st.lessons.Get(lessonID)), orZero(st.courses.Get(courseID))}
}

func orZero[T any](p *T) *T {
	if p == nil {
		return new(T)
	}
	return p
}

// filtered returns the items that keep reports true, or items itself when
// f filters nothing, so that an unfiltered page costs only its own size.
func filtered[S any](items []S, f filter, keep func(S) bool) []S {
	if f == (filter{}) {
		return items
	}
	return slices.DeleteFunc(slices.Clone(items), func(it S) bool { return !keep(it) })
}

// v2Attempts lists attempts; startDateTime bounds startedDateTime.
func v2Attempts(c *exchange) {
	f, ok := c.filter("startDateTime")
	if !ok {
		return
	}
	items := filtered(c.st.attempts, f, func(a *attempt) bool { return f.match(c.st, a.userID, a.courseID, a.started) })
	pageMap(c, items, func(a *attempt) wireAttempt { return toWireAttempt(c.st, a) })
}

func toWireAttempt(st *store, a *attempt) wireAttempt {
	r := st.refs(a.userID, a.lessonID, a.courseID)
	w := wireAttempt{
		ID: a.ID, UserID: a.userID, UserExternalID: r.u.ExternalID,
		CourseID: a.courseID, CourseExternalID: r.c.ExternalID,
		LessonID: a.lessonID, LessonExternalID: r.l.ExternalID,
		StartedDateTime: wt(a.started),
	}
	if a.done {
		w.CompletedDateTime = wt(a.completed)
		w.Score = int(math.Round(a.score))
		w.Success = a.score >= float64(r.l.MinimumScore)
		w.EarnedStars = int(math.Round(math.Max(0, math.Min(a.score, 100)) * 3 / 100)) // 0 to 3
	}
	return w
}

// v2CourseProgress has one record per course and user who can reach it or has
// progress in it.
func v2CourseProgress(c *exchange) {
	f, ok := c.filter("modifiedSinceDateTime")
	if !ok {
		return
	}
	// Without a time bound the account view says which records exist,
	// and only the page's records are worked out in full.
	rows := filtered(c.st.view().rows, f, func(r courseRow) bool {
		modified := f.from
		if !f.from.IsZero() {
			modified = c.st.courseState(r.u, r.cr).modified
		}
		return f.match(c.st, r.u.ID, r.cr.ID, modified)
	})
	pageMap(c, rows, func(r courseRow) wireCourseProgress {
		return toWireCourseProgress(r, c.st.courseState(r.u, r.cr))
	})
}

func toWireCourseProgress(r courseRow, cs courseState) wireCourseProgress {
	u, cr := r.u, r.cr
	w := wireCourseProgress{
		UserID: u.ID, UserExternalID: u.ExternalID, UserName: u.Name,
		UserFirstName: u.FirstName, UserLastName: u.LastName,
		CourseID: cr.ID, CourseExternalID: cr.ExternalID, CourseTitle: cr.Title,
		Unlocked: cs.unlocked, UnlockedDateTime: wt(cs.unlockedAt),
		Opened: !cs.openedAt.IsZero(), OpenedDateTime: wt(cs.openedAt),
		Completed: cs.completed, CompletedDateTime: wt(cs.completedAt),
		LessonsTotal: cs.lessonsTotal, LessonsCompleted: cs.lessonsCompleted,
		PercentageCompleted: cs.percentage, Score: cs.score,
	}
	if cs.unlocked {
		w.LessonsUnlocked = cs.lessonsTotal
	}
	return w
}

// v2CourseStatistics counts, per course, the users who can reach it, who
// opened any of its lessons and who completed it.
func v2CourseStatistics(c *exchange) {
	out := []wireCourseStatistics{}
	view := c.st.view()
	for _, cr := range c.st.courses.All() {
		w := wireCourseStatistics{CourseID: cr.ID}
		// Only users with a course progress record count anywhere.
		for _, r := range view.byCourse[cr.ID] {
			cs := c.st.courseState(r.u, cr)
			w.TotalUsers += fakeserver.Btoi(cs.unlocked)
			w.OpenedCount += fakeserver.Btoi(!cs.openedAt.IsZero())
			w.CompletedCount += fakeserver.Btoi(cs.completed)
		}
		out = append(out, w)
	}
	pageOf(c, out)
}

// v2LessonStatistics counts, per lesson, the users who can reach its
// course, who opened it and who completed it.
func v2LessonStatistics(c *exchange) {
	out := []wireLessonStatistics{}
	view := c.st.view()
	for _, cr := range c.st.courses.All() {
		for _, l := range c.st.courseLessons(cr) {
			w := wireLessonStatistics{LessonID: l.ID, CourseID: cr.ID, LessonTitle: l.Title, TotalUsers: view.reach[cr.ID]}
			// A user with progress in the lesson has a course record.
			for _, r := range view.byCourse[cr.ID] {
				p := c.st.progress(r.u.ID, l.ID)
				w.OpenedCount += fakeserver.Btoi(p != nil)
				w.CompletedCount += fakeserver.Btoi(p != nil && !p.completed.IsZero())
			}
			out = append(out, w)
		}
	}
	pageOf(c, out)
}

func (c *exchange) progressEvents(f filter) {
	items := filtered(c.st.events, f, func(e *progressEvent) bool {
		return f.match(c.st, e.userID, e.courseID, e.at)
	})
	pageMap(c, items, func(e *progressEvent) wireProgressEvent { return toWireProgressEvent(c.st, e) })
}

func toWireProgressEvent(st *store, e *progressEvent) wireProgressEvent {
	r := st.refs(e.userID, e.lessonID, e.courseID)
	w := wireProgressEvent{
		UserID: e.userID, CourseID: e.courseID, CourseTitle: r.c.Title,
		CourseExternalID: r.c.ExternalID, LessonID: e.lessonID, LessonTitle: r.l.Title,
		LessonExternalID: r.l.ExternalID, EventName: e.name, EventDateTime: wt(e.at),
	}
	w.UserEmail, w.UserFirstName, w.UserLastName = r.u.Email, r.u.FirstName, r.u.LastName
	w.LessonScore = e.score
	return w
}

// v2LessonProgressEvents lists LessonOpened and LessonCompleted events;
// minEventDateTime bounds eventDateTime.
func v2LessonProgressEvents(c *exchange) {
	if f, ok := c.filter("minEventDateTime"); ok {
		c.progressEvents(f)
	}
}

func v2UserLessonProgressEvents(c *exchange) {
	u := c.userParam()
	if u == nil {
		return
	}
	if f, ok := c.filter("minEventDateTime"); ok {
		f.userID = u.ID
		c.progressEvents(f)
	}
}

// v2UserLessonProgress lists every published lesson of the courses the user
// can reach, and every lesson with recorded progress.
func v2UserLessonProgress(c *exchange) {
	u := c.userParam()
	if u == nil {
		return
	}
	out := []wireLessonProgress{}
	for _, cr := range c.st.courses.All() {
		_, reach := c.st.access(u, cr.ID)
		for _, l := range c.st.courseLessons(cr) {
			p := c.st.progress(u.ID, l.ID)
			if p == nil && !(reach && l.published()) {
				continue
			}
			w := wireLessonProgress{UserID: u.ID, CourseID: cr.ID, LessonID: l.ID, LessonTitle: l.Title}
			if p != nil {
				w.Opened, w.OpenedDateTime = true, wt(p.opened)
				w.Completed, w.CompletedDateTime = !p.completed.IsZero(), wt(p.completed)
				w.Score, w.Attempts = p.score, len(p.attempts)
			}
			out = append(out, w)
		}
	}
	pageOf(c, out)
}

func v2SurveyQuestions(c *exchange) {
	pageMap(c, c.st.questions.All(), func(q *wireSurveyQuestion) wireSurveyQuestion { return *q })
}

// v2SurveyAnswers lists answers; startDateTime bounds answeredDateTime.
func v2SurveyAnswers(c *exchange) {
	f, ok := c.filter("startDateTime")
	if !ok {
		return
	}
	items := filtered(c.st.answers, f, func(a *surveyAnswer) bool {
		return f.match(c.st, a.userID, c.st.questions.Get(a.questionID).CourseID, a.at)
	})
	pageMap(c, items, func(a *surveyAnswer) wireSurveyAnswer { return toWireSurveyAnswer(c.st, a) })
}

func toWireSurveyAnswer(st *store, a *surveyAnswer) wireSurveyAnswer {
	q := st.questions.Get(a.questionID) // never deleted
	r := st.refs(a.userID, q.LessonID, q.CourseID)
	return wireSurveyAnswer{
		ID: a.ID, CourseID: q.CourseID, CourseExternalID: r.c.ExternalID,
		LessonID: q.LessonID, LessonExternalID: r.l.ExternalID, SlideID: q.SlideID,
		UserID: a.userID, UserExternalID: r.u.ExternalID, AttemptID: a.attemptID,
		QuestionID: q.ID, QuestionContent: q.QuestionContent,
		AnswerDefinitionID: a.answerDefID, AnswerContent: a.content,
		AnsweredDateTime: wt(a.at),
	}
}
