package fakedata

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/edapp-go/edapp/edapptest"
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

// RealisticAccount is the shape the docs and the load tests quote.
var RealisticAccount = AccountSpec{Users: 5000, Groups: 300, Collections: 20, Courses: 200, Lessons: 8, Attempts: 200_000}

// SeedAccount loads a synthetic account of the given shape into an
// EdApp fake, for load tests and exports, through the fake's seeding
// methods. The same spec on the same clock gives the same data.
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
// survey question. Collection n is LOAD-COLNNN. Learners join and courses
// are assigned 120 days before the fake's clock.
//
// Attempts go round the learners who reach a course; a learner's attempts
// take the published lessons they reach in course order, then start again
// (retakes). Each attempt starts at a pseudo-random time in the 90 days
// before the fake's clock, lasts 2 to 30 minutes and scores 40 to 100.
// They are recorded with [edapptest.Server.AddAttempt], so no webhook is
// delivered; every other attempt at a lesson with a survey question
// answers it.
//
// It fails with [edapptest.ErrInvalid] for a negative count or when there
// is nobody or no published lesson to attempt, and with
// [edapptest.ErrConflict] when a generated username or external id is
// taken; nothing is changed then.
func SeedAccount(s *edapptest.Server, spec AccountSpec) error {
	for _, n := range []int{spec.Users, spec.Groups, spec.Collections, spec.Courses, spec.Lessons, spec.Attempts} {
		if n < 0 {
			return fmt.Errorf("%w: SeedAccount: counts must not be negative (%+v)", edapptest.ErrInvalid, spec)
		}
	}
	if spec.Lessons == 0 {
		spec.Lessons = 3
	}
	snap := s.Snapshot()
	run := &loadRun{s: s, spec: spec, snap: snap, now: snap.Now, joined: snap.Now.Add(-120 * 24 * time.Hour),
		questions: map[string]question{}, published: map[string][]string{}}
	if err := run.checkFree(); err != nil {
		return err
	}
	for _, step := range []func() error{run.addCollections, run.addCourses, run.addGroups, run.addLearners, run.addAttempts} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// loadRun is one SeedAccount: what it made so far.
type loadRun struct {
	s      *edapptest.Server
	spec   AccountSpec
	snap   edapptest.Snapshot // the account before the run
	now    time.Time
	joined time.Time // when the learners joined and the courses were assigned

	collections []string            // the new collections
	courses     []string            // the courses the attempts go to
	published   map[string][]string // their published lessons, by course
	groups      []loadGroup         // the new groups
	learners    []learner           // the users the attempts go to
	questions   map[string]question // the new survey questions, by lesson
}

type loadGroup struct{ id, parent string }

type learner struct {
	id     string
	groups []string
}

type question struct{ id, lesson string }

// Names for the generated learners.
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

// nextNumber is the number the fake gives the next id of a kind: one
// more than the highest among ids ("usr_7" is 7).
func nextNumber[T any](records []T, id func(T) string) int {
	high := 0
	for _, r := range records {
		if _, n, ok := strings.Cut(id(r), "_"); ok {
			if v, err := strconv.Atoi(n); err == nil {
				high = max(high, v)
			}
		}
	}
	return high + 1
}

func conflict(format string, args ...any) error {
	return fmt.Errorf("%w: %s", edapptest.ErrConflict, fmt.Sprintf(format, args...))
}

func noAttempts() error {
	return fmt.Errorf("%w: SeedAccount: no published lesson to attempt", edapptest.ErrInvalid)
}

// checkFree refuses a load whose names are taken or that has nothing to
// attempt, before anything changes.
func (run *loadRun) checkFree() error {
	snap, spec := run.snap, run.spec
	taken := takenNames(snap)
	first := nextNumber(snap.Users, func(u edapptest.SnapshotUser) string { return u.ID })
	for n := first; n < first+spec.Users; n++ {
		username, ext := learnerNames(n)
		if taken["username "+username] {
			return conflict("username %q is taken", username)
		}
		if taken["external id "+ext] {
			return conflict("external id %q is taken", ext)
		}
	}
	if spec.Users == 0 && spec.Attempts > 0 && len(snap.Users) == 0 {
		return fmt.Errorf("%w: SeedAccount: no users to spread the attempts over", edapptest.ErrInvalid)
	}
	first = nextNumber(snap.Courses, func(c edapptest.SnapshotCourse) string { return c.ID })
	for n := first; n < first+spec.Courses; n++ {
		if taken["course external id "+loadCourseExt(n)] {
			return conflict("course external id %q is taken", loadCourseExt(n))
		}
	}
	first = nextNumber(snap.Collections, func(c edapptest.SnapshotCollection) string { return c.ID })
	for n := first; n < first+spec.Collections; n++ {
		if taken["collection external id "+loadCollectionExt(n)] {
			return conflict("collection external id %q is taken", loadCollectionExt(n))
		}
	}
	if spec.Courses == 0 && spec.Attempts > 0 && len(snap.Courses) > 0 && len(run.existingCourses()) == 0 {
		return noAttempts()
	}
	return nil
}

// existingCourses lists the courses there with a published lesson, and
// notes those lessons.
func (run *loadRun) existingCourses() []string {
	status := map[string]string{}
	for _, l := range run.snap.Lessons {
		status[l.ID] = l.Status
	}
	var out []string
	for _, c := range run.snap.Courses {
		var pub []string
		for _, id := range c.LessonIDs {
			if strings.EqualFold(status[id], "published") {
				pub = append(pub, id)
			}
		}
		if len(pub) > 0 {
			out = append(out, c.ID)
			run.published[c.ID] = pub
		}
	}
	return out
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
	first := nextNumber(run.snap.Collections, func(c edapptest.SnapshotCollection) string { return c.ID })
	for n := first; n < first+run.spec.Collections; n++ {
		id, err := run.s.AddCollection(edapptest.CollectionSpec{ExternalID: loadCollectionExt(n),
			Title: fmt.Sprintf("Collection %03d", n), Description: "A synthetic course collection."})
		if err != nil {
			return err
		}
		run.collections = append(run.collections, id)
	}
	return nil
}

// addCourses adds the spec's courses, or picks the courses there (adding
// one when there is none).
func (run *loadRun) addCourses() error {
	if run.spec.Courses > 0 {
		first := nextNumber(run.snap.Courses, func(c edapptest.SnapshotCourse) string { return c.ID })
		for i := range run.spec.Courses {
			if err := run.addCourse(i, first+i); err != nil {
				return err
			}
		}
		return nil
	}
	if len(run.snap.Courses) == 0 {
		id, lessons, err := run.s.AddCourse(siteInduction(run.joined))
		if err != nil {
			return err
		}
		run.courses, run.published[id] = []string{id}, lessons
		return nil
	}
	run.courses = run.existingCourses()
	if len(run.courses) == 0 && run.spec.Attempts > 0 {
		return noAttempts()
	}
	return nil
}

func siteInduction(created time.Time) edapptest.CourseSpec {
	return edapptest.CourseSpec{
		Title: "Site Induction", ExternalID: "LOAD-101", Duration: 45, Created: created,
		Description: "What every new starter needs on day one.",
		Lessons: []edapptest.LessonSpec{
			{Title: "Welcome", ExternalID: "LOAD-101-1", MinimumScore: 50},
			{Title: "Hazards on site", ExternalID: "LOAD-101-2", MinimumScore: 70},
			{Title: "Emergency procedures", ExternalID: "LOAD-101-3", MinimumScore: 80},
		},
	}
}

// collectionsOf places course i: one in ten in no collection, one in
// three of the others in two.
func collectionsOf(i int, cols []string) []string {
	if len(cols) == 0 || i%10 == 9 {
		return nil
	}
	out := []string{cols[i%len(cols)]}
	if second := cols[(i*7+3)%len(cols)]; i%3 == 0 && second != out[0] {
		out = append(out, second)
	}
	return out
}

// addCourse adds the i-th new course, number n, with its lessons and a
// survey question on its first lesson.
func (run *loadRun) addCourse(i, n int) error {
	ext := loadCourseExt(n)
	spec := edapptest.CourseSpec{Title: fmt.Sprintf("Course %04d", n), ExternalID: ext, Duration: 10 + 5*(i%12),
		Description: "A synthetic course.", CollectionIDs: collectionsOf(i, run.collections), Created: run.joined}
	for k := 1; k <= run.spec.Lessons; k++ {
		spec.Lessons = append(spec.Lessons, edapptest.LessonSpec{Title: fmt.Sprintf("Lesson %d", k),
			ExternalID: fmt.Sprintf("%s-L%d", ext, k), MinimumScore: 50 + 10*(k%4)})
	}
	id, lessons, err := run.s.AddCourse(spec)
	if err != nil {
		return err
	}
	run.courses, run.published[id] = append(run.courses, id), lessons
	q, _, err := run.s.AddSurveyQuestion(edapptest.SurveyQuestionSpec{LessonID: lessons[0], Type: "rating",
		Content: "<p>How useful was this lesson?</p>"})
	run.questions[lessons[0]] = question{id: q, lesson: lessons[0]}
	return err
}

// addGroups adds the spec's groups and their hierarchy, each with the
// courses assigned to it: each course to two of them. Without groups, one
// "Load" group reaches every course.
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
	assigned := make([][]string, len(names))
	for i, c := range run.courses {
		for _, j := range []int{i % len(names), (i*7 + 3) % len(names)} {
			if !slices.Contains(assigned[j], c) {
				assigned[j] = append(assigned[j], c)
			}
		}
	}
	for j, name := range names {
		parent := ""
		if j >= 3 && j%3 != 2 {
			parent = run.groups[j/3-1].id
		}
		id, err := run.s.AddGroup(edapptest.GroupSpec{Name: name, ParentID: parent, CourseIDs: assigned[j], Created: run.joined})
		if err != nil {
			return err
		}
		run.groups = append(run.groups, loadGroup{id: id, parent: parent})
	}
	return nil
}

// addLearners adds the spec's learners with their groups; without new
// learners the attempts go to the users there.
func (run *loadRun) addLearners() error {
	if run.spec.Users == 0 {
		for _, u := range run.snap.Users {
			run.learners = append(run.learners, learner{id: u.ID, groups: u.UserGroups})
		}
		return nil
	}
	rng := run.rng(1)
	first := nextNumber(run.snap.Users, func(u edapptest.SnapshotUser) string { return u.ID })
	run.learners = make([]learner, 0, run.spec.Users)
	for i := range run.spec.Users {
		username, ext := learnerNames(first + i)
		groups := run.memberships(rng)
		id, err := run.s.AddUser(edapptest.UserSpec{Username: username, ExternalID: ext,
			Email: username + "@example.com", FirstName: loadFirstNames[i%len(loadFirstNames)],
			LastName: loadLastNames[(i/len(loadFirstNames))%len(loadLastNames)],
			TimeZone: loadZones[i%len(loadZones)], Groups: groups, CustomFields: map[string]string{}, Joined: run.joined})
		if err != nil {
			return err
		}
		run.learners = append(run.learners, learner{id: id, groups: groups})
	}
	return nil
}

// memberships draws a learner's groups: every learner is in the one Load
// group; with Groups, about one in twenty is in none and the others in 1
// to 3.
func (run *loadRun) memberships(rng *rand.Rand) []string {
	if run.spec.Groups == 0 {
		return []string{run.groups[0].id}
	}
	if rng.IntN(20) == 0 {
		return []string{}
	}
	var out []string
	for range 1 + rng.IntN(3) {
		g := run.groups[rng.IntN(len(run.groups))].id
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}
