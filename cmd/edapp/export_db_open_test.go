package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/export/dbschema"
)

// TestExportDBOldestOpenUsesTheOpenAttemptsIndex checks that the read of
// the oldest open attempt, which each export's plan of attempts makes
// after the first, goes through the partial index of migration 15 on both
// databases: the statement the export sent, recorded, is explained again
// over a table of completed attempts.
func TestExportDBOldestOpenUsesTheOpenAttemptsIndex(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 3)
		ctx := context.Background()
		var log stmtLog
		for range 2 {
			wantCode(t, runExport(t, ctx, srv, withStmtLog(t, url, &log), "--db", url, "--kinds", "attempts"), exitOK)
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
		if d == dbschema.SQLite {
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

// timeArg is a time as export's Database writes it in d.
func timeArg(d dbschema.Dialect, t time.Time) any {
	if d == dbschema.SQLite {
		return t.Format(sqliteTimeLayout)
	}
	return t
}
