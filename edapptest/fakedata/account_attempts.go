package fakedata

import (
	"slices"
	"strconv"
	"time"

	"github.com/edapp-go/edapp/edapptest"
)

// taker is a learner who gets attempts, with the lessons they take in
// turn.
type taker struct {
	user    string
	lessons []lessonRef
	first   int // the lesson the taker starts with
}

type lessonRef struct{ id, course string }

// plannedAttempt is an attempt before it is recorded.
type plannedAttempt struct {
	user    string
	lesson  string
	started time.Time
	took    time.Duration
	score   float64
}

// addAttempts plans the attempts and records them in start order.
func (run *loadRun) addAttempts() error {
	if run.spec.Attempts == 0 {
		return nil
	}
	takers := run.takers()
	if len(takers) == 0 {
		return noAttempts()
	}
	return run.record(run.plan(takers))
}

// lessonsOf lists the published lessons of the courses at positions idx
// of run.courses, in course order.
func (run *loadRun) lessonsOf(idx []int) []lessonRef {
	var out []lessonRef
	for _, i := range idx {
		c := run.courses[i]
		for _, l := range run.published[c] {
			out = append(out, lessonRef{l, c})
		}
	}
	return out
}

// takers gives each learner the published lessons they reach, in course
// order; without new groups, every learner takes every lesson. When
// nobody reaches a course, everybody takes every lesson.
func (run *loadRun) takers() []taker {
	all := run.lessonsOf(indexes(len(run.courses)))
	if len(all) == 0 {
		return nil
	}
	var out []taker
	if run.spec.Groups > 0 {
		reach := run.reachByGroup()
		for _, u := range run.learners {
			if ls := run.reachable(u, reach); len(ls) > 0 {
				out = append(out, taker{u.id, ls, firstLesson(ls, len(out))})
			}
		}
	}
	if len(out) == 0 {
		for _, u := range run.learners {
			out = append(out, taker{u.id, all, 0})
		}
	}
	return out
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// firstLesson picks the first lesson of the n-th taker's courses, going
// round them, so that learners do not all start with their first course
// and every course gets attempts.
func firstLesson(lessons []lessonRef, n int) int {
	var starts []int
	for i, l := range lessons {
		if i == 0 || l.course != lessons[i-1].course {
			starts = append(starts, i)
		}
	}
	return starts[n%len(starts)]
}

// reachByGroup lists, for each new group, the positions in run.courses of
// the courses assigned to it or to an ancestor.
func (run *loadRun) reachByGroup() map[string][]int {
	pos := make(map[string]int, len(run.courses))
	for i, c := range run.courses {
		pos[c] = i
	}
	assigned, parent := map[string][]string{}, map[string]string{}
	snap := run.s.Snapshot()
	for _, g := range snap.Groups {
		assigned[g.ID], parent[g.ID] = g.CourseIDs, g.ParentID
	}
	out := map[string][]int{}
	for _, g := range run.groups {
		var idx []int
		for a := g.id; a != ""; a = parent[a] {
			for _, c := range assigned[a] {
				if i, ok := pos[c]; ok && !slices.Contains(idx, i) {
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
func (run *loadRun) reachable(u learner, reach map[string][]int) []lessonRef {
	var idx []int
	for _, g := range u.groups {
		for _, i := range reach[g] {
			if !slices.Contains(idx, i) {
				idx = append(idx, i)
			}
		}
	}
	slices.Sort(idx)
	return run.lessonsOf(idx)
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
			user: t.user, lesson: t.lessons[(t.first+k)%len(t.lessons)].id,
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

// record stores the planned attempts, and answers the survey question of
// a lesson on every other attempt at it: the better the score, the higher
// the rating.
func (run *loadRun) record(plans []plannedAttempt) error {
	asked := 0
	for _, p := range plans {
		done := p.started.Add(p.took)
		if _, err := run.s.AddAttempt(edapptest.AttemptSpec{UserID: p.user, LessonID: p.lesson,
			Started: p.started, Completed: done, Score: p.score}); err != nil {
			return err
		}
		q, ok := run.questions[p.lesson]
		if !ok {
			continue
		}
		if asked++; asked%2 == 1 {
			rating := strconv.Itoa(1 + min(4, int(p.score-40)*5/61))
			if _, err := run.s.AddSurveyAnswer(edapptest.SurveyAnswerSpec{UserID: p.user, QuestionID: q.id,
				Answer: rating, Time: done}); err != nil {
				return err
			}
		}
	}
	return nil
}
