// Package edapptest is an in-memory, stateful fake of the whole EdApp REST
// service (v1 and v2 sharing one account), served over loopback, for tests
// and examples that cannot reach the real service.
//
//	srv := edapptest.NewServer()
//	defer srv.Close()
//	demo, err := srv.SeedDemo() // or AddCourse, AddGroup, AddUser, AssignCourse...
//	if err != nil { ... }
//	client := srv.Client() // an *edapp.Client pointed at srv.URL with srv.Token
//	page, err := client.Users.List(ctx, nil)
//	...
//	srv.CompleteLesson(demo.UserIDs[1], demo.LessonIDs[1][0], 90) // delivers LessonCompletedEvent
//
// The fake can also be mounted on another server with Handler, and any HTTP
// client can talk to it: URL is the base of the /v1 and /v2 paths, and every
// request needs "Authorization: Bearer <Token>".
//
// # Behaviour
//
//   - A course assigned to a group reaches the members of that group and of
//     every descendant group, never the other members of its parent.
//   - A user created with a group's invite code (v2 body field inviteCode,
//     or UserSpec.InviteCode) lands in that group.
//   - Usernames (without regard to case), user external ids, course and
//     lesson external ids and invite codes are unique; a duplicate gets 409
//     (ErrConflict from the helpers).
//   - POST /v1/users and POST /v1/usergroups with an id update that record
//     (unknown id: 404). A present "users" array replaces a group's members
//     and an empty one removes them all; an absent key leaves them alone.
//     The same goes for "courses", the courses assigned to the group.
//   - GET /v1/users/{id}/courses mints a fresh launch token for every lesson,
//     valid for LaunchTokenLifetime (20 minutes) on the server's clock
//     (WithClock). GET /launch-lesson?token=&lesson= needs no bearer token;
//     it records a lesson open and answers a small HTML page (JSON when the
//     request accepts application/json). An expired token gets 410 "launch
//     token expired", an unknown one 401 "unknown launch token", a token for
//     another lesson 400. Launch links point at the host the request came in
//     on, so with NewServer they start with URL.
//   - Learners see published content only: the users' course lists (v1 and
//     v2) hold published courses and their published lessons. The catalog
//     and the analytics show everything.
//   - Progress comes from OpenLesson, CompleteLesson and the launch page.
//     Each open starts an attempt; a completion closes the user's open
//     attempt (or opens and closes one) with a score. An attempt succeeds
//     when its score reaches the lesson's minimum score, and earns 0 to 3
//     stars (score/100·3, rounded). A course is completed for a user when
//     every published lesson of it has been completed; that is recorded once,
//     when it happens. percentageCompleted is completed published lessons
//     over published lessons, in percent; a course's score is the mean of
//     the latest scores of its completed lessons. The helpers do not check
//     that the user can reach the course.
//   - Deleting a user deletes everything recorded about them. Deleting a
//     group moves its children up to its parent.
//
// # Wire format
//
// Paths and query parameter names match without regard to case, as do JSON
// body field names; ids match exactly. Both /v2/usersgroups and
// /v2/usergroups serve every group operation. Lists take page (1-based,
// default 1) and pageSize (default 25, at most 1000; larger values are
// clamped; values below 1 take the default; a non-number gets 400) and answer
// {"totalCount": n, "items": [...]}, except GET
// /v2/catalog/courses/{id}/lessons and GET /v2/webhooks, which answer a bare
// array. Datetimes are written as UTC with milliseconds
// ("2019-03-07T05:10:36.187Z"); unset ones are null in v2 and left out in
// v1. Ids are opaque strings such as "usr_1", never reused.
//
// v2 users are written with the real service's names: name (the username)
// and userGroupsManaged. On input the username is read from name, username
// or userName, and managed groups from managedUserGroups or
// userGroupsManaged. PUT /v2/users/{id} changes only the fields present in
// the body. Roles must be among the spec's seven; a new user without roles
// gets app-user and prizing-user.
//
// Filters: GET /v2/users takes userName (the username or the email, without
// regard to case) and externalId. The analytics lists take courseId,
// courseExternalId, lessonId, lessonExternalId, userId and userExternalId
// where the record has them; attempts and surveyanswers take startDateTime
// and endDateTime (on startedDateTime and answeredDateTime), courseprogress
// takes modifiedSinceDateTime, and the lesson-progress events take
// minEventDateTime and maxEventDateTime. Time bounds are inclusive and are
// RFC 3339 (a value without a zone is UTC; a plain date is accepted); any
// other value gets 400.
//
// Errors are JSON {"message": "..."}: 401 for a missing or wrong token, 404
// for an unknown route or id, 405 (with Allow) for a wrong method on a known
// path, 400 for a malformed body or parameter, 409 for a duplicate, 413 for
// a body over 1 MiB. A v1 delete of an unknown id answers 404 {"success":
// false, "message": "..."}. Every response carries an X-Request-Id header.
//
// # Extensions
//
// These are not in the spec; the real service may or may not have them:
// GET /v2/webhooks and DELETE /v2/webhooks/{id}; "headers" on POST
// /v2/webhooks (sent with every delivery); "parentId" on POST /v2/usergroups
// and on a v1 group create, to build a hierarchy; "inviteCode" on a v1 group
// create; {"userIds": [...]} and a userId query parameter on the group
// membership operations, which answer {"success": true}; the externalId and
// collectionId filters on GET /v2/catalog/courses; "courseIds" on course
// collections. GET /v1/reports/activities answers the latest lesson opens
// and completions, newest first, at most 100, as
// {"type","date","userId","username","courseId","courseTitle","lessonId","lessonTitle","score"?}.
//
// # Webhooks
//
// The helpers that cause events deliver them synchronously before they
// return: a POST of the spec's payload (field names and order as the spec's
// Events table) with Content-Type application/json and the headers given at
// webhook creation, to every webhook registered for the event, each bounded
// by WithDeliveryTimeout. Deliveries records each one and its outcome; a
// failed delivery is not retried. CompleteLesson sends LessonCompletedEvent,
// then CourseCompletedEvent when it completes the course. The publish
// helpers send their event once per user who can reach the course, or once
// with empty user fields when nobody can. SendCourseReminder and Emit cover
// the other events. Nothing an API request does causes an event.
//
// # Fault injection
//
// FailNext makes the next requests fail with a status and an optional
// Retry-After; WithLatency and SetLatency delay every request; Requests
// records every request with its Authorization header redacted.
package edapptest
