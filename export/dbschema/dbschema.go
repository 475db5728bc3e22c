// Package dbschema is the one versioned schema of the databases the edapp
// command writes: the export's tables, the webhook inbox's and the records
// either refused. The export, the inbox and the command share it, so any
// of them can open a database another created or migrated.
//
// Each table's columns are typed literals with their meaning (the data
// dictionary: Tables, Dictionary, Lookup). The history is Migrations, each
// a literal list of typed steps rendered per dialect (Migration.SQL); the
// latest shape is their fold. NewMigrator brings a database to it, as
// goose does: Up, Status, Version, and Repair for the tables dropped by
// hand, which nothing else re-creates.
//
// It depends on database/sql only; the caller opens the database with a
// driver of its choice.
package dbschema

import (
	"errors"
	"fmt"
)

// Dialect is the SQL dialect of a database.
type Dialect int

const (
	// SQLite is SQLite 3, through modernc.org/sqlite.
	SQLite Dialect = iota + 1
	// Postgres is PostgreSQL, through pgx's database/sql driver.
	Postgres
)

func (d Dialect) String() string {
	switch d {
	case SQLite:
		return "sqlite"
	case Postgres:
		return "postgres"
	}
	return fmt.Sprintf("Dialect(%d)", int(d))
}

// ErrTooNew is returned by Migrator.Up and Repair for a database whose schema version is
// newer than this program knows: an older program must not write to it.
var ErrTooNew = errors.New("database schema is newer than this program knows")
