package main

import (
	"context"
	"testing"
	"time"

	"github.com/edapp-go/edapp/cmd/edapp/internal/dbtest"
	"github.com/edapp-go/edapp/edapptest"
)

// TestExportDBReconnect restarts PostgreSQL in the middle of an export:
// the export regains its connection and its lock, and finishes on its own
// with the tables of a clean export.
func TestExportDBReconnect(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a PostgreSQL server; skipped in -short")
	}
	t.Parallel()
	pg := dbtest.NewServer(t)
	srv := edapptest.NewServer()
	t.Cleanup(srv.Close)
	if err := srv.SeedAccount(edapptest.AccountSpec{Users: 40, Attempts: 800}); err != nil {
		t.Fatal(err)
	}
	srv.SetLatency(10 * time.Millisecond)
	pageSize := func(f *factory) { withPageSize(f, killPageSize) }
	clean := pg.Database(t, "clean")
	srv.ResetRequests()
	wantCode(t, runExport(t, context.Background(), srv, pageSize, "--db", clean, "--concurrency", "2"), exitOK)
	requests := len(srv.Requests())

	restarted := pg.Database(t, "restarted")
	srv.ResetRequests()
	done := make(chan result, 1)
	go func() {
		done <- runExport(t, context.Background(), srv, pageSize, "--db", restarted, "--concurrency", "2")
	}()
	stop := make(chan struct{})
	defer close(stop)
	select {
	case r := <-done:
		t.Fatalf("the export finished before the restart: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	case <-afterRequests(srv, requests/2, stop):
	}
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	wantCode(t, <-done, exitOK)
	a, _ := openTestDB(t, clean)
	b, _ := openTestDB(t, restarted)
	diffSnapshots(t, "an export through a restart against a clean one", snapshot(t, a), snapshot(t, b))
}
