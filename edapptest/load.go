package edapptest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// AccountSpec is the shape of a synthetic account for SeedAccount. With
// only Users and Attempts set it is the simple shape: one group and one
// course of three lessons.
type AccountSpec struct {
	// Users is the number of learners to add. With 0, the attempts are
	// spread over the users already there.
	Users int
	// Groups is the number of user groups to add. With 0, one group,
	// "Load", holds every new learner and reaches every course.
	Groups int
	// Collections is the number of course collections to add; the new
	// courses are spread over them.
	Collections int
	// Courses is the number of courses to add. With 0, the courses
	// already there are used, and when there is none one is added: "Site
	// Induction" (external id LOAD-101) with three lessons.
	Courses int
	// Lessons is the number of lessons of each new course; 0 means 3.
	Lessons int
	// Attempts is the number of completed attempts to spread over the
	// learners.
	Attempts int
}

// realisticAccount is the shape the docs and the load test quote.
var realisticAccount = AccountSpec{Users: 5000, Groups: 300, Collections: 20, Courses: 200, Lessons: 8, Attempts: 200_000}

// SeedAccount loads a synthetic account of the given shape quickly, for
// load tests and exports; it is the fake's one generator of synthetic
// data. The same spec on the same clock gives the same
// data; the realistic shape (5,000 users, 300 groups, 20 collections, 200
// courses of 8 lessons, 200,000 attempts) loads in a few seconds.
//
// Learner n (its user id is usr_n) is learnerNNNNNN with external id
// LOAD-NNNNNN and an example.com email. With Groups, "Load Group 004" and
// "005" are children of "001", "007" and "008" of "002", and so on (a
// third of the groups have children), each learner belongs to 0 to 3 of
// them (about one in twenty to none), and each new course is assigned to
// two of them (or to one, when it draws the same group twice), so
// a learner reaches the courses of their groups and of their groups'
// ancestors. Course n is "Course NNNN" (external id LOAD-CNNNN), published
// with Lessons published lessons (LOAD-CNNNN-Lk), in one or two of the
// new collections (one in ten in none); its first lesson carries a rating
// survey question. Collection n is LOAD-COLNNN.
//
// Attempts go round the learners who reach a course; a learner's attempts
// take the published lessons they reach in course order, then start again
// (retakes). Each attempt starts at a pseudo-random time in the 90 days
// before the server's clock, lasts 2 to 30 minutes and scores 40 to 100.
// Attempts, lesson-progress events and course completions are recorded
// as CompleteLesson would record them, but no webhook is delivered; every
// other attempt at a lesson with a survey question answers it.
//
// It fails with [ErrInvalid] for a negative count or when there is nobody or
// no published lesson to attempt, and with [ErrConflict] when a generated
// username or external id is taken; nothing is changed then.
func (s *Server) SeedAccount(spec AccountSpec) error {
	if err := spec.check(); err != nil {
		return err
	}
	return s.locked(func(st *store, now time.Time) error { return st.seedAccount(spec, now) })
}

func (spec AccountSpec) check() error {
	for _, n := range []int{spec.Users, spec.Groups, spec.Collections, spec.Courses, spec.Lessons, spec.Attempts} {
		if n < 0 {
			return invalid("SeedAccount: counts must not be negative (%+v)", spec)
		}
	}
	return nil
}

// loadRun is one SeedAccount: what it made so far.
type loadRun struct {
	st       *store
	spec     AccountSpec
	now      time.Time
	joined   time.Time // when the learners joined and the courses were assigned
	courses  []*course // the courses the attempts go to
	groups   []*group  // the new groups
	learners []*user   // the users the attempts go to
	// questions are the new survey questions by lesson id.
	questions map[string]*surveyQuestion
}

func (st *store) seedAccount(spec AccountSpec, now time.Time) error {
	if spec.Lessons == 0 {
		spec.Lessons = 3
	}
	run := &loadRun{st: st, spec: spec, now: now, joined: now.Add(-120 * 24 * time.Hour),
		questions: map[string]*surveyQuestion{}}
	// Check everything before the first change.
	if err := run.checkFree(); err != nil {
		return err
	}
	steps := []func() error{
		run.addCollections, run.addCourses, run.addGroups, run.addLearners, run.addAttempts,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// Load data: names for the generated learners.
var (
	loadFirstNames = []string{"Ava", "Ben", "Chloe", "Dan", "Ella", "Finn", "Grace", "Hugo", "Isla", "Jack", "Kai", "Lily", "Mia", "Noah", "Olive", "Paul"}
	loadLastNames  = []string{"Nguyen", "Smith", "Patel", "Brown", "Wilson", "Taylor", "Kelly", "Martin", "Lee", "Walker", "Young", "King"}
	loadZones      = []string{"Australia/Sydney", "Australia/Perth", "Europe/London", "America/Chicago", "Asia/Manila"}
)

func learnerNames(n int) (username, ext string) {
	return fmt.Sprintf("learner%06d", n), fmt.Sprintf("LOAD-%06d", n)
}

func loadCourseExt(n int) string     { return fmt.Sprintf("LOAD-C%04d", n) }
func loadCollectionExt(n int) string { return fmt.Sprintf("LOAD-COL%03d", n) }

// checkFree refuses a load whose names are taken or that has nothing to
// attempt, before anything changes.
func (run *loadRun) checkFree() error {
	st, spec := run.st, run.spec
	first := st.seq["usr"] + 1
	for n := first; n < first+spec.Users; n++ {
		username, ext := learnerNames(n)
		if st.userByUsername(username) != nil {
			return conflict("username %q is taken", username)
		}
		if st.userByExternalID(ext) != nil {
			return conflict("external id %q is taken", ext)
		}
	}
	if spec.Users == 0 && spec.Attempts > 0 && st.users.len() == 0 {
		return invalid("SeedAccount: no users to spread the attempts over")
	}
	for n := st.seq["crs"] + 1; n <= st.seq["crs"]+spec.Courses; n++ {
		if st.courseByExternalID(loadCourseExt(n)) != nil {
			return conflict("course external id %q is taken", loadCourseExt(n))
		}
	}
	for n := st.seq["col"] + 1; n <= st.seq["col"]+spec.Collections; n++ {
		if st.collectionByExternalID(loadCollectionExt(n)) != nil {
			return conflict("collection external id %q is taken", loadCollectionExt(n))
		}
	}
	if spec.Courses == 0 && spec.Attempts > 0 && st.courses.len() > 0 && !st.hasPublishedLesson() {
		return invalid("SeedAccount: no published lesson to attempt")
	}
	return nil
}

func (st *store) hasPublishedLesson() bool {
	for _, c := range st.courses.all() {
		if len(st.publishedLessons(c)) > 0 {
			return true
		}
	}
	return false
}

func (st *store) courseByExternalID(ext string) *course {
	for _, c := range st.courses.all() {
		if c.externalID == ext {
			return c
		}
	}
	return nil
}

// rng returns a generator for one step, seeded by the spec, so that each
// step's data depends only on the spec.
func (run *loadRun) rng(step uint64) *rand.Rand {
	s := run.spec
	a := uint64(s.Users)<<32 | uint64(s.Attempts)
	b := uint64(s.Groups)<<40 ^ uint64(s.Collections)<<28 ^ uint64(s.Courses)<<12 ^ uint64(s.Lessons) ^ step<<56
	return rand.New(rand.NewPCG(a, b))
}

func (run *loadRun) addCollections() error {
	for range run.spec.Collections {
		n := run.st.seq["col"] + 1
		id := run.st.newID("col")
		run.st.collections.add(id, &collection{id: id, externalID: loadCollectionExt(n),
			title: fmt.Sprintf("Collection %03d", n), description: "A synthetic course collection."})
	}
	return nil
}

// addCourses adds the spec's courses, or picks the courses there (adding
// one when there is none).
func (run *loadRun) addCourses() error {
	st := run.st
	if run.spec.Courses == 0 {
		if st.courses.len() == 0 {
			if _, _, err := st.addCourse(siteInduction, run.joined); err != nil {
				return err
			}
		}
		for _, c := range st.courses.all() {
			if len(st.publishedLessons(c)) > 0 {
				run.courses = append(run.courses, c)
			}
		}
		if len(run.courses) == 0 && run.spec.Attempts > 0 {
			return invalid("SeedAccount: no published lesson to attempt")
		}
		return nil
	}
	cols := st.collections.all()
	cols = cols[len(cols)-run.spec.Collections:]
	for i := range run.spec.Courses {
		c, err := run.addCourse(i, collectionsOf(i, cols))
		if err != nil {
			return err
		}
		run.courses = append(run.courses, c)
	}
	return nil
}

var siteInduction = CourseSpec{
	Title: "Site Induction", ExternalID: "LOAD-101", Duration: 45,
	Description: "What every new starter needs on day one.",
	Lessons: []LessonSpec{
		{Title: "Welcome", ExternalID: "LOAD-101-1", MinimumScore: 50},
		{Title: "Hazards on site", ExternalID: "LOAD-101-2", MinimumScore: 70},
		{Title: "Emergency procedures", ExternalID: "LOAD-101-3", MinimumScore: 80},
	},
}

// collectionsOf places course i: one in ten in no collection, one in
// three of the others in two.
func collectionsOf(i int, cols []*collection) []string {
	if len(cols) == 0 || i%10 == 9 {
		return nil
	}
	out := []string{cols[i%len(cols)].id}
	if second := cols[(i*7+3)%len(cols)].id; i%3 == 0 && second != out[0] {
		out = append(out, second)
	}
	return out
}

// addCourse adds the i-th new course with its lessons and a survey
// question on its first lesson.
func (run *loadRun) addCourse(i int, collectionIDs []string) (*course, error) {
	n := run.st.seq["crs"] + 1
	ext := loadCourseExt(n)
	spec := CourseSpec{Title: fmt.Sprintf("Course %04d", n), ExternalID: ext, Duration: 10 + 5*(i%12),
		Description: "A synthetic course.", CollectionIDs: collectionIDs}
	for k := 1; k <= run.spec.Lessons; k++ {
		spec.Lessons = append(spec.Lessons, LessonSpec{Title: fmt.Sprintf("Lesson %d", k),
			ExternalID: fmt.Sprintf("%s-L%d", ext, k), MinimumScore: 50 + 10*(k%4)})
	}
	id, lessonIDs, err := run.st.addCourse(spec, run.joined)
	if err != nil {
		return nil, err
	}
	run.questions[lessonIDs[0]] = run.st.addRatingQuestion(id, lessonIDs[0], "<p>How useful was this lesson?</p>")
	return run.st.courses.get(id), nil
}

func (st *store) addRatingQuestion(courseID, lessonID, content string) *surveyQuestion {
	q := &surveyQuestion{id: st.newID("srq"), courseID: courseID, lessonID: lessonID,
		slideID: st.newID("sld"), qtype: "rating", content: content}
	for _, c := range []string{"1", "2", "3", "4", "5"} {
		q.answers = append(q.answers, answerDef{st.newID("sad"), c})
	}
	st.questions.add(q.id, q)
	return q
}

// addGroups adds the spec's groups and their hierarchy and assigns each
// course to two of them; without groups, one "Load" group reaches every
// course.
func (run *loadRun) addGroups() error {
	if run.spec.Users == 0 && run.spec.Groups == 0 {
		return nil
	}
	names := []string{"Load"}
	if run.spec.Groups > 0 {
		names = names[:0]
		for j := range run.spec.Groups {
			names = append(names, fmt.Sprintf("Load Group %03d", j+1))
		}
	}
	for j, name := range names {
		parent := ""
		if j >= 3 && j%3 != 2 {
			parent = run.groups[j/3-1].id
		}
		g, err := run.st.addGroup(name, parent, "")
		if err != nil {
			return err
		}
		run.groups = append(run.groups, g)
	}
	for i, c := range run.courses {
		for _, j := range []int{i % len(run.groups), (i*7 + 3) % len(run.groups)} {
			if g := run.groups[j]; !slices.Contains(g.courseIDs(), c.id) {
				g.courses = append(g.courses, assignment{c.id, run.joined})
			}
		}
	}
	return nil
}

// addLearners adds the spec's learners with their groups; without new
// learners the attempts go to the users there.
func (run *loadRun) addLearners() error {
	st := run.st
	if run.spec.Users == 0 {
		run.learners = st.users.all()
		return nil
	}
	rng := run.rng(1)
	run.learners = make([]*user, 0, run.spec.Users)
	for i := range run.spec.Users {
		username, ext := learnerNames(st.seq["usr"] + 1)
		u := &user{
			id: st.newID("usr"), username: username, externalID: ext,
			email: username + "@example.com", firstName: loadFirstNames[i%len(loadFirstNames)],
			lastName: loadLastNames[(i/len(loadFirstNames))%len(loadLastNames)],
			timeZone: loadZones[i%len(loadZones)], roles: slices.Clone(defaultRoles),
			groups: run.memberships(rng), customFields: map[string]string{},
		}
		st.users.add(u.id, u)
		st.indexUser(u, "", "")
		run.learners = append(run.learners, u)
	}
	return nil
}

// memberships draws a learner's groups: every learner is in the one Load
// group; with Groups, about one in twenty is in none and the others in 1
// to 3.
func (run *loadRun) memberships(rng *rand.Rand) []membership {
	if run.spec.Groups == 0 {
		return []membership{{run.groups[0].id, run.joined}}
	}
	if rng.IntN(20) == 0 {
		return nil
	}
	var out []membership
	for range 1 + rng.IntN(3) {
		g := run.groups[rng.IntN(len(run.groups))]
		if !slices.ContainsFunc(out, func(m membership) bool { return m.groupID == g.id }) {
			out = append(out, membership{g.id, run.joined})
		}
	}
	return out
}
