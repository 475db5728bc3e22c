package sqldest

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
)

// TestVersionsEndCountsTheWalksVersions: the triggers count nothing while
// a walk is under way (versions_opened and versions_closed read 0); the
// end of the walk counts the versions of its time, opened and closed,
// whichever run wrote them, stores them and clears the walk's time.
func TestVersionsEndCountsTheWalksVersions(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		t.Parallel()
		ctx := context.Background()
		db, d := migratedTestDB(t, url)
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.ExecContext(ctx, rebind(d, q), args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		course := `INSERT INTO courses (source, id, title, edapp_digest) VALUES ('edapp', ?, ?, ?)
ON CONFLICT (id, source) DO UPDATE SET title = excluded.title, edapp_digest = excluded.edapp_digest`
		exec(`INSERT INTO edapp_export_kinds (source, kind) VALUES ('edapp', 'courses')`)
		exec(course, "a", "A", "d1") // by hand: a version of its own time
		walk := time.Now().Add(time.Hour)
		exec(`UPDATE edapp_export_kinds SET walk_time = ?, versions_opened = 0, versions_closed = 0 WHERE source = 'edapp'`, timeArg(d, walk))
		exec(course, "b", "B", "d1")  // opens b's
		exec(course, "a", "A2", "d2") // closes a's, opens another
		exec(course, "b", "B2", "d2") // b's, of this walk, changes in place
		var opened, closed int
		if err := db.QueryRowContext(ctx, `SELECT versions_opened, versions_closed FROM edapp_export_kinds`).Scan(&opened, &closed); err != nil || opened != 0 || closed != 0 {
			t.Fatalf("during the walk: versions opened %d, closed %d, %v; want 0, 0", opened, closed, err)
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		got, err := versions{d, "edapp", 0}.end(ctx, tx, "courses", walkState{time: walk})
		if err != nil || got != (historyCounts{opened: 2, closed: 1}) {
			t.Fatalf("end: %+v, %v; want 2 opened, 1 closed", got, err)
		}
		var walkTime sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT versions_opened, versions_closed, walk_time FROM edapp_export_kinds`).Scan(&opened, &closed, &walkTime); err != nil || opened != 2 || closed != 1 || walkTime.Valid {
			t.Errorf("after the walk: versions opened %d, closed %d, walk_time %v, %v", opened, closed, walkTime, err)
		}
	})
}

// TestWalkEndQuerySeeksTheVersionsIndexes: on SQLite, ending a walk of each
// kind with a history counts its versions by seeking to the source's
// versions of the walk's time in an index, opened and closed, never by
// reading all of the source's versions.
func TestWalkEndQuerySeeksTheVersionsIndexes(t *testing.T) {
	t.Parallel()
	db, d := openTestDB(t, dbtest.MigratedSQLite(t, SQLiteDSN))
	for _, tb := range dbschema.Tables() {
		if !hasHistory(tb.Name) {
			continue
		}
		rows, err := db.QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+rebind(d, walkEndQuery(tb.Name)), "edapp", tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		var opened, closed bool
		for _, step := range plan {
			if !strings.Contains(step, tb.Name+"_history") {
				continue
			}
			opened = opened || strings.Contains(step, "(valid_from=? AND source=?)")
			closed = closed || strings.Contains(step, "(source=? AND valid_to=?)")
			if !strings.Contains(step, "valid_from=?") && !strings.Contains(step, "valid_to=?") {
				t.Errorf("%s: %q reads all of the source's versions", tb.Name, step)
			}
		}
		if !opened || !closed {
			t.Errorf("%s: the plan seeks opened versions %t, closed %t; want both:\n%s", tb.Name, opened, closed, strings.Join(plan, "\n"))
		}
	}
}
