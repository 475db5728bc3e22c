// Package safetyculture is a client for SafetyCulture's Training API (the
// service EdApp's customers move to; SafetyCulture is also called Mitti),
// at the standard of the edapp package and on the same transport: the
// same retries, answer bound, typed errors (*edapp.APIError, with
// edapp.ErrNotFound and the other sentinels), Observer and per-call
// options (edapp.WithMaxThrottle, edapp.WithInFlight,
// edapp.WithResponseInto, edapp.WithHeader, ...). NewClient takes the
// root package's client options too (edapp.WithBaseURL, WithLogger,
// WithObserver, WithRouteLimiter, ...): both clients speak one dialect.
//
//	sc, err := safetyculture.NewClient(token) // or NewClientFromEnv: SAFETYCULTURE_API_TOKEN, SAFETYCULTURE_BASE_URL
//	for c, err := range sc.Courses.All(ctx, nil) { ... }
//	for p, err := range sc.Feeds.AllCourseProgress(ctx, &safetyculture.FeedOptions{CompletionStatus: safetyculture.CompletionAll}) { ... }
//
// Every request carries "Authorization: Bearer <token>", the
// sc-integration-id and sc-integration-version headers that SafetyCulture's
// own clients send (with this SDK's name and version), and an X-Request-ID
// of its own, to quote in a support case.
//
// # Services
//
// One service per family; each method's doc names its operation. The
// catalogue (Courses, Collections, Paths, RapidRefresh, Leaderboards) pages
// with page and pageSize and answers {"totalCount", "items"}; each list
// comes as List (one page, with NextPage) and All (an iterator over every
// page). Courses also holds the two writes, UpdateAssignments and
// ResetProgress, which are never sent again once the service may have
// acted on them. Analytics holds the eleven analytics reads: they lag 30
// minutes to 2 hours behind, and their shapes are inferred (see
// AnalyticsService). Feeds holds the data feeds (course progress, users,
// groups, group users, sites, site members). Webhooks holds the webhook
// registrations and their signature secret.
//
// # Feeds
//
// A feed answers {"metadata": {"next_page"}, "data"}. The client follows
// next_page exactly as given, resolved against the base URL, until it is
// null or empty, and never builds a page URL of its own. A next_page that
// names another host is refused (ErrForeignNextPage): it would receive the
// token. A next_page met twice ends the walk (ErrRepeatedCursor). ListX
// returns one page and its NextPage; pass it back in FeedOptions.NextPage
// to resume a stopped job where it stopped.
//
// # Records
//
// Records keep every member the service sends that the SDK does not know
// in Extra, and expose only the documented fields. Decoding is lenient: a
// value that does not fit its field costs that value only, listed in
// edapp.Response.Dropped. The course-progress feed is read in snake_case
// (as SafetyCulture's exporter reads it) and in camelCase (as another
// client does); Course.LessonCount is read capitalised too, as the live
// service was seen to send it.
//
// # Rate limits
//
// SafetyCulture allows 200 requests a minute to each listed Training
// catalogue endpoint and 800 to every other, per user. The client reads
// these per endpoint (method and path template, see Routes and ClassOf):
// each endpoint has its own window limiter, so an export can use several
// endpoints at once at full speed. That reading is an assumption; when
// the service sends x-ratelimit-limit and it differs, the client logs it
// once per endpoint. edapp.WithRouteLimiter supplies limiters per route instead, for
// example redislimit limiters keyed by redislimit.KeyForRoute(token,
// route) to share a fleet's budget. A 429 pauses that endpoint's calls,
// and only that endpoint's, until x-ratelimit-reset (seconds), and says so
// through the Observer (a pause wait) and the logger.
//
// # Shapes nothing public settles
//
// Where no public source shows a shape, the client reads every spelling
// seen or likely, and sends the one sctest (this package's fake) expects:
// a webhook is {webhook_id, url, trigger_events} (id and triggerEvents
// read too), the list {"webhooks": [...]} (or bare, or "items"), the
// secret {"token"} (or "secret"); ResetProgress sends {courseId, userIds};
// a lesson is read bare or wrapped; a feed page's metadata may carry
// next_page_token, which the client does not need, and
// remaining_records, read as a hint (FeedPage.Remaining, and the first
// page's Response.Total);
// an error body is read as {code, message, details} or {message}; a
// delivery's name is its most specific event type. The feeds' page size
// (sctest: 100 by default, at most 1000) and the course-progress feed's
// default completion status (sctest: all) are the service's; set Limit
// and CompletionStatus to be sure. A first call with a live token settles
// these.
//
// # Webhooks
//
// SafetyCulture signs each delivery with the hex HMAC-SHA256 of its raw
// body in x-safetyculture-signature. VerifySignature checks it in
// constant time; NewWebhookHandler checks it, decodes the envelope
// (webhook_id, version, event, resource, data) and hands the event to a
// function, with the bounds and answers of package webhook's Handler.
package safetyculture
