// Package sctest is an in-memory, stateful fake of SafetyCulture's
// Training API and the organisation feeds a training export joins to,
// served over loopback, for tests and examples.
//
//	fake := sctest.New(t) // closed when the test ends; a handler panic fails the test
//	uid, _ := fake.AddUser(sctest.UserSpec{Email: "ana@example.com", FirstName: "Ana"})
//	cid, lids, _ := fake.AddCourse(sctest.CourseSpec{Title: "Induction", Lessons: []sctest.LessonSpec{{Title: "Welcome"}}})
//	_ = fake.CompleteLesson(uid, lids[0], 90, time.Time{})
//	// GET fake.URL + "/training/v1/feed/training-course-progress" with "Authorization: Bearer " + fake.Token
//
// What is known of the service is followed; elsewhere the fake's choice
// is said at the handler. Each route has its own rate-limit window
// ([WithLimits]). fakedata.SeedMigration fills the fake with the migrated
// copy of an edapptest account.
package sctest

//go:generate go test -run TestWireGenIsCurrent -update
