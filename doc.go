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
// The SDK sends the spec's form of every request and accepts the spellings
// seen in practice when decoding: id or webhookId, username, userName or
// name, completedDate or completionDate, managedUserGroups or
// userGroupsManaged, a paged envelope or a bare array, and datetimes with or
// without fractions or a zone (see Time).
package edapp
