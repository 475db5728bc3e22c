package main

import (
	"context"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/sqldest"
)

// historyVersion is the schema version that added the history tables.
const historyVersion = 20

// TestExportHistoryFromVersion19: a database at the schema version before
// the history tables, holding what an export wrote, migrates forward when
// an export opens it: each table's rows get one open version, known since
// the migration, a re-run adds none, and the queries of
// docs/export-database.md answer as before.
func TestExportHistoryFromVersion19(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		s := edappHistorySource(t)
		wantCode(t, s.export(t, url), exitOK)
		from, d := openTestDB(t, url)
		old := sameKind(t, url)
		to, _ := openTestDB(t, old)
		schemaAt(t, to, d, historyVersion-1)
		v19 := tablesAt(t, historyVersion-1)
		for _, tb := range sourcedTables() {
			copyRows(t, from, to, d, v19[tb.Name], "")
		}
		copyRows(t, from, to, d, v19["edapp_export_kinds"], "")
		copyRows(t, from, to, d, v19["edapp_export_lock"], "")
		answers := func(db string) map[string][][]string {
			out := map[string][][]string{}
			for name, q := range readmeQueries(t) {
				if strings.HasSuffix(name, "("+map[dbschema.Dialect]string{dbschema.SQLite: "SQLite", dbschema.Postgres: "PostgreSQL"}[d]+")") {
					out[name] = rowsOf(t, db, q)
				}
			}
			return out
		}
		before := answers(old)
		// The inbox migrates as it opens the database: it copies nothing.
		if err := dbschema.NewMigrator(to, d).Up(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := countRows(t, to, `SELECT COUNT(*) FROM users_history`); n != 0 || countRows(t, to, `SELECT COUNT(*) FROM users`) == 0 {
			t.Errorf("migrated as the inbox migrates: %d versions of users", n)
		}

		wantCode(t, s.export(t, old), exitOK)
		checkHistoryInvariant(t, to, d, sqldest.SourceEdApp)
		since := firstValue(t, to, `SELECT applied_at FROM edapp_schema WHERE version = 20`)
		for _, h := range historyTables(t) {
			tb := strings.TrimSuffix(h.Name, "_history")
			rows, versions := countRows(t, to, `SELECT COUNT(*) FROM `+tb), len(rowsOfDB(t, to, `SELECT 1 FROM `+h.Name+` WHERE valid_to IS NULL AND valid_from = `+quoteTime(t, d, since)))
			if rows != versions || countRows(t, to, `SELECT COUNT(*) FROM `+h.Name) != rows {
				t.Errorf("%s: %d rows, %d versions since the migration", tb, rows, versions)
			}
		}
		if got := answers(old); !maps.EqualFunc(got, before, func(a, b [][]string) bool { return slices.EqualFunc(a, b, slices.Equal) }) {
			t.Errorf("the queries answer otherwise after the migration:\n%v\nwas\n%v", got, before)
		}
		if len(before) < 3 {
			t.Errorf("%d queries", len(before))
		}
	})
}

// TestExportHistoryTableEmptiedByHand: a table emptied by hand and
// refilled by the next run, or by --full, adds no version; and a history
// table dropped and recreated empty is seeded from its table.
func TestExportHistoryTableEmptiedByHand(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		s := edappHistorySource(t)
		wantCode(t, s.export(t, url), exitOK)
		db, d := openTestDB(t, url)
		sizes := historySizes(t, db)
		for _, q := range []string{`DELETE FROM users`, `DELETE FROM group_members`, `DELETE FROM courses`} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		wantCode(t, s.export(t, url), exitOK)
		wantCode(t, s.export(t, url, "--full"), exitOK)
		if got := historySizes(t, db); !maps.Equal(got, sizes) {
			t.Errorf("refilled by hand: history %v, was %v", got, sizes)
		}
		checkHistoryInvariant(t, db, d, s.name)
		if _, err := db.Exec(`DROP TABLE users_history`); err != nil {
			t.Fatal(err)
		}
		wantCode(t, s.export(t, url), exitOK)
		checkHistoryInvariant(t, db, d, s.name)
		if got := historySizes(t, db)["users_history"]; got != countRows(t, db, `SELECT COUNT(*) FROM users`) {
			t.Errorf("users_history recreated: %d versions", got)
		}
	})
}

// TestExportHistoryKeep: --history-keep deletes the closed versions older
// than the walk's time less its duration, but each key's latest.
func TestExportHistoryKeep(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		s := edappHistorySource(t)
		wantCode(t, s.export(t, url), exitOK)
		db, d := openTestDB(t, url)
		e := pickHistoryEdits(t, db, s.name)
		s.edits = historyEdits{renamed: e.renamed, hidden: e.hidden}
		s.update()
		wantCode(t, s.export(t, url), exitOK)
		wantCode(t, s.export(t, url, "--history-keep", "1h"), exitOK)
		if got := versionsOf(t, db, d, "users", "first_name", s.name, map[string]string{"id": e.renamed}); len(got) != 2 {
			t.Errorf("a version younger than --history-keep is gone: %q", got)
		}
		wantCode(t, s.export(t, url, "--history-keep", "1ns"), exitOK)
		if got := versionsOf(t, db, d, "users", "first_name", s.name, map[string]string{"id": e.renamed}); !slices.Equal(got, []string{"Renamed|open"}) {
			t.Errorf("renamed, then --history-keep 1ns: versions %q", got)
		}
		if got := versionsOf(t, db, d, "users", "1", s.name, map[string]string{"id": e.hidden}); !slices.Equal(got, []string{"1|closed"}) {
			t.Errorf("gone, then --history-keep 1ns: versions %q, want the last one kept", got)
		}
		checkHistoryInvariant(t, db, d, s.name)
	})
}

// historyDocQueries are the SQL examples of docs/history.md by their
// first line, "-- <name> (<dialect>)".
func historyDocQueries(t *testing.T, d dbschema.Dialect) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/history.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	dialect := map[dbschema.Dialect]string{dbschema.SQLite: "sqlite", dbschema.Postgres: "postgres"}[d]
	for _, m := range regexp.MustCompile("(?s)```sql\n-- ([^\n]+) \\(([a-z]+)\\)\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		if m[2] == dialect {
			out[m[1]] = m[3]
		}
	}
	return out
}

// TestHistoryDocQueries runs the worked queries of docs/history.md on
// both databases: the members of a group at the time of the first run, and
// their completions, are that run's; a member who left the group since,
// and a user deleted since, are among them; the deleted user is among the
// people who left, with their completion, and in identities, marked left.
func TestHistoryDocQueries(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv := edapptest.New(t)
		t.Cleanup(srv.Close)
		demo, err := fakedata.SeedDemo(srv)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i := range 3 {
			id, err := srv.AddUser(edapptest.UserSpec{Username: "night" + string(rune('a'+i)), Groups: []string{demo.GroupIDs[3]}})
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range demo.LessonIDs[0] {
				if err := srv.CompleteLesson(id, l, 90); err != nil {
					t.Fatal(err)
				}
			}
			ids = append(ids, id)
		}
		p := newEditingProxy(t, srv.Handler())
		run := func() {
			wantCode(t, runEnv(t, env{"EDAPP_API_TOKEN": srv.Token, "EDAPP_BASE_URL": p.URL}, "export", "--db", url), exitOK)
		}
		run()
		db, d := openTestDB(t, url)
		queries := historyDocQueries(t, d)
		if len(queries) != 3 {
			t.Fatalf("%d queries for %v in docs/history.md", len(queries), d)
		}
		atFirst := timeLiteral(t, d, firstValue(t, db, `SELECT MIN(valid_from) FROM users_history`))
		asOf := func(name string) [][]string {
			return rowsOfDB(t, db, strings.ReplaceAll(queries[name], map[dbschema.Dialect]string{dbschema.SQLite: "2026-03-03T00:00:00.000000Z", dbschema.Postgres: "2026-03-03 00:00:00+00"}[d], atFirst))
		}
		members, completions := asOf("members of a group at a time"), asOf("completions by the members of a group at a time")
		for _, id := range ids {
			if !slices.ContainsFunc(members, func(r []string) bool { return r[0] == id }) ||
				!slices.ContainsFunc(completions, func(r []string) bool { return r[0] == id && r[2] != "<nil>" }) {
				t.Fatalf("at the first run, %s: members %q, completions %q", id, members, completions)
			}
		}
		if err := srv.RemoveUserFromGroup(demo.GroupIDs[3], ids[0]); err != nil {
			t.Fatal(err)
		}
		p.set(historyEdits{hidden: ids[1]}.apply)
		run()
		if got := asOf("members of a group at a time"); !slices.EqualFunc(got, members, slices.Equal) {
			t.Errorf("members at the first run, after changes: %q, were %q", got, members)
		}
		if got := asOf("completions by the members of a group at a time"); !slices.EqualFunc(got, completions, slices.Equal) {
			t.Errorf("completions at the first run, after changes: %q, were %q", got, completions)
		}
		left := rowsOfDB(t, db, queries["people who have left, with their completions"])
		if len(left) != 1 || left[0][0] != ids[1] || left[0][4] != "Manual Handling" || left[0][5] == "<nil>" {
			t.Errorf("people who have left: %q", left)
		}
		if got := rowsOfDB(t, db, rebind(d, `SELECT edapp_left FROM identities WHERE edapp_id = '`+ids[1]+`'`)); len(got) != 1 || (got[0][0] != "true" && got[0][0] != "1") {
			t.Errorf("the leaver in identities: edapp_left %q", got)
		}
	})
}

// quoteTime is v, a time scanned from the database, as an SQL literal.
func quoteTime(t *testing.T, d dbschema.Dialect, v any) string {
	if d == dbschema.Postgres {
		return "timestamptz '" + timeLiteral(t, d, v) + "'"
	}
	return "'" + timeLiteral(t, d, v) + "'"
}

// timeLiteral is v, a time scanned from the database, as docs/history.md
// writes one in d.
func timeLiteral(t *testing.T, d dbschema.Dialect, v any) string {
	t.Helper()
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	if tm, ok := v.(time.Time); ok {
		return tm.UTC().Format("2006-01-02 15:04:05.999999") + "+00"
	}
	t.Fatalf("a time of %T", v)
	return ""
}
