package dbtest_test

import (
	"database/sql"
	"flag"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/export/sqldest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestSQLite(t *testing.T) {
	t.Parallel()
	url := dbtest.SQLite(t)
	if !strings.HasPrefix(url, "sqlite:") || dbtest.IsPostgres(url) {
		t.Fatalf("SQLite(t) = %q: want a sqlite: URL", url)
	}
	db := dbtest.Open(t, url, sqldest.SQLiteDSN)
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE t (id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	if url2 := dbtest.SQLite(t); url2 == url {
		t.Errorf("two calls returned the same database %q", url)
	}
}

// TestPostgres: each call gives a new, empty database; a table created in
// one is not in the other.
func TestPostgres(t *testing.T) {
	t.Parallel()
	a, b := dbtest.Postgres(t), dbtest.Postgres(t)
	if a == b || !dbtest.IsPostgres(a) || !dbtest.IsPostgres(b) {
		t.Fatalf("Postgres(t) twice = %q, %q: want two PostgreSQL URLs", a, b)
	}
	dbA, dbB := dbtest.Open(t, a, sqldest.SQLiteDSN), dbtest.Open(t, b, sqldest.SQLiteDSN)
	if _, err := dbA.ExecContext(t.Context(), `CREATE TABLE t (id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	var tables int
	if err := dbB.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Errorf("the second database has %d tables, want 0", tables)
	}
}

// TestServerRestart: a test's own server restarts, and keeps its databases.
func TestServerRestart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a PostgreSQL server of its own; skipped in -short")
	}
	pg := dbtest.NewServer(t)
	url := pg.Database(t)
	db := dbtest.Open(t, url, sqldest.SQLiteDSN)
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE t (id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	again := dbtest.Open(t, url, sqldest.SQLiteDSN)
	if _, err := again.ExecContext(t.Context(), `INSERT INTO t (id) VALUES (1)`); err != nil {
		t.Errorf("after the restart: %v", err)
	}
}

func TestDSN(t *testing.T) {
	t.Parallel()
	pragmas := func(path string) string { return path + "?_pragma=foreign_keys(1)" }
	if driver, dsn := dbtest.DSN("sqlite:/tmp/x.db", pragmas); driver != "sqlite" || dsn != "/tmp/x.db?_pragma=foreign_keys(1)&_txlock=immediate" {
		t.Errorf("DSN(sqlite) = %q, %q", driver, dsn)
	}
	const pg = "postgres://postgres@127.0.0.1:5432/x?sslmode=disable"
	if driver, dsn := dbtest.DSN(pg, pragmas); driver != "pgx" || dsn != pg {
		t.Errorf("DSN(postgres) = %q, %q", driver, dsn)
	}
}

// TestRun: the tests run ParallelTests at once (this test binary's
// TestMain is Main), unless -test.parallel was given.
func TestRun(t *testing.T) {
	t.Parallel()
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(strings.TrimLeft(a, "-"), "test.parallel") {
			t.Skip("-test.parallel given")
		}
	}
	want := strconv.Itoa(max(dbtest.ParallelTests, runtime.GOMAXPROCS(0)))
	if got := flag.Lookup("test.parallel").Value.String(); got != want {
		t.Errorf("test.parallel = %s, want %s", got, want)
	}
}

// TestPostgresWantsThePasswordOverTCP: another local user who reaches the
// server's port gets nowhere without the password the URL carries.
func TestPostgresWantsThePasswordOverTCP(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(dbtest.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, set := u.User.Password(); !set {
		t.Fatalf("the URL carries no password")
	}
	u.User = url.User("postgres")
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.PingContext(t.Context()); err == nil || !strings.Contains(err.Error(), "password") {
		t.Errorf("connecting without the password: %v; want a password failure", err)
	}
}

// TestPostgresDropsTheDatabaseWhenTheTestEnds: a database a subtest asked
// for is gone once the subtest ends; the parent's is still there.
func TestPostgresDropsTheDatabaseWhenTheTestEnds(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, dbtest.Postgres(t), sqldest.SQLiteDSN)
	var name string
	t.Run("child", func(t *testing.T) {
		u, err := url.Parse(dbtest.Postgres(t))
		if err != nil {
			t.Fatal(err)
		}
		name = strings.TrimPrefix(u.Path, "/")
		if n := databasesNamed(t, db, name); n != 1 {
			t.Fatalf("%d databases named %q during the test, want 1", n, name)
		}
	})
	if n := databasesNamed(t, db, name); n != 0 {
		t.Errorf("%d databases named %q after the test, want 0", n, name)
	}
}

func databasesNamed(t *testing.T, db *sql.DB, name string) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM pg_database WHERE datname = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
