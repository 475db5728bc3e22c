package dbschema_test

import (
	"fmt"

	"github.com/edapp-go/edapp/export/dbschema"
)

func ExampleLookup() {
	users, _ := dbschema.Lookup("users")
	c, _ := users.Column("external_id")
	fmt.Printf("%s.%s %s (raw->>'%s'): %s\n", users.Name, c.Name, c.Type, c.Field, c.Description)
	// Output: users.external_id text (raw->>'externalId'): The user's id in the customer's own systems (externalId), when set.
}

func ExampleMigration_SQL() {
	m := dbschema.Migration{Version: 7, Name: "user nickname", Steps: []dbschema.Step{
		dbschema.AddColumn{Table: "users", Column: dbschema.Column{Name: "nickname", Type: dbschema.Text, Nullable: true,
			Field: "nickname", Origin: dbschema.FromEdApp, Description: "The name the user goes by."}},
		dbschema.CreateIndex{Table: "users", Index: dbschema.Index{Columns: []string{"nickname"}, Hash: true}},
	}}
	for _, s := range m.SQL(dbschema.Postgres) {
		fmt.Println(s)
	}
	// Output:
	// ALTER TABLE users ADD COLUMN nickname TEXT
	// CREATE INDEX users_nickname_idx ON users USING hash (nickname)
}
