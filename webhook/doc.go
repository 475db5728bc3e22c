// Package webhook receives EdApp webhook deliveries.
//
// [NewHandler] returns an http.Handler that checks a shared secret header,
// bounds each delivery's size and the time to read it, decodes the event
// with [edapp.ParseEvent] and hands your function one of the ten typed events
// (or an *[edapp.UnknownEvent]). The event types, [edapp.EventName],
// [edapp.ParseEvent] and [edapp.EventKey] live in the edapp package.
//
// The store that keeps deliveries in a database (database/sql, SQLite or
// PostgreSQL) is in the package github.com/edapp-go/edapp/export/inbox, a
// module of its own, so that this package links no database code: its
// handler, built on [NewHandlerFunc], answers 2xx only once the delivery is
// committed. The edapp command's "webhooks serve" runs it.
//
// [NewTestDelivery] builds a realistic delivery for tests of a receiver.
package webhook
