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
// Outside a test, [NewServer] starts one and Close stops it.
//
// # Seeding
//
// Every kind of record has one helper, AddX(spec) returning the new id and
// an error: AddUser, AddGroup, AddGroupMember, AddGroupChild,
// AddCollection, AddCollectionCourse, AddCourse (which also returns the
// ids of the lessons in its spec), AddLesson, AddAttempt, AddInteraction,
// AddSurveyQuestion (which also returns the answer options' ids),
// AddSurveyAnswer and AddWebhook. Members, children, collection courses
// and slide interactions have no id of their own: those helpers return
// only the error.
// The helpers with a verb for a name (OpenLesson, CompleteLesson,
// PublishCourse, AssignCourse...) do what a learner or an author does, and
// deliver the webhooks it causes.
//
// The fake can also be mounted on another server with Handler, and any HTTP
// client can talk to it: URL is the base of the /v1 and /v2 paths, and every
// request needs "Authorization: Bearer <Token>".
//
// Client turns the SDK's rate limiter off; options passed to it come after
// its defaults, so srv.Client(edapp.WithLimiter(l)), with l from
// edapp.NewWindowLimiter, turns it back on.
//
// # Large data
//
// The generators live in the fakedata package: fakedata.SeedDemo loads a
// small demo account and fakedata.SeedAccount a large account of a real
// shape, through the helpers above.
// The helpers keep indexes by user and lesson, so CompleteLesson and
// AddUser cost the same however much data the fake holds, and a list
// request builds only the records of the page it answers: a page of 1,000
// attempts out of 200,000 costs about as much as one out of 1,000. Reads
// (GET requests, except those that hand out tokens) run side by side;
// writes run one at a time. The latency knob is spent before any lock is
// taken, so concurrent requests overlap.
//
// # Behaviour
//
//   - A course assigned to a group reaches the members of that group and of
//     every descendant group, never the other members of its parent.
//   - A user created with a group's invite code (v2 body field inviteCode,
//     or [UserSpec.InviteCode]) lands in that group.
//   - Usernames (without regard to case), user external ids, course and
//     lesson external ids and invite codes are unique; a duplicate gets 409
//     ([ErrConflict] from the helpers).
//   - POST /v1/users and POST /v1/usergroups with an id update that record
//     (unknown id: 404). A present "users" array replaces a group's members
//     and an empty one removes them all; an absent key leaves them alone.
//     The same goes for "courses", the courses assigned to the group. POST
//     /v1/users takes the external id as externalIdentifier (or externalId).
//     GET /v1/users and GET /v1/usergroups answer every user and group as a
//     bare array.
//   - GET /v1/users/id/{id}/token and GET /v1/users/external/{externalId}/token
//     answer the user's token, {"token": "..."}: opaque, minted on first
//     request, kept for the user's life, accepted nowhere by the fake. Like
//     launch tokens, user tokens never reach the request log or the logger.
//   - GET /v1/users/{id}/courses mints a fresh launch token for every lesson,
//     valid for [LaunchTokenLifetime] (20 minutes) on the server's clock
//     ([WithClock]). Launch links point at the host the request came in on,
//     so with NewServer they start with URL. The launch link is described
//     below (The learner's side).
//   - Learners see published content only: the users' course lists (v1 and
//     v2) hold published courses and their published lessons. The catalog
//     and the analytics show everything.
//   - Progress comes from OpenLesson, CompleteLesson and launch links.
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
// # The learner's side
//
// A program can play the learner, so that an embedding app can be tried
// end to end: the app hands out a launch link, the learner completes the
// lesson, the completion comes back through analytics and webhooks.
// Neither of these two paths needs a bearer token; both answer JSON. The
// edapp command's `edapp fake` serves them as HTML pages for a browser.
//
// GET /launch-lesson?token=&lesson= records a lesson open (a new attempt)
// and answers the launch: lessonId, lessonTitle, courseId, courseTitle,
// userId, learner (the learner's name), minimumScore, expiresAt,
// expiresInSeconds (on the server's clock) and attemptId. A form post of
// the token to /launch-lesson (url-encoded, in the body or the query), with
// a score from 0 to 100 and an action, answers the same fields and the
// outcome: "complete" completes the lesson exactly as CompleteLesson does
// (progress, attempt, course completion and webhook deliveries, made before
// the answer) and says so (completed, score, courseCompleted,
// webhookDeliveries and events, each event with the number of webhooks it
// went to); "leave" changes nothing and leaves the lesson opened but not
// completed. A token can be used, for either, until it expires. An expired
// token gets 410, an unknown or missing one 401, a token for another lesson
// or a bad score 400; none of them changes anything. A form posted from
// another site (by its Origin or Sec-Fetch-Site header) gets 403, a body
// that is not url-encoded 415, and a body over 64 KiB 413.
//
// GET /learner/{userId} is a learner home for a developer looking at the
// fake's state: {"userId", "learner", "courses"}, the user's published
// courses and lessons as GET /v1/users/{id}/courses lists them, with their
// progress and a fresh launch link for each lesson. It shows what the
// learner would see and never the API token.
//
// Neither spends the budget or the injected failures, and neither is
// counted.
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
// Records carry the fields the real service is known to send, and no more:
// a course has id, externalId, title, description, status, locale,
// duration, thumbnailUrl, createdDateTime and modifiedDateTime, in that
// order (no collection id: use GET
// /v2/catalog/coursecollections/{id}/courses); a lesson has id, externalId,
// title, description, status and minimumScore (no courseId; the name of the
// minimum score field is the fake's guess); a course collection has id,
// externalId and title, plus a description (an extension, below).
//
// v2 users are written with the real service's names: name (the username)
// and userGroupsManaged. On input the username is read from name, username
// or userName, and managed groups from managedUserGroups or
// userGroupsManaged; [WithManagedGroupsField] makes the fake honour only one
// of the two, so that a client can be tested against a service that
// ignores the other. PUT /v2/users/{id} changes only the fields present in
// the body. Roles must be among the seven the service knows (app-user,
// prizing-user, account-admin, content-author, manager-analytics,
// exclude-from-analytics, reviewer); a new user without roles gets app-user
// and prizing-user.
//
// Filters: GET /v2/users takes userName (the username or the email, without
// regard to case) and externalId. The analytics lists take courseId,
// courseExternalId, lessonId, lessonExternalId, userId and userExternalId
// where the record has them; attempts and surveyanswers take startDateTime
// and endDateTime (on startedDateTime and answeredDateTime), courseprogress
// takes modifiedSinceDateTime, and the lesson-progress events take
// minEventDateTime and maxEventDateTime. Time bounds are inclusive. They
// take RFC 3339 and the forms other clients send: a space instead of the T
// ("2026-11-22 01:35:07.123456", as Python prints a datetime), offsets
// written +0000 or +00, a "+" that arrived unescaped (read as a space),
// fractions of any length, no zone (UTC), or a plain date. Any other value
// gets 400.
//
// API errors are JSON {"message": "..."}: 401 for a missing or wrong token, 404
// for an unknown route or id, 405 (with Allow) for a wrong method on a known
// path, 400 for a malformed body or parameter, 409 for a duplicate, 413 for
// a body over [MaxBodyBytes] (1 MiB), 429 over the budget ([WithBudget]). The
// token is checked before the body is read: the body of an API request
// without a valid token is never read, and a body over the limit is not read past
// it. A v1 delete of an unknown id answers 404 {"success": false,
// "message": "..."}. Every response carries an X-Request-Id header.
//
// # Extensions
//
// These are the fake's own; the real service may or may not have them:
// GET /v2/webhooks and DELETE /v2/webhooks/{id}; "headers" on POST
// /v2/webhooks (sent with every delivery); "parentId" on POST /v2/usergroups
// and on a v1 group create, to build a hierarchy; "inviteCode" on a v1 group
// create; {"userIds": [...]} and a userId query parameter on the group
// membership operations, which answer {"success": true}; the externalId and
// collectionId filters on GET /v2/catalog/courses; the description of
// course collections. GET /v1/reports/activities answers the latest lesson
// opens and completions, newest first, at most 100, as
// {"type","date","userId","username","courseId","courseTitle","lessonId","lessonTitle","score"?}.
//
// # Webhooks
//
// Event names are the SDK's edapp.EventName constants throughout
// (AddWebhook, Emit, [Delivery.EventName]). The helpers that cause events
// deliver them synchronously before they return: a POST of the event's
// payload (field names and order as the service documents them) with
// Content-Type application/json and the headers given at webhook creation,
// to every webhook registered for the event, each bounded by
// [WithDeliveryTimeout]. Deliveries records each one and its outcome; a
// failed delivery is not retried. Redeliver sends a recorded delivery
// again, and [WithRedeliveries] sends every delivery again n times, so that
// a receiver can be tested against repeated deliveries. CompleteLesson sends LessonCompletedEvent,
// then CourseCompletedEvent when it completes the course. The publish
// helpers send their event once per user who can reach the course, or once
// with empty user fields when nobody can. SendCourseReminder and Emit cover
// the other events. Nothing an API request does causes an event; a
// completion on the launch page does, as CompleteLesson does.
//
// # Fault injection, overrides and counters
//
// FailNext makes the next requests fail with a status and an optional
// Retry-After, and FailNextOn the next requests to one route; [WithLatency]
// and SetLatency delay every request. Handle replaces the fake's answer
// for the requests an http.ServeMux pattern matches, as slacktest's
// Customize.Handle does.
//
// RequestCount and RequestCounts count the requests each route received,
// by route template ("GET /v2/usergroups/{id}/users"), and MaxInFlight
// reports how many requests the fake handled at once at most; ResetCounters
// starts both again. They cost a request two atomic additions.
//
// WithBudget(limit, window) enforces a request budget like the real
// service's (1400 requests per 5 minutes across /v2): over it, /v2 requests get
// 429 with Retry-After, the whole seconds until a slot frees, counted on
// the server's clock. With a fake clock (WithClock) a test can spend and
// recover the budget without waiting.
//
// Requests records every request. The Authorization header reads
// "REDACTED"; so does the value of any token query parameter, and on the
// launch page every copy of the launch token in the query and the headers,
// raw or encoded, including a token posted in its form. The body is kept
// only for an authenticated API request within MaxBodyBytes; the launch
// page's form is never kept, and no log line holds a launch token.
package edapptest
