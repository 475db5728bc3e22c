package sqldest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
)

// The statements the destination runs, recorded on their way to the
// driver.

// TestDatabaseKeepsTheIndexesOfAnEmptyTable: a first run drops the
// indexes of the tables it loads while they are empty, and builds them
// after; a re-run, after that complete fetch, leaves them as they are,
// even those of a table the fetch left empty (an account without
// attempts).
func TestDatabaseKeepsTheIndexesOfAnEmptyTable(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv := edapptest.New(t)
		t.Cleanup(srv.Close)
		if _, err := srv.AddUser(edapptest.UserSpec{Username: "learner", ExternalID: "L1"}); err != nil {
			t.Fatal(err)
		}
		db, _ := migratedTestDB(t, url)
		var first, again stmtLog
		if err := runDBExport(t, context.Background(), srv, url, kinds("users", "attempts"), withStmtLog(&first)); err != nil {
			t.Fatal(err)
		}
		var rows int
		if err := db.QueryRow(`SELECT COUNT(*) FROM attempts`).Scan(&rows); err != nil || rows != 0 {
			t.Fatalf("attempts holds %d rows (%v), want none", rows, err)
		}
		if countPrefix(first.stmts, "DROP INDEX IF EXISTS attempts_") == 0 || countPrefix(first.stmts, "CREATE INDEX IF NOT EXISTS attempts_") == 0 {
			t.Fatalf("the first run did not drop and build the indexes of attempts:\n%s", strings.Join(first.stmts, "\n"))
		}
		if err := runDBExport(t, context.Background(), srv, url, kinds("users", "attempts"), withStmtLog(&again)); err != nil {
			t.Fatal(err)
		}
		for _, prefix := range []string{"DROP INDEX", "CREATE INDEX"} {
			if n := countPrefix(again.stmts, prefix); n != 0 {
				t.Errorf("the re-run ran %d %s statements, want none", n, prefix)
			}
		}
	})
}

// TestDatabaseStartsKindsInOneRead: a re-run reads where every kind
// stands in one go (the walks, the keys an older walk saw) and starts
// each kind with one statement, without asking its tables for a row; a
// table emptied by hand since the last run is refilled.
func TestDatabaseStartsKindsInOneRead(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 5)
		if err := runDBExport(t, context.Background(), srv, url); err != nil {
			t.Fatal(err)
		}
		db, _ := openTestDB(t, url)
		var groups int
		if err := db.QueryRow(`SELECT COUNT(*) FROM groups`).Scan(&groups); err != nil || groups == 0 {
			t.Fatalf("the first run left %d groups (%v)", groups, err)
		}
		if _, err := db.Exec(`DELETE FROM groups`); err != nil {
			t.Fatal(err)
		}
		var again stmtLog
		if err := runDBExport(t, context.Background(), srv, url, withStmtLog(&again)); err != nil {
			t.Fatal(err)
		}
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

// TestDatabaseOldestOpenUsesTheOpenAttemptsIndex checks that the read of
// the oldest open attempt, which each export's plan of attempts makes
// after the first, goes through the partial index of migration 15 on both
// databases: the statement the export sent, recorded, is explained again
// over a table of completed attempts.
func TestDatabaseOldestOpenUsesTheOpenAttemptsIndex(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 3)
		ctx := context.Background()
		var log stmtLog
		for range 2 {
			if err := runDBExport(t, ctx, srv, url, kinds("attempts"), withStmtLog(&log)); err != nil {
				t.Fatal(err)
			}
		}
		i := slices.IndexFunc(log.stmts, func(q string) bool { return strings.Contains(q, "SELECT MIN(started_date_time) FROM attempts") })
		if i < 0 {
			t.Fatal("the re-run did not read the oldest open attempt")
		}
		db, d := openTestDB(t, url)
		now := time.Now().UTC()
		for i := range 2000 {
			started := now.Add(-time.Duration(i) * time.Minute)
			_, err := db.ExecContext(ctx, rebind(d, `INSERT INTO attempts (source, id, started_date_time, completed_date_time, raw) VALUES ('edapp', ?, ?, ?, '{}')`),
				fmt.Sprint("a", i), timeArg(d, started), timeArg(d, started.Add(time.Minute)))
			if err != nil {
				t.Fatal(err)
			}
		}
		explain := "EXPLAIN "
		if d == SQLite {
			explain = "EXPLAIN QUERY PLAN "
		}
		rows, err := db.QueryContext(ctx, explain+log.stmts[i], "edapp", timeArg(d, now.Add(-7*24*time.Hour)))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var plan strings.Builder
		for rows.Next() {
			cols, _ := rows.Columns()
			vals := make([]any, len(cols))
			for i := range vals {
				vals[i] = new(any)
			}
			if err := rows.Scan(vals...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&plan, *vals[len(vals)-1].(*any))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan.String(), "attempts_source_started_date_time_idx") {
			t.Errorf("the plan of %q does not use the open attempts' index:\n%s", log.stmts[i], plan.String())
		}
	})
}
