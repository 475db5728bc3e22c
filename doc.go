// Package edapp is a typed client for the EdApp REST API (EdApp is now
// SafetyCulture Training): users, user groups, the course catalog, learner
// analytics and webhooks (v2), with the legacy v1 shapes in the v1
// subpackage and a stateful fake of the whole service in edapptest.
//
//	client, err := edapp.NewClient(token)
//	if err != nil { ... }
//	for u, err := range client.Users.All(ctx, nil) { ... }
//
// # Tolerance
//
// The SDK sends the spec's form of every request (and the real service's
// field names where the spec shows none) and accepts the spellings seen in
// practice when decoding:
//
//   - id or webhookId on webhooks;
//   - name, username or userName for a username (name goes out on v2,
//     username on v1);
//   - managedUserGroups (sent) or userGroupsManaged;
//   - completedDate or completionDate on v1 courses, lessons and reports;
//   - createdDateTime or createDateTime on courses;
//   - firstname/firstName, lastname/lastName, username/userName and a score
//     as a number or a numeric string in webhook events;
//   - the {"items", "totalCount"} envelope or a bare array on every list
//     (lessons and the webhook list come as bare arrays);
//   - datetimes with or without fractions or a zone, null and "" (see Time).
//
// A value that still does not fit its field (a date in an unknown form, a
// number sent as an object) is dropped and logged at warn level, never
// failing the record or the page around it. Records whose fields the spec
// does not show (collections, lessons, lesson statistics, survey question
// definitions, a user's lesson progress) keep every field the SDK does not
// know in Extra. The lessons' minimum score is read from minimumScore; its
// real name is unknown, so look in Extra when it is zero.
//
// The spec spells the two group list paths /v2/usersgroups. The SDK sends
// that; on a 404 it tries /v2/usergroups once, and when that answers it
// keeps using it for the life of the client.
package edapp
