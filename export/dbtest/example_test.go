package dbtest_test

import (
	"testing"

	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/export/sqldest"
)

// testMain is a test package's TestMain, renamed here because a test
// binary has a single TestMain and this package has its own. Main runs the
// tests, then stops the PostgreSQL server and lists the tests that skipped
// for want of it.
func testMain(m *testing.M) { dbtest.Main(m) }

// testCourseTitles is a test of code that writes to the database: it runs
// against a new, empty database of its own on each engine, so it can run
// in parallel with the others.
func testCourseTitles(t *testing.T) {
	t.Parallel()
	for _, engine := range []struct {
		name string
		url  func(testing.TB) string
	}{{"sqlite", dbtest.SQLite}, {"postgres", dbtest.Postgres}} {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			db := dbtest.Open(t, engine.url(t), sqldest.SQLiteDSN)
			if _, err := db.ExecContext(t.Context(), `CREATE TABLE courses (id TEXT PRIMARY KEY, title TEXT)`); err != nil {
				t.Fatal(err)
			}
			// ... call the code under test with db, and check the rows it wrote
		})
	}
}

// Example shows the two functions above, which go test would call were
// they named TestMain and TestCourseTitles.
func Example() {
	_, _ = testMain, testCourseTitles
}
