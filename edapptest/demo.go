package edapptest

import (
	"time"
)

// Demo holds the ids of the data SeedDemo loads.
type Demo struct {
	// CollectionID is "Workplace Safety" (external id SAFETY).
	CollectionID string
	// CourseIDs are "Manual Handling" (MH-101) and "Fire Safety" (FS-101).
	CourseIDs []string
	// LessonIDs holds the lesson ids of each course, in course order.
	LessonIDs [][]string
	// GroupIDs are "Company" (invite code COMPANY), its children
	// "Warehouse" (WAREHOUSE) and "Office" (OFFICE), and "Night Shift"
	// (NIGHTSHIFT), a child of Warehouse.
	GroupIDs []string
	// UserIDs are alice (Office, account admin and manager of Warehouse),
	// bob (Warehouse), carol (Night Shift) and dave (Company).
	UserIDs []string
	// SurveyQuestionID is a rating question on the first Fire Safety
	// lesson, which alice answered.
	SurveyQuestionID string
}

// SeedDemo loads a small demo account: a collection with two courses and
// their lessons, a group hierarchy with invite codes, four users and some
// progress. Fire Safety is assigned to Company, so every user reaches it;
// Manual Handling is assigned to Warehouse, so bob and carol (Night Shift
// is below Warehouse) reach it and alice (Office) does not. bob has
// completed Manual Handling; carol failed its first lesson; alice completed
// the first Fire Safety lesson and answered its survey. Progress is dated
// in the days before the server's clock. The deliveries the progress causes
// go to the webhooks registered at the time. SeedDemo fails with
// [ErrConflict] when the demo's usernames, external ids or invite codes are
// already taken (for instance on a second call).
func (s *Server) SeedDemo() (Demo, error) {
	var d Demo
	var ps []pending
	err := s.locked(func(_ *store, now time.Time) error { return s.seedDemo(&d, now, &ps) })
	s.deliver(ps)
	return d, err
}

func (s *Server) seedDemo(d *Demo, now time.Time, ps *[]pending) error {
	st := s.st
	if err := st.checkDemoFree(); err != nil {
		return err
	}
	start := now.Add(-7 * 24 * time.Hour)
	if err := st.addDemoCatalog(d, start); err != nil {
		return err
	}
	if err := st.addDemoGroups(d, start); err != nil {
		return err
	}
	users, err := st.addDemoUsers(d, start)
	if err != nil {
		return err
	}
	events := st.addDemoProgress(d, users, now)
	*ps = s.plan(now, events)
	return nil
}

// checkDemoFree refuses a demo whose names are taken, before anything
// changes.
func (st *store) checkDemoFree() error {
	for _, code := range []string{"COMPANY", "WAREHOUSE", "OFFICE", "NIGHTSHIFT"} {
		if st.groupByInviteCode(code) != nil {
			return conflict("invite code %q is taken", code)
		}
	}
	for _, name := range []string{"alice", "bob", "carol", "dave"} {
		if st.userByUsername(name) != nil {
			return conflict("username %q is taken", name)
		}
	}
	for _, ext := range []string{"MH-101", "FS-101"} {
		if st.courseByExternalID(ext) != nil {
			return conflict("course external id %q is taken", ext)
		}
	}
	for _, l := range st.lessons.all() {
		switch l.externalID {
		case "MH-101-1", "MH-101-2", "MH-101-3", "FS-101-1", "FS-101-2":
			return conflict("lesson external id %q is taken", l.externalID)
		}
	}
	if st.collectionByExternalID("SAFETY") != nil {
		return conflict("collection external id %q is taken", "SAFETY")
	}
	for _, name := range []string{"EMP-001", "EMP-002", "EMP-003", "EMP-004"} {
		if st.userByExternalID(name) != nil {
			return conflict("external id %q is taken", name)
		}
	}
	return nil
}

// addDemoCatalog adds the collection and its two courses.
func (st *store) addDemoCatalog(d *Demo, start time.Time) error {
	d.CollectionID = st.newID("col")
	st.collections.add(d.CollectionID, &collection{id: d.CollectionID, externalID: "SAFETY", title: "Workplace Safety",
		description: "Essential safety training for every site."})
	in := []string{d.CollectionID}
	courses := []CourseSpec{
		{Title: "Manual Handling", ExternalID: "MH-101", CollectionIDs: in, Duration: 30,
			Description: "Lift, carry and move loads without injury.",
			Lessons: []LessonSpec{
				{Title: "Lifting basics", ExternalID: "MH-101-1", MinimumScore: 70},
				{Title: "Team lifts", ExternalID: "MH-101-2", MinimumScore: 70},
				{Title: "Manual handling quiz", ExternalID: "MH-101-3", MinimumScore: 80},
			}},
		{Title: "Fire Safety", ExternalID: "FS-101", CollectionIDs: in, Duration: 20,
			Description: "Prevent fires and know what to do when one starts.",
			Lessons: []LessonSpec{
				{Title: "Extinguishers", ExternalID: "FS-101-1", MinimumScore: 60},
				{Title: "Evacuation", ExternalID: "FS-101-2", MinimumScore: 60},
			}},
	}
	for _, spec := range courses {
		id, lessons, err := st.addCourse(spec, start)
		if err != nil {
			return err
		}
		d.CourseIDs = append(d.CourseIDs, id)
		d.LessonIDs = append(d.LessonIDs, lessons)
	}
	return nil
}

// addDemoGroups adds the hierarchy and assigns the courses: Fire Safety
// to Company, Manual Handling to Warehouse.
func (st *store) addDemoGroups(d *Demo, start time.Time) error {
	company, err := st.addGroup("Company", "", "COMPANY")
	if err != nil {
		return err
	}
	warehouse, _ := st.addGroup("Warehouse", company.id, "WAREHOUSE")
	office, _ := st.addGroup("Office", company.id, "OFFICE")
	night, _ := st.addGroup("Night Shift", warehouse.id, "NIGHTSHIFT")
	d.GroupIDs = []string{company.id, warehouse.id, office.id, night.id}
	company.courses = append(company.courses, assignment{d.CourseIDs[1], start})
	warehouse.courses = append(warehouse.courses, assignment{d.CourseIDs[0], start})
	return nil
}

// addDemoUsers adds alice, bob, carol and dave.
func (st *store) addDemoUsers(d *Demo, start time.Time) ([]*user, error) {
	company, warehouse, office, night := d.GroupIDs[0], d.GroupIDs[1], d.GroupIDs[2], d.GroupIDs[3]
	people := []UserSpec{
		{Username: "alice", Email: "alice@example.com", FirstName: "Alice", LastName: "Archer",
			ExternalID: "EMP-001", TimeZone: "Australia/Sydney", Groups: []string{office},
			Roles:         []string{"app-user", "prizing-user", "account-admin", "manager-analytics"},
			ManagedGroups: []string{warehouse}, CustomFields: map[string]string{"site": "Sydney"}},
		{Username: "bob", Email: "bob@example.com", FirstName: "Bob", LastName: "Baker",
			ExternalID: "EMP-002", TimeZone: "Australia/Melbourne", Groups: []string{warehouse},
			CustomFields: map[string]string{"site": "Melbourne"}},
		{Username: "carol", Email: "carol@example.com", FirstName: "Carol", LastName: "Chen",
			ExternalID: "EMP-003", TimeZone: "Australia/Perth", Groups: []string{night}},
		{Username: "dave", Email: "dave@example.com", FirstName: "Dave", LastName: "Diaz",
			ExternalID: "EMP-004", Groups: []string{company}},
	}
	var users []*user
	for _, spec := range people {
		u := &user{}
		if err := st.applyUser(u, spec.patch(), start); err != nil {
			return nil, err
		}
		users = append(users, u)
		d.UserIDs = append(d.UserIDs, u.id)
	}
	return users, nil
}

// addDemoProgress records the demo's progress and returns the events it
// causes: bob completes Manual Handling, carol fails its first lesson and
// opens the second, alice completes the first Fire Safety lesson and
// answers its survey.
func (st *store) addDemoProgress(d *Demo, users []*user, now time.Time) []outEvent {
	alice, bob, carol := users[0], users[1], users[2]
	mh, fs := d.LessonIDs[0], d.LessonIDs[1]
	lesson := func(id string) *lesson { return st.lessons.get(id) }
	day := 24 * time.Hour

	var events []outEvent
	at := now.Add(-5 * day)
	for i, id := range mh {
		st.open(bob, lesson(id), at)
		st.interactions = append(st.interactions,
			&interaction{userID: bob.id, lessonID: id, slide: "Introduction", kind: InteractionView, at: at, duration: 45 * time.Second},
			&interaction{userID: bob.id, lessonID: id, slide: "Check", kind: InteractionSlide, at: at.Add(time.Minute), correct: true})
		at = at.Add(4 * time.Minute)
		events = append(events, st.complete(bob, lesson(id), float64(85+5*i), at)...)
		at = at.Add(time.Hour)
	}
	at = now.Add(-3 * day)
	st.open(carol, lesson(mh[0]), at)
	events = append(events, st.complete(carol, lesson(mh[0]), 55, at.Add(6*time.Minute))...)
	st.open(carol, lesson(mh[1]), at.Add(time.Hour))

	at = now.Add(-2 * day)
	st.open(alice, lesson(fs[0]), at)
	events = append(events, st.complete(alice, lesson(fs[0]), 100, at.Add(3*time.Minute))...)

	q := st.addRatingQuestion(d.CourseIDs[1], fs[0], "<p>How useful was this course?</p>")
	d.SurveyQuestionID = q.id
	st.answers = append(st.answers, &surveyAnswer{id: st.newID("sra"), questionID: q.id, userID: alice.id,
		attemptID: st.latestAttempt(alice.id, fs[0]).id, answerDefID: q.answers[4].id,
		content: q.answers[4].content, at: at.Add(4 * time.Minute)})
	return events
}
