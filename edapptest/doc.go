// Package edapptest is an in-memory, stateful fake of the whole EdApp REST
// service (v1 and v2 sharing one account), served over loopback, for tests
// and examples that cannot reach the real service.
//
//	srv := edapptest.New(t) // closed when the test ends; a handler panic fails the test
//	demo, err := fakedata.SeedDemo(srv) // or AddCourse, AddGroup, AddUser, AddAttempt...
//	client := srv.Client() // an *edapp.Client pointed at srv.URL with srv.Token
//	page, err := client.Users.List(ctx, nil)
//	srv.CompleteLesson(demo.UserIDs[1], demo.LessonIDs[1][0], 90) // delivers LessonCompletedEvent
//
// Every kind of record has one seeding helper, AddX(spec); the helpers named
// with a verb (CompleteLesson, PublishCourse...) act as a learner or an
// author and deliver the webhooks that causes. The fake's rules are set out
// in the repository's docs/testing.md.
package edapptest

//go:generate go test -run TestWireGenIsCurrent -update
