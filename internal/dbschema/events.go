package dbschema

// eventsTable is the webhook inbox's table: one row per distinct event,
// keyed by edapp.EventKey. The columns after event_time are the fields the
// ten events carry, in snake_case, shared by all events and NULL where an
// event has no such field; raw is the delivery as received. Its indexes
// serve the joins with the export's users and courses and time ranges;
// each one more is written on every delivery.
var eventsTable = Table{
	Name:    "events",
	Key:     []string{"event_key"},
	Indexes: [][]string{{"user_id"}, {"course_id"}, {"event_time"}},
	Columns: cols("event_key text, event_name text, received_at time, event_time time, " +
		"user_id text, user_external_id text, user_name text, email text, first_name text, last_name text, " +
		"course_id text, course_title text, course_link text, lesson_id text, lesson_title text, score real, " +
		"quiz_id text, quiz_title text, quiz_session text, quiz_link text, due_date time, raw json"),
}

// EventsTable returns the webhook inbox's table as the latest migration
// leaves it.
func EventsTable() Table { return eventsTable }
