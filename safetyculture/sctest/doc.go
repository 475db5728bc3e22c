// Package sctest is an in-memory, stateful fake of SafetyCulture's
// Training API and the organisation feeds a training export joins to,
// served over loopback, for tests and examples that cannot reach the real
// service.
//
//	fake := sctest.New(t) // closed when the test ends; a handler panic fails the test
//	uid, _ := fake.AddUser(sctest.UserSpec{Email: "ana@example.com", FirstName: "Ana"})
//	cid, lids, _ := fake.AddCourse(sctest.CourseSpec{Title: "Induction", Lessons: []sctest.LessonSpec{{Title: "Welcome"}}})
//	_ = fake.CompleteLesson(uid, lids[0], 90, time.Time{})
//	// GET fake.URL + "/training/v1/feed/training-course-progress" with "Authorization: Bearer " + fake.Token
//
// Outside a test, NewServer starts one and Close stops it; NewUnstarted
// makes one that listens nowhere, for HandlerWith to mount beside another
// service on one port. fakedata.SeedMigration fills it with the migrated
// copy of an edapptest account.
//
// What is known of the service is followed where it is known; elsewhere
// the fake's choice is said at the handler. The catalogue and the
// analytics answer camelCase pages ({totalCount, items}); the feeds answer
// snake_case {metadata, data} with a relative next_page. Errors are
// {code, message, details} with gRPC codes. Each route has its own fixed
// rate-limit window ([WithLimits]) and every answer carries the
// x-ratelimit headers. CompleteLesson delivers training events to the
// registered webhooks, signed in x-safetyculture-signature.
package sctest

//go:generate go run github.com/edapp-go/edapp/internal/wiregen/cmd/wiregen -pkg sctest wire.shapes wire_gen.go
