package main

import (
	"context"
	"strings"
	"testing"
)

// TestExportDBStartsKindsInOneRead: a re-run reads where every kind
// stands in one go (the walks, the keys an older walk saw) and starts
// each kind with one statement, without asking its tables for a row; a
// table emptied by hand since the last run is refilled.
func TestExportDBStartsKindsInOneRead(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 5)
		args := []string{"--db", url}
		wantCode(t, runExport(t, context.Background(), srv, nil, args...), exitOK)
		db, _ := openTestDB(t, url)
		var groups int
		if err := db.QueryRow(`SELECT COUNT(*) FROM groups`).Scan(&groups); err != nil || groups == 0 {
			t.Fatalf("the first run left %d groups (%v)", groups, err)
		}
		if _, err := db.Exec(`DELETE FROM groups`); err != nil {
			t.Fatal(err)
		}
		var again stmtLog
		wantCode(t, runExport(t, context.Background(), srv, withStmtLog(t, url, &again), args...), exitOK)
		var kinds int
		if err := db.QueryRow(`SELECT COUNT(*) FROM edapp_export_kinds`).Scan(&kinds); err != nil || kinds < 10 {
			t.Fatalf("edapp_export_kinds holds %d kinds (%v)", kinds, err)
		}
		for _, c := range []struct {
			part string
			want int
		}{
			{"FROM edapp_export_kinds WHERE source", 1},
			{"SELECT DISTINCT table_name FROM edapp_export_seen", 1},
			{"walk_run <>", 0},                        // no older walk's keys to forget
			{"INSERT INTO edapp_export_kinds", kinds}, // a kind's start: one statement
		} {
			if got := countMatching(again.stmts, func(s string) bool { return strings.Contains(s, c.part) }); got != c.want {
				t.Errorf("the re-run ran %d statements with %q, want %d", got, c.part, c.want)
			}
		}
		if n := countPrefix(again.stmts, "SELECT 1 FROM"); n != 0 {
			t.Errorf("the re-run asked %d tables one by one whether they hold rows, want none", n)
		}
		var back int
		if err := db.QueryRow(`SELECT COUNT(*) FROM groups`).Scan(&back); err != nil || back != groups {
			t.Errorf("the re-run left %d groups (%v), want %d", back, err, groups)
		}
	})
}
