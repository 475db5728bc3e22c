// Package sqldest is the export's database destination: SQLite or
// PostgreSQL through database/sql, a table per kind keyed on the record's
// identity, with the cursors, the lock and the request budget in the
// database itself. The caller opens the *sql.DB with a driver of its
// choice and passes it to OpenDatabase. It also reads what the export
// wrote: the identities that join the two services (RebuildIdentities)
// and the move report (MigrationReport).
package sqldest
