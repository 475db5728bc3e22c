// Package edapptest is an in-memory, stateful fake of the whole EdApp REST
// service (v1 and v2 sharing one account), served over loopback, for tests
// and examples that cannot reach the real service.
//
//	srv := edapptest.New(t) // closed when the test ends; a handler panic fails the test
//	demo, err := fakedata.SeedDemo(srv) // or AddCourse, AddGroup, AddUser, AddAttempt...
//	if err != nil { ... }
//	client := srv.Client() // an *edapp.Client pointed at srv.URL with srv.Token
//	page, err := client.Users.List(ctx, nil)
//	...
//	srv.CompleteLesson(demo.UserIDs[1], demo.LessonIDs[1][0], 90) // delivers LessonCompletedEvent
//
// Outside a test, [NewServer] starts one and Close stops it; Handler
// mounts it on another server. Every API request needs
// "Authorization: Bearer <Token>".
//
// Every kind of record has one seeding helper, AddX(spec), returning the
// new id (if it has one) and an error. The helpers named with a verb
// (OpenLesson, CompleteLesson, PublishCourse, AssignCourse...) do what a
// learner or an author does, and deliver the webhooks it causes. The
// generators of whole accounts are in the fakedata package.
//
// FailNext, FailNextOn, WithLatency and Handle change what the fake
// answers; Requests, Deliveries and RequestCount tell what a client sent;
// WithBudget enforces the service's request budget on WithClock's clock.
// The fake's rules (access through the group hierarchy, the learner's
// side, the wire format, its extensions, webhooks, faults and the request
// log) are set out in the repository's docs/testing.md.
package edapptest
