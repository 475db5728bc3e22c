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
	name := fmt.Sprintf("edapp_test_%d", databases.Add(1))
	admin, err := sql.Open("pgx", s.url("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("PostgreSQL: create database: %v", err)
	}
	return s.url(name)
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
