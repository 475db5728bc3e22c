package fakedata

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/edapp-go/edapp/edapptest"
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

// SeedDemo loads a small demo account into an EdApp fake: a collection
// with two courses and their lessons, a group hierarchy with invite codes,
// four users and some progress. Fire Safety is assigned to Company, so
// every user reaches it; Manual Handling is assigned to Warehouse, so bob
// and carol (Night Shift is below Warehouse) reach it and alice (Office)
// does not. bob has completed Manual Handling; carol failed its first
// lesson; alice completed the first Fire Safety lesson and answered its
// survey. Progress is dated in the days before the fake's clock. The
// deliveries the progress causes go to the webhooks registered at the
// time. SeedDemo fails with [edapptest.ErrConflict] when the demo's
// usernames, external ids or invite codes are already taken (for instance
// on a second call), and changes nothing then.
func SeedDemo(s *edapptest.Server) (Demo, error) {
	var d Demo
	snap := s.Snapshot()
	if err := checkDemoFree(snap); err != nil {
		return d, err
	}
	start := snap.Now.Add(-7 * 24 * time.Hour)
	for _, step := range []func(*edapptest.Server, *Demo, time.Time) error{addDemoCatalog, addDemoGroups, addDemoUsers} {
		if err := step(s, &d, start); err != nil {
			return d, err
		}
	}
	return d, addDemoProgress(s, &d, snap.Now)
}

// checkDemoFree refuses a demo whose names are taken, before anything
// changes.
func checkDemoFree(snap edapptest.Snapshot) error {
	taken := takenNames(snap)
	for _, name := range []string{"invite code COMPANY", "invite code WAREHOUSE", "invite code OFFICE",
		"invite code NIGHTSHIFT", "username alice", "username bob", "username carol", "username dave",
		"course external id MH-101", "course external id FS-101", "lesson external id MH-101-1",
		"lesson external id MH-101-2", "lesson external id MH-101-3", "lesson external id FS-101-1",
		"lesson external id FS-101-2", "collection external id SAFETY", "external id EMP-001",
		"external id EMP-002", "external id EMP-003", "external id EMP-004"} {
		if taken[name] {
			return fmt.Errorf("%w: %s is taken", edapptest.ErrConflict, name)
		}
	}
	return nil
}

// takenNames marks the names the account uses that an added record may not
// reuse, each as "invite code X", "username x" (lower case), "external id
// x" (a user's), or "course", "lesson" or "collection external id x".
func takenNames(snap edapptest.Snapshot) map[string]bool {
	taken := map[string]bool{}
	for _, g := range snap.Groups {
		taken["invite code "+strings.ToUpper(g.InviteCode)] = true
	}
	for _, u := range snap.Users {
		taken["username "+strings.ToLower(u.Name)], taken["external id "+u.ExternalID] = true, true
	}
	for _, c := range snap.Courses {
		taken["course external id "+c.ExternalID] = true
	}
	for _, l := range snap.Lessons {
		taken["lesson external id "+l.ExternalID] = true
	}
	for _, c := range snap.Collections {
		taken["collection external id "+c.ExternalID] = true
	}
	return taken
}

// addDemoCatalog adds the collection and its two courses.
func addDemoCatalog(s *edapptest.Server, d *Demo, start time.Time) error {
	var err error
	d.CollectionID, err = s.AddCollection(edapptest.CollectionSpec{ExternalID: "SAFETY", Title: "Workplace Safety",
		Description: "Essential safety training for every site."})
	if err != nil {
		return err
	}
	in := []string{d.CollectionID}
	courses := []edapptest.CourseSpec{
		{Title: "Manual Handling", ExternalID: "MH-101", CollectionIDs: in, Duration: 30, Created: start,
			Description: "Lift, carry and move loads without injury.",
			Lessons: []edapptest.LessonSpec{
				{Title: "Lifting basics", ExternalID: "MH-101-1", MinimumScore: 70},
				{Title: "Team lifts", ExternalID: "MH-101-2", MinimumScore: 70},
				{Title: "Manual handling quiz", ExternalID: "MH-101-3", MinimumScore: 80},
			}},
		{Title: "Fire Safety", ExternalID: "FS-101", CollectionIDs: in, Duration: 20, Created: start,
			Description: "Prevent fires and know what to do when one starts.",
			Lessons: []edapptest.LessonSpec{
				{Title: "Extinguishers", ExternalID: "FS-101-1", MinimumScore: 60},
				{Title: "Evacuation", ExternalID: "FS-101-2", MinimumScore: 60},
			}},
	}
	for _, spec := range courses {
		id, lessons, err := s.AddCourse(spec)
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
func addDemoGroups(s *edapptest.Server, d *Demo, start time.Time) error {
	specs := []edapptest.GroupSpec{
		{Name: "Company", InviteCode: "COMPANY", CourseIDs: d.CourseIDs[1:2]},
		{Name: "Warehouse", InviteCode: "WAREHOUSE", CourseIDs: d.CourseIDs[0:1]},
		{Name: "Office", InviteCode: "OFFICE"},
		{Name: "Night Shift", InviteCode: "NIGHTSHIFT"},
	}
	parents := []int{-1, 0, 0, 1}
	for i, spec := range specs {
		if p := parents[i]; p >= 0 {
			spec.ParentID = d.GroupIDs[p]
		}
		spec.Created = start
		id, err := s.AddGroup(spec)
		if err != nil {
			return err
		}
		d.GroupIDs = append(d.GroupIDs, id)
	}
	return nil
}

// addDemoUsers adds alice, bob, carol and dave.
func addDemoUsers(s *edapptest.Server, d *Demo, start time.Time) error {
	company, warehouse, office, night := d.GroupIDs[0], d.GroupIDs[1], d.GroupIDs[2], d.GroupIDs[3]
	people := []edapptest.UserSpec{
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
	for _, spec := range people {
		spec.Joined = start
		id, err := s.AddUser(spec)
		if err != nil {
			return err
		}
		d.UserIDs = append(d.UserIDs, id)
	}
	return nil
}

// addDemoProgress records the demo's progress, delivering the webhooks
// it causes: bob completes Manual Handling, carol fails its first lesson
// and opens the second, alice completes the first Fire Safety lesson and
// answers its survey.
func addDemoProgress(s *edapptest.Server, d *Demo, now time.Time) error {
	alice, bob, carol := d.UserIDs[0], d.UserIDs[1], d.UserIDs[2]
	mh, fs := d.LessonIDs[0], d.LessonIDs[1]
	day := 24 * time.Hour
	var errs []error
	attempt := func(user, lesson string, started, completed time.Time, score float64) {
		_, err := s.AddAttempt(edapptest.AttemptSpec{UserID: user, LessonID: lesson, Started: started,
			Completed: completed, Score: score, Deliver: true})
		errs = append(errs, err)
	}
	at := now.Add(-5 * day)
	for i, id := range mh {
		errs = append(errs,
			s.AddInteraction(edapptest.Interaction{UserID: bob, LessonID: id, Slide: "Introduction",
				Type: edapptest.InteractionView, Time: at, Duration: 45 * time.Second}),
			s.AddInteraction(edapptest.Interaction{UserID: bob, LessonID: id, Slide: "Check",
				Type: edapptest.InteractionSlide, Time: at.Add(time.Minute), Correct: true}))
		attempt(bob, id, at, at.Add(4*time.Minute), float64(85+5*i))
		at = at.Add(4*time.Minute + time.Hour)
	}
	at = now.Add(-3 * day)
	attempt(carol, mh[0], at, at.Add(6*time.Minute), 55)
	attempt(carol, mh[1], at.Add(time.Hour), time.Time{}, 0)

	at = now.Add(-2 * day)
	attempt(alice, fs[0], at, at.Add(3*time.Minute), 100)
	q, answers, err := s.AddSurveyQuestion(edapptest.SurveyQuestionSpec{LessonID: fs[0], Type: "rating",
		Content: "<p>How useful was this course?</p>"})
	d.SurveyQuestionID = q
	if err == nil {
		_, err = s.AddSurveyAnswer(edapptest.SurveyAnswerSpec{UserID: alice, QuestionID: q,
			Answer: answers[4], Time: at.Add(4 * time.Minute)})
	}
	return errors.Join(append(errs, err)...)
}
