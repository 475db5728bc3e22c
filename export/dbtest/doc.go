// Package dbtest gives tests real databases: a fresh SQLite file, or a
// fresh database on a PostgreSQL server that the test binary starts
// itself. The edapp-go modules test the export's database code with it
// (the SQL destination, the webhook inbox's store, the schema, the edapp
// command); a program that wraps the export can test its own code against
// the same databases. It is for tests only: no package of these modules
// but a test imports it.
//
// # What Postgres starts, and where
//
// The first call to [Postgres] in a test binary starts a PostgreSQL server
// from the installed binaries: initdb and pg_ctl, found on PATH or in a
// versioned PostgreSQL directory such as Debian's
// /usr/lib/postgresql/17/bin (the newest first). Its data directory is in
// a new temporary directory, which [Run] puts in memory when the machine
// has room. It listens on a free port of 127.0.0.1 only (and a Unix
// socket in that directory). Over TCP the user postgres logs in with a
// random password that the URLs carry, so that other users of the machine
// who reach the port get nowhere; fsync is off: the data of a test need
// not survive a crash. When
// the test binary runs as root, the server runs as the postgres user,
// since PostgreSQL refuses to run as root. Each call to Postgres then
// creates a new, empty database on that server and returns its URL, so
// tests that run in parallel never see each other's tables; the database
// is dropped when the test ends, and the server starts once per test
// binary.
//
// # How it stops
//
// [Main], called from TestMain, runs the tests, then stops the server and
// removes its directory ([Run] does the same for a TestMain that does
// more before it exits). If the test binary dies first (a crash, a kill,
// a timeout), a small shell process started with the server notices,
// stops the server and removes the directory.
//
// A test that stops or restarts PostgreSQL must not do it to the server
// the other tests share: [NewServer] starts one for that test alone.
//
// # Without PostgreSQL: skip, or fail under CI
//
// When the server cannot start (most often because PostgreSQL is not
// installed), a test that calls Postgres or NewServer skips, saying why,
// and Main lists the tests that skipped after the run, one line a reason
// (as package [github.com/edapp-go/edapp/edapptest/testskip] does).
// When the CI environment variable is set, such a test fails instead, so
// that CI never passes by skipping the database tests.
//
// # Use
//
//	func TestMain(m *testing.M) { dbtest.Main(m) }
//
//	func TestStore(t *testing.T) {
//		t.Parallel()
//		db := dbtest.Open(t, dbtest.Postgres(t), sqldest.SQLiteDSN)
//		// ... db is a new, empty database, closed when t ends
//	}
//
// A test that runs against both databases takes its URL from [SQLite] or
// Postgres; [Open] opens either, and [IsPostgres] tells them apart. The
// URLs are those the edapp command's --db flag takes.
//
// [MigratedSQLite] and [MigratedPostgres] give a new database with the
// export's schema at its latest version, a copy of one the test binary
// migrated once: for a test that is not about the migrations, which would
// otherwise run every migration again.
package dbtest
