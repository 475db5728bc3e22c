package edapp

// UserGroupsService covers the v2 user group operations (/v2/usergroups, /v2/usersgroups).
type UserGroupsService service
