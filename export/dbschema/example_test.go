package dbschema_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"github.com/edapp-go/edapp/export/dbschema"
)

func ExampleLookup() {
	users, _ := dbschema.Lookup("users")
	c, _ := users.Column("external_id")
	fmt.Printf("%s.%s %s (raw->>'%s'): %s\n", users.Name, c.Name, c.Type, c.Field, c.Description)
	// Output: users.external_id text (raw->>'externalId'): The user's id in the customer's own systems (externalId), when set.
}

func ExampleMigration_SQL() {
	m := dbschema.Migrations()[14] // version 15
	fmt.Println(m.Version, m.Name)
	for _, s := range m.SQL(dbschema.Postgres) {
		fmt.Println(s)
	}
	// Output:
	// 15 open attempts
	// CREATE INDEX attempts_source_started_date_time_idx ON attempts (source, started_date_time) WHERE completed_date_time IS NULL
}

// ExampleNewMigrator brings a database to the latest schema, then
// re-creates the tables dropped by hand. db is opened with a driver of
// the caller's choice (here modernc.org/sqlite's, registered as "sqlite").
func ExampleNewMigrator() {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "edapp.db")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	m := dbschema.NewMigrator(db, dbschema.SQLite)
	if err := m.Up(ctx); err != nil {
		log.Fatal(err)
	}
	recreated, err := m.Repair(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("re-created:", recreated)
}
