package edapptest

import (
	"slices"
	"time"
)

// taker is a learner who gets attempts, with the lessons they take in
// turn.
type taker struct {
	u       *user
	lessons []*lesson
	first   int // the lesson the taker starts with
}

// plannedAttempt is an attempt before it is recorded.
type plannedAttempt struct {
	u       *user
	l       *lesson
	started time.Time
	took    time.Duration
	score   float64
}

// addAttempts plans the attempts, records them in start order, then the
// course completions they make.
func (run *loadRun) addAttempts() error {
	if run.spec.Attempts == 0 {
		return nil
	}
	takers := run.takers()
	if len(takers) == 0 {
		return invalid("SeedAccount: no published lesson to attempt")
	}
	run.record(run.plan(takers))
	run.completeCourses(takers)
	return nil
}

// takers gives each learner the published lessons they reach, in course
// order; without new groups, every learner takes every lesson. When
// nobody reaches a course, everybody takes every lesson.
func (run *loadRun) takers() []taker {
	var all []*lesson
	for _, c := range run.courses {
		all = append(all, run.st.publishedLessons(c)...)
	}
	if len(all) == 0 {
		return nil
	}
	var out []taker
	if run.spec.Groups > 0 {
		reach := run.reachByGroup()
		for _, u := range run.learners {
			if ls := run.reachable(u, reach); len(ls) > 0 {
				out = append(out, taker{u, ls, firstLesson(ls, len(out))})
			}
		}
	}
	if len(out) == 0 {
		for _, u := range run.learners {
			out = append(out, taker{u, all, 0})
		}
	}
	return out
}

// firstLesson picks the first lesson of the n-th taker's courses, going
// round them, so that learners do not all start with their first course
// and every course gets attempts.
func firstLesson(lessons []*lesson, n int) int {
	var starts []int
	for i, l := range lessons {
		if i == 0 || l.courseID != lessons[i-1].courseID {
			starts = append(starts, i)
		}
	}
	return starts[n%len(starts)]
}

// reachByGroup lists, for each group, the positions in run.courses of the
// courses assigned to it or to an ancestor.
func (run *loadRun) reachByGroup() map[string][]int {
	pos := make(map[string]int, len(run.courses))
	for i, c := range run.courses {
		pos[c.id] = i
	}
	out := map[string][]int{}
	for _, g := range run.st.groups.all() {
		var idx []int
		for _, a := range run.st.ancestors(g) {
			for _, as := range a.courses {
				if i, ok := pos[as.courseID]; ok && !slices.Contains(idx, i) {
					idx = append(idx, i)
				}
			}
		}
		slices.Sort(idx)
		out[g.id] = idx
	}
	return out
}

// reachable lists the published lessons of the courses u reaches through
// its groups, in course order.
func (run *loadRun) reachable(u *user, reach map[string][]int) []*lesson {
	var idx []int
	for _, m := range u.groups {
		for _, i := range reach[m.groupID] {
			if !slices.Contains(idx, i) {
				idx = append(idx, i)
			}
		}
	}
	slices.Sort(idx)
	var out []*lesson
	for _, i := range idx {
		out = append(out, run.st.publishedLessons(run.courses[i])...)
	}
	return out
}

// plan draws the attempts: they go round the takers, a taker's k-th
// attempt at their k-th lesson (modulo), with pseudo-random times that are
// then put in order per taker and sorted overall.
func (run *loadRun) plan(takers []taker) []plannedAttempt {
	n, day := run.spec.Attempts, 24*time.Hour
	rng := run.rng(0)
	span := int64(90 * day)
	plans := make([]plannedAttempt, n)
	for i := range plans {
		t := takers[i%len(takers)]
		k := i / len(takers) // this taker's k-th attempt
		plans[i] = plannedAttempt{
			u: t.u, l: t.lessons[(t.first+k)%len(t.lessons)],
			started: run.now.Add(-time.Duration(span - rng.Int64N(span-int64(time.Hour)))).Truncate(time.Millisecond),
			took:    time.Duration(2+rng.IntN(29)) * time.Minute,
			score:   float64(40 + rng.IntN(61)),
		}
	}
	// A learner takes the lessons in order: give each taker's attempts
	// its start times in order.
	L := len(takers)
	times := make([]time.Time, 0, n/L+1)
	for j := 0; j < L && j < n; j++ {
		times = times[:0]
		for i := j; i < n; i += L {
			times = append(times, plans[i].started)
		}
		slices.SortFunc(times, time.Time.Compare)
		for k, i := 0, j; i < n; k, i = k+1, i+L {
			plans[i].started = times[k]
		}
	}
	slices.SortStableFunc(plans, func(a, b plannedAttempt) int { return a.started.Compare(b.started) })
	return plans
}

// record stores the planned attempts with their progress events, and
// answers the survey question of a lesson on every other attempt at it.
func (run *loadRun) record(plans []plannedAttempt) {
	st := run.st
	st.attempts = slices.Grow(st.attempts, len(plans))
	st.events = slices.Grow(st.events, 2*len(plans))
	asked := 0
	for _, p := range plans {
		done := p.started.Add(p.took)
		a := &attempt{id: st.newID("att"), userID: p.u.id, lessonID: p.l.id, courseID: p.l.courseID,
			started: p.started, completed: done, score: p.score, done: true}
		st.addAttempt(a)
		st.events = append(st.events,
			&progressEvent{userID: p.u.id, lessonID: p.l.id, courseID: p.l.courseID, name: eventLessonOpened, at: p.started},
			&progressEvent{userID: p.u.id, lessonID: p.l.id, courseID: p.l.courseID, name: eventLessonCompleted,
				at: done, score: p.score, hasScore: true})
		if done.After(p.u.lastActive) {
			p.u.lastActive = done
		}
		if q := run.questions[p.l.id]; q != nil {
			if asked++; asked%2 == 1 {
				st.answerRating(q, a)
			}
		}
	}
}

// answerRating answers a rating question for an attempt: the better the
// score, the higher the rating.
func (st *store) answerRating(q *surveyQuestion, a *attempt) {
	d := q.answers[min(len(q.answers)-1, int(a.score-40)*len(q.answers)/61)]
	st.answers = append(st.answers, &surveyAnswer{id: st.newID("sra"), questionID: q.id, userID: a.userID,
		attemptID: a.id, answerDefID: d.id, content: d.content, at: a.completed})
}

// completeCourses records a course as completed for a taker when its last
// published lesson was first completed.
func (run *loadRun) completeCourses(takers []taker) {
	st := run.st
	for _, t := range takers {
		var seen []string
		for _, l := range t.lessons {
			if slices.Contains(seen, l.courseID) {
				continue
			}
			seen = append(seen, l.courseID)
			key := ucKey{t.u.id, l.courseID}
			if _, ok := st.completions[key]; ok {
				continue
			}
			if at, ok := st.lastFirstCompletion(t.u, st.courses.get(l.courseID)); ok {
				st.completions[key] = at
			}
		}
	}
}

// lastFirstCompletion reports when u first completed the last of the
// course's published lessons, and false while one is not completed.
func (st *store) lastFirstCompletion(u *user, c *course) (time.Time, bool) {
	var last time.Time
	pub := st.publishedLessons(c)
	for _, l := range pub {
		p := st.progress(u.id, l.id)
		if p == nil || p.completed.IsZero() {
			return time.Time{}, false
		}
		if p.completed.After(last) {
			last = p.completed
		}
	}
	return last, len(pub) > 0
}
