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
// Outside a test, NewServer starts one and Close stops it. NewUnstarted
// makes one that listens nowhere, and HandlerWith mounts it beside
// another service on one port (`edapp fake --safetyculture` serves it
// beside the EdApp fake). WithLatency delays every answer, as a distant
// service would.
//
// # One company, two services
//
// fakedata.SeedMigration fills the fake with the migrated copy of an
// edapptest account, through the seeding methods: the same people under
// new ids, completions carried over as SafetyCulture's migration carries
// them, planted differences and activity that happened only after the
// move, each named in the Migration it returns.
//
// # Routes and shapes
//
// Routes lists every route. What is known of the service is followed
// where it is known; elsewhere the fake's choice is said at the handler:
//
//   - GET /accounts/user/v1/user:WhoAmI answers {user_id, organisation_id,
//     firstname, lastname}: the token's owner, the first user added (the
//     one added with [UserSpec.Owner]).
//   - The catalogue and the analytics answer camelCase, page (1-based,
//     default 1) and pageSize (or page_size; default 25, at most 1000; a
//     bad value gets 400) with {totalCount, items}; the lessons of a
//     course answer {lessons: [...]} and the rankings every participant at
//     once. A course carries LessonCount capitalised, as the live service
//     was seen to send it. The analytics parameters and fields are
//     inferred from the EdApp reads they mirror.
//   - The feeds answer {metadata: {next_page, ...}, data: [...]} in
//     snake_case, limit 1 to 1000 (default 100). next_page is a relative
//     path carrying its own cursor and the first request's filters, null
//     on the last page. The org feeds add remaining_records; the
//     course-progress feed adds next_page_token instead
//     ([WithCamelCaseFeed] makes its rows camelCase).
//   - The filters SafetyCulture's exporter sends are honoured: /feed/users
//     lists active users unless include_inactive=true; /feed/sites leaves
//     deleted sites out unless include_deleted=true, and with
//     show_only_leaf_nodes=true lists only the sites no listed site has for
//     a parent; the course-progress feed takes completion_status (or
//     completionStatus; COMPLETION_STATUS_ALL by default, _COMPLETED,
//     _NON_COMPLETED), modifiedAfter, courseId, userId and, on a first
//     page, offset. [WithModifiedAfterIgnored] makes it ignore
//     modifiedAfter, as a service that does not know the parameter would.
//   - Webhooks: GET/POST /webhooks/v1/webhooks, GET/PUT/DELETE
//     /webhooks/v1/webhooks/{id} ({webhook_id, url, trigger_events}),
//     GET /webhooks/v1/token and POST to regenerate it ({token}).
//     CompleteLesson delivers training events in the service's envelope
//     ({webhook_id, version, event, resource, data}), signed with the hex
//     HMAC-SHA256 of the body in x-safetyculture-signature.
//   - Errors are {code, message, details} with gRPC codes: 401 without
//     the token, 404 for an unknown route or id, 400 for a bad parameter
//     or body, 413 for a body over MaxBodyBytes, 429 over a rate limit.
//
// # Rate limits, counters, overrides, lag
//
// Each route has its own fixed window: 200 requests a minute for the
// catalogue endpoints the service's table lists, 800 for every other
// ([ClassOf], [WithLimits] to scale them, [WithClock] to move through
// them). Every answer carries x-ratelimit-limit, x-ratelimit-remaining and
// x-ratelimit-reset (whole seconds to the window's end); over the limit
// the answer is 429. RequestCount counts requests by route; Handle
// replaces a route's answer. [WithAnalyticsLag] publishes analytics rows
// only some time after the fake recorded them, as the service's warehouse
// does.
package sctest
