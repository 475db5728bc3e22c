package edapptest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// CollectionSpec describes a course collection for AddCollectionSpec.
type CollectionSpec struct {
	Title       string // required
	ExternalID  string // optional; unique among collections
	Description string
}

// AddCollectionSpec adds a course collection and returns its id. Unlike
// AddCollection it can set the external id, and it fails with ErrInvalid
// without a title and with ErrConflict when the external id is taken.
func (s *Server) AddCollectionSpec(spec CollectionSpec) (string, error) {
	var id string
	err := s.locked(func(st *store, _ time.Time) error {
		if strings.TrimSpace(spec.Title) == "" {
			return invalid("collection title is required")
		}
		if spec.ExternalID != "" && st.collectionByExternalID(spec.ExternalID) != nil {
			return conflict("collection external id %q is taken", spec.ExternalID)
		}
		id = st.newID("col")
		st.collections.add(id, &collection{id: id, externalID: spec.ExternalID,
			title: spec.Title, description: spec.Description})
		return nil
	})
	return id, err
}

func (st *store) collectionByExternalID(ext string) *collection {
	for _, c := range st.collections.all() {
		if c.externalID == ext {
			return c
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

// SeedLoad loads a large account quickly, for load tests and exports: it
// adds users learners and attempts completed attempts spread over them.
//
// When the account has no course it first adds one, "Site Induction"
// (external id LOAD-101), with three published lessons. The learners join
// a new group, "Load", to which every course with a published lesson is
// assigned, 120 days before the server's clock. Learner n (its user id
// is usr_n) is learnerNNNNNN with external id LOAD-NNNNNN and an
// example.com email. Attempts go round the learners; a learner's attempts
// take the published lessons in course order, then start again (retakes).
// Each attempt starts at a pseudo-random time in the 90 days before the
// server's clock, lasts 2 to 30 minutes and scores 40 to 100; the same
// arguments on the same clock give the same data. Attempts, lesson-progress
// events and course completions are recorded as CompleteLesson would record
// them, but no webhook is delivered. With users == 0 the attempts are
// spread over the existing users instead.
//
// It fails with ErrInvalid for a negative count or when there is nobody or
// no published lesson to attempt, and with ErrConflict when a generated
// username or external id is taken; nothing is changed then.
func (s *Server) SeedLoad(users, attempts int) error {
	if users < 0 || attempts < 0 {
		return invalid("SeedLoad: counts must not be negative (users %d, attempts %d)", users, attempts)
	}
	return s.locked(func(st *store, now time.Time) error { return st.seedLoad(users, attempts, now) })
}

func (st *store) seedLoad(nUsers, nAttempts int, now time.Time) error {
	// Validate everything before the first change.
	first := st.seq["usr"] + 1
	name := func(n int) (username, ext string) {
		return fmt.Sprintf("learner%06d", n), fmt.Sprintf("LOAD-%06d", n)
	}
	for n := first; n < first+nUsers; n++ {
		username, ext := name(n)
		if st.userByUsername(username) != nil {
			return conflict("username %q is taken", username)
		}
		if st.userByExternalID(ext) != nil {
			return conflict("external id %q is taken", ext)
		}
	}
	if nUsers == 0 && nAttempts > 0 && st.users.len() == 0 {
		return invalid("SeedLoad: no users to spread the attempts over")
	}
	day := 24 * time.Hour
	joined := now.Add(-120 * day)
	if st.courses.len() == 0 {
		if _, _, err := st.addCourse(CourseSpec{
			Title: "Site Induction", ExternalID: "LOAD-101", Duration: 45,
			Description: "What every new starter needs on day one.",
			Lessons: []LessonSpec{
				{Title: "Welcome", ExternalID: "LOAD-101-1", MinimumScore: 50},
				{Title: "Hazards on site", ExternalID: "LOAD-101-2", MinimumScore: 70},
				{Title: "Emergency procedures", ExternalID: "LOAD-101-3", MinimumScore: 80},
			},
		}, joined); err != nil {
			return err
		}
	}
	var lessons []*lesson
	var courses []*course
	for _, c := range st.courses.all() {
		if pub := st.publishedLessons(c); len(pub) > 0 {
			courses = append(courses, c)
			lessons = append(lessons, pub...)
		}
	}
	if len(lessons) == 0 && nAttempts > 0 {
		return invalid("SeedLoad: no published lesson to attempt")
	}

	var learners []*user
	if nUsers > 0 {
		g, err := st.addGroup("Load", "", "")
		if err != nil {
			return err
		}
		for _, c := range courses {
			g.courses = append(g.courses, assignment{c.id, joined})
		}
		learners = make([]*user, 0, nUsers)
		for i := range nUsers {
			n := first + i
			username, ext := name(n)
			fn, ln := loadFirstNames[i%len(loadFirstNames)], loadLastNames[(i/len(loadFirstNames))%len(loadLastNames)]
			u := &user{
				id: st.newID("usr"), username: username, externalID: ext,
				email: username + "@example.com", firstName: fn, lastName: ln,
				timeZone: loadZones[i%len(loadZones)], roles: slices.Clone(defaultRoles),
				groups: []membership{{g.id, joined}}, customFields: map[string]string{},
			}
			st.users.add(u.id, u)
			st.indexUser(u, "", "")
			learners = append(learners, u)
		}
	} else {
		learners = st.users.all()
	}
	if nAttempts == 0 {
		return nil
	}

	// Plan the attempts, then record them in start order.
	type plan struct {
		u       *user
		l       *lesson
		started time.Time
		took    time.Duration
		score   float64
	}
	rng := rand.New(rand.NewPCG(uint64(nUsers), uint64(nAttempts)))
	span := int64(90 * day)
	plans := make([]plan, nAttempts)
	for i := range plans {
		u := learners[i%len(learners)]
		k := i / len(learners) // this learner's k-th attempt
		plans[i] = plan{
			u: u, l: lessons[k%len(lessons)],
			started: now.Add(-time.Duration(span - rng.Int64N(span-int64(time.Hour)))).Truncate(time.Millisecond),
			took:    time.Duration(2+rng.IntN(29)) * time.Minute,
			score:   float64(40 + rng.IntN(61)),
		}
	}
	// A learner takes the lessons in order: give each learner's attempts
	// its start times in order, then record everything in start order.
	L := len(learners)
	times := make([]time.Time, 0, nAttempts/L+1)
	for j := 0; j < L && j < nAttempts; j++ {
		times = times[:0]
		for i := j; i < nAttempts; i += L {
			times = append(times, plans[i].started)
		}
		slices.SortFunc(times, time.Time.Compare)
		for k, i := 0, j; i < nAttempts; k, i = k+1, i+L {
			plans[i].started = times[k]
		}
	}
	slices.SortFunc(plans, func(a, b plan) int { return a.started.Compare(b.started) })
	st.attempts = slices.Grow(st.attempts, nAttempts)
	st.events = slices.Grow(st.events, 2*nAttempts)
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
	}
	// A course is completed when its last published lesson is first
	// completed.
	for _, u := range learners {
		for _, c := range courses {
			key := ucKey{u.id, c.id}
			if _, ok := st.completions[key]; ok {
				continue
			}
			var last time.Time
			complete := true
			for _, l := range st.publishedLessons(c) {
				p := st.progress(u.id, l.id)
				if p == nil || p.completed.IsZero() {
					complete = false
					break
				}
				if p.completed.After(last) {
					last = p.completed
				}
			}
			if complete {
				st.completions[key] = last
			}
		}
	}
	return nil
}
