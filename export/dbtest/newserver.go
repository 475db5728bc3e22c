package dbtest

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// NewServer starts a PostgreSQL server for t alone, as [Postgres] starts
// the shared one, and stops it when t ends: for a test that stops or
// restarts the server, which the other tests must not see. When the
// server cannot start, t skips, or fails when the CI environment variable
// is set.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s, err := start()
	if err != nil {
		skipNoServer(t, err)
	}
	t.Cleanup(s.stop)
	return s
}

// databases numbers the databases the test binary creates, on every
// server, so that their names never repeat.
var databases atomic.Int64

// Database creates a new, empty database on the server and returns its
// URL.
func (s *Server) Database(t testing.TB) string {
	t.Helper()
	return s.create(t, "")
}

// create creates a new database, with the CREATE DATABASE options opts,
// and returns its URL. The database is dropped when t ends, so that the
// server's files hold only the databases of the tests under way.
func (s *Server) create(t testing.TB, opts string) string {
	t.Helper()
	name := fmt.Sprintf("edapp_test_%d", databases.Add(1))
	if err := s.exec("CREATE DATABASE " + name + opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Logf("dbtest: %v", err)
		}
	})
	return s.url(name)
}

// exec runs stmt in the server's postgres database.
func (s *Server) exec(stmt string) error {
	admin, err := sql.Open("pgx", s.url("postgres"))
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, err := admin.Exec(stmt); err != nil {
		return fmt.Errorf("PostgreSQL: %s: %w", stmt, err)
	}
	return nil
}

// Restart stops the server, ending every session (as an administrator's
// restart or a failover does), and starts it again on the same port; the
// databases stay.
func (s *Server) Restart() error {
	err := s.run(s.pgCtl, "-D", s.data, "-m", "fast", "-l", filepath.Join(s.data, "log"), "-w", "-t", "60", "restart")
	if err != nil {
		return fmt.Errorf("PostgreSQL restart: %w", err)
	}
	return nil
}
