// Package v1 covers the service's older /v1 operations: saving, listing and
// deleting users and user groups in their v1 shape, listing a user's
// courses with their lesson launch links, reading the user course report,
// and fetching a user's token.
//
// It is built on the root client's Do, so it shares that client's base URL,
// token, rate limit, retries and error types:
//
//	client, err := edapp.NewClient(token)
//	if err != nil { ... }
//	legacy, err := v1.New(client)
//	if err != nil { ... }
//	courses, err := legacy.Users.Courses(ctx, userID)
//
// # Intended flow
//
// An embedding application's intended flow, as the vendor describes it,
// runs through v1:
// list the user's courses and lessons ([UsersService.Courses]), hand the
// learner a launch link for the lesson they pick ([UsersService.LaunchLink],
// fetched just before use, since a launch token lives 20 minutes), and on
// their return read the completed state from the courses again or read the
// detailed report ([ReportsService.UserCourse]).
//
// # Errors
//
// A non-2xx answer is an *edapp.APIError, so errors.Is(err,
// edapp.ErrNotFound) and the other root sentinels work. A delete answered
// {"success": false} is an *edapp.APIError too, matching
// edapp.ErrUnsuccessful; any other 2xx answer ({"success": true}, {} or an
// empty body) is success, the same rule as the root package's (see
// edapp.Client.DoChecked). An empty or dot-only id argument fails with
// edapp.ErrInvalidInput before any request is sent. No error carries the API
// token, a launch token or a user token.
//
// # Tolerance
//
// Requests use the documented field names. Decoding also accepts:
//
//   - completionDate for completedDate, on courses, lessons and the report
//     (the vendor's text says completionDate, its sample completedDate;
//     when both come, a non-empty completedDate wins);
//   - userName and name for username, and externalId for
//     externalIdentifier, on users;
//   - a bare array or the paged envelope, on the user and group lists;
//   - {"token": "..."} or a bare string, on a user's token;
//   - any letter case of a field name (usergroups or userGroups, launchURI
//     or launchUri), as encoding/json does;
//   - courses that carry only id, title and lessons (as in the vendor's
//     sample);
//   - datetimes in every form edapp.Time accepts, null and "".
//
// One value that does not fit its field (a date in an unknown form, say) is
// dropped rather than failing the whole answer, as in the root package.
package v1
