// Package edapp is a typed client for the EdApp REST API (EdApp is now
// SafetyCulture Training): users, user groups, the course catalog, learner
// analytics and webhooks. The legacy v1 operations live in the v1
// subpackage, and edapptest is a stateful fake of the whole service to test
// against.
//
//	client, err := edapp.NewClientFromEnv() // EDAPP_API_TOKEN, and EDAPP_BASE_URL if set
//	if err != nil { ... }
//	for u, err := range client.Users.All(ctx, nil) {
//		if err != nil { ... }
//		fmt.Println(u.Username)
//	}
//
// A *[Client] is safe for concurrent use. Every method takes a context first
// and stops, waits included, when it is done.
//
// # Authentication
//
// The account's API token comes from the admin portal (settings, API
// details). NewClient takes it and sends it as "Authorization: Bearer" on
// every request, to the base URL's own host only: a redirect elsewhere
// never carries it. The token never appears in an error, a log line, a
// [Response] or any printed form of the client.
//
// # Rate limits and the account budget
//
// The service allows 1400 requests in any 5 minutes for the whole account,
// and answers 429 past that. Every attempt the client makes, retries
// included, first waits on its [Limiter]. The default limiter,
// NewWindowLimiter([DefaultBudget], [DefaultBudgetWindow]), lets a burst of the
// whole budget go at once and then holds calls back until the oldest leaves the window; its
// window has 2 seconds of margin against clock skew.
//
// The budget has two lanes. The All iterators, and any call made
// [WithBulk], are bulk and may use at most 90% of each window
// ([WithBulkShare]); interactive calls, such as fetching a learner's launch
// link, may use all of it, so an export never starves the learners.
//
// A 429 pauses every request through the client, not only the one that got
// it (and tells a [Pauser] limiter, which may share the pause with other
// processes): for as long as its Retry-After says, else until its
// X-RateLimit-Reset, else for the retry backoff; a header's pause lasts at
// most one budget window (DefaultBudgetWindow), whatever [RetryPolicy.MaxWait]
// says. An answer with X-RateLimit-Remaining: 0 and a reset pauses the
// client the same way. Each call then decides whether to wait: one whose
// [WithMaxThrottle] or deadline ends before the pause does fails at once with
// [ErrRateLimited] (the call that got the 429 returns that *[APIError], with
// its RetryAfter), instead of retrying into another 429. A wait of over a
// second is logged at info level. A call whose context ends while it is
// held back fails with an error matching both ErrRateLimited and the
// context's error. Response.Waited counts every wait: for the limiter, for
// the pause and between retries.
//
// The budget belongs to the account, not to a process: replicas of one app,
// and other tools on the same token, each have a limiter that believes it
// owns all of it. Share one limiter between them with the redislimit module
// (github.com/edapp-go/edapp/redislimit), which keeps the same window in
// Redis.
//
// # Retries
//
// After each attempt the client decides, in this order:
//
//   - an attempt the limiter did not let through sent nothing, and is
//     never retried;
//   - a done context stops the call with the context's error;
//   - a connection that failed before anything was sent (a dial error such
//     as "connection refused") is retried, for every method;
//   - any other connection error is retried for GET, PUT and DELETE only:
//     a POST may have reached the service, so it is never sent twice;
//   - a 429 pauses the client (see above) and is retried after the pause,
//     for every method, if the call may wait that long;
//   - 500, 502, 503 and 504 are retried for GET, PUT and DELETE only;
//   - anything else is the answer.
//
// Waits between attempts grow exponentially from [RetryPolicy.MinWait] with
// jitter and are capped at MaxWait (30 s by default, and when MaxWait is
// zero); a 503's Retry-After is honoured, capped too. MaxRetries bounds the
// retries. WithRetry sets the client's policy and [WithRequestRetry] one
// call's.
//
// # Request options and response metadata
//
// Every method takes RequestOptions as a trailing argument:
// WithResponseInto (the status, headers, request id, attempts and time
// waited, even on failure), [WithHeader], WithRequestRetry, WithBulk,
// WithMaxThrottle, [WithInFlight] (a bound on the requests in flight
// across the calls that share it) and, for the All iterators,
// [WithPageConcurrency].
//
// # Observability
//
// WithObserver takes an [Observer], whose optional callbacks see each call's
// start and end, each attempt, each wait (a limiter lane, a 429's pause, a
// backoff) and each page, named by method and route template
// ("/v2/users/{userId}"), never by path, token, body or header value.
// Callbacks run inline and must be quick; one that panics is recovered.
// Each gets the call's context, and CallStart may return one derived from
// it, which the call then runs with: a tracer parents the call's span there
// and finds it again from the attempts and waits. The module
// github.com/edapp-go/edapp/otel turns the hook into OpenTelemetry spans and
// metrics. A Limiter that implements [BudgetReporter], as *[WindowLimiter]
// does, reports the budget used in the current window.
//
// # Pagination
//
// Each list operation comes as a pair: ListX returns one *[Page], AllX an
// iter.Seq2 over every item of every page. The iterators ask for the largest
// pages (1000), draw from the bulk lane, and when the service reports a
// total count they fetch 4 pages at once while still yielding in order.
// A walk ends only on an empty or a short page: the count is a hint for
// prefetching and progress, and a count the pages contradict is logged and
// reported by [Response.TotalContradicted], never obeyed. [Page.NextPage]
// follows the same rule, for paging by hand. What needs the walk's history
// stays in the iterators: an item met again is yielded once, pages are read
// again when a falling count shows the list shifted under the walk, and a
// server that repeats itself ends in [ErrRepeatedPage], never a loop.
//
// Range with two variables. An iterator yields its error as the second
// value, once, and then stops; `for u := range client.Users.All(ctx, nil)`
// compiles, but drops that error silently.
//
// # Errors
//
// A non-2xx answer is an *APIError with the status, the body's message, an
// excerpt of the body, the request id and the Response; errors.Is matches
// [ErrNotFound], [ErrUnauthorized], [ErrForbidden], [ErrConflict], ErrRateLimited,
// [ErrBadRequest] and [ErrServer]. A 2xx answer of {"success": false} matches
// [ErrUnsuccessful]. A 2xx answer that is not the JSON expected is a
// *[DecodeError]. Bad input (an empty id, a bad option) fails with
// [ErrInvalidInput] before anything is sent.
//
// # Webhooks
//
// Webhooks.Create links an event name to a URL of yours. The webhook
// package (github.com/edapp-go/edapp/webhook) receives the deliveries: its
// handler checks a secret header, bounds the body's size and the time to
// read it, decodes the event with ParseEvent and hands your function one of
// the ten typed events (or an *UnknownEvent). EventKey gives each event a
// stable key, to store a redelivered event once.
//
// # Testing with edapptest
//
// edapptest.NewServer starts the fake service on loopback; srv.Client()
// is a client pointed at it. It keeps one store behind v1 and v2, follows
// the service's rules (group hierarchy, invite codes, unique external ids,
// 20-minute launch tokens), computes analytics from recorded progress and
// sends webhook deliveries. It can fail requests, add latency and enforce
// the account budget (edapptest.WithBudget).
//
// # What is inferred
//
// The vendor documents the operations but not every field. Where it does
// not, the SDK follows the vendor's own SDK and public integrations, sends
// the documented form, and accepts the spellings seen in practice:
//
//   - id or webhookId on webhooks;
//   - name, username or userName for a username (name goes out on v2,
//     username on v1);
//   - managedUserGroups or userGroupsManaged (see [UserCreateParams] for
//     which goes out);
//   - completedDate or completionDate on v1 courses, lessons and reports;
//   - createdDateTime or createDateTime on courses;
//   - firstname/firstName, lastname/lastName and username/userName in
//     webhook events (whose member names match without regard to case), and
//     a score as a number or a numeric string;
//   - the {"items", "totalCount"} envelope or a bare array on every list;
//   - datetimes with or without fractions, with a Z, an offset (+00:00,
//     +0000, +00) or no zone (UTC), with a T or a space, null and "".
//
// A value that still does not fit its field (a date in an unknown form, a
// number sent as an object) costs only that value: it is dropped, listed in
// [Response.Dropped] and logged at warn level, and the rest of the record and
// the page are kept. Every record keeps the members the SDK does not know in
// its Extra field, a [RawFields]. [Unmarshal] decodes a record read from elsewhere the same
// way; plain json.Unmarshal takes only the spellings the fields' tags name.
//
// The group list paths are documented as /v2/usersgroups; the vendor's SDK
// uses /v2/usergroups. The client sends the documented one, tries the other
// once on a 404, and remembers which the service serves.
//
// # What the API does not cover
//
// Single sign-on (SAML 2.0) is set up in the admin portal, not through the
// API. Rapid Refresh notifications go out at 9 o'clock in each user's time
// zone, so set one with Users.Update. No error body shape, rate-limit
// header, delivery signing or delivery retry is documented; the SDK's
// behaviour there is described on each type.
package edapp
