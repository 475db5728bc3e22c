// Package inbox keeps webhook deliveries in a database, through
// database/sql (SQLite or PostgreSQL): the events table of the schema the
// export writes (github.com/edapp-go/edapp/export/dbschema), one row per
// distinct event.
//
// [NewStore] opens the store on a *sql.DB the caller opened; its
// [Store.Handler] is a [github.com/edapp-go/edapp/webhook.Handler] that
// answers 2xx only once the delivery is committed, stores a redelivery
// once, and answers 503 with Retry-After while the database cannot take
// it. The edapp command's "webhooks serve" runs it.
package inbox
