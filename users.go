package edapp

// UsersService covers the v2 user operations (/v2/users).
type UsersService service
