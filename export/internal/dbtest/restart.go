package dbtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Server is a PostgreSQL server of one test's own, for a test that stops
// or restarts it: the shared server's other tests must not see that.
type Server struct{ s *server }

// NewServer starts a PostgreSQL server for t alone, stopped when t ends.
// Without the PostgreSQL binaries the test is skipped, or fails when
// CI=true.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s, err := start()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL: %v", err)
		}
		t.Skipf("PostgreSQL tests skipped: %v", err)
	}
	t.Cleanup(s.stop)
	return &Server{s}
}

// Database returns the URL of a new, empty database on the server.
func (s *Server) Database(t testing.TB, name string) string {
	t.Helper()
	return s.s.database(t, name)
}

// Restart stops the server, ending every session (as an administrator's
// restart or a failover does), and starts it again on the same port.
func (s *Server) Restart() error {
	err := s.s.run(s.s.pgCtl, "-D", s.s.data, "-m", "fast", "-l", filepath.Join(s.s.data, "log"), "-w", "-t", "60", "restart")
	if err != nil {
		return fmt.Errorf("PostgreSQL restart: %w", err)
	}
	return nil
}
