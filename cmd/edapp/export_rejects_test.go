package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
)

// serveUsers overrides the fake's GET /v2/users with one page holding the
// given users, as raw JSON: bytes the fake itself would never send.
func serveUsers(t *testing.T, srv *edapptest.Server, users ...string) {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		items := users
		if page, _ := strconv.Atoi(r.URL.Query().Get("page")); page > 1 {
			items = nil
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"totalCount":` + strconv.Itoa(len(users)) + `,"items":[` + strings.Join(items, ",") + `]}`))
	})
	if err := srv.Handle("GET /v2/users", h); err != nil {
		t.Fatal(err)
	}
}

// rejectRow is a row of the rejects table.
type rejectRow struct{ source, kind, identity, reason string }

func readRejects(t *testing.T, db *sql.DB) []rejectRow {
	t.Helper()
	rows, err := db.Query(`SELECT source, kind, COALESCE(identity, ''), reason FROM rejects ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []rejectRow
	for rows.Next() {
		var r rejectRow
		if err := rows.Scan(&r.source, &r.kind, &r.identity, &r.reason); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestExportDBRejectsRecordsWithoutUsableIdentity: ids sent as numbers
// keep their text; a record whose id is missing, empty or neither a
// string nor a number, or whose key is over maxKeyBytes, goes to
// rejects, never under the key ”. The run exits 3 and --stats counts them.
func TestExportDBRejectsRecordsWithoutUsableIdentity(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 0)
		longID, longField := strings.Repeat("i", maxKeyBytes+1), strings.Repeat("f", maxKeyBytes+1)
		serveUsers(t, srv, `{"id":42,"name":"n42"}`, `{"id":43,"name":"n43"}`, `{"name":"no id"}`, `{"id":"","name":"empty"}`,
			`{"id":true,"name":"bool"}`, `{"id":"`+longID+`","name":"long"}`, `{"id":"ok","name":"ok","customFields":{"`+longField+`":"v","site":"Perth"}}`)
		stats := t.TempDir() + "/stats.json"
		r := runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users", "--stats", stats)
		wantCode(t, r, exitRejected)
		db, _ := openTestDB(t, url)
		if got := rowIDs(t, db, `SELECT id FROM users ORDER BY id`); strings.Join(got, ",") != "42,43,ok" {
			t.Errorf("users %q, want 42, 43 and ok", got)
		}
		if got := rowIDs(t, db, `SELECT name FROM user_custom_fields`); strings.Join(got, ",") != "site" {
			t.Errorf("custom fields %q, want site only", got)
		}
		rejects := readRejects(t, db)
		var kinds []string
		for _, rj := range rejects {
			kinds = append(kinds, rj.kind)
		}
		if strings.Join(kinds, ",") != "users,users,users,users,user_custom_fields" || rejects[3].identity != longID {
			t.Errorf("rejects %+v", rejects)
		}
		b, err := os.ReadFile(stats)
		var got struct{ Rejected map[string]int }
		if err != nil || json.Unmarshal(b, &got) != nil || got.Rejected["users"] != 5 {
			t.Errorf("--stats: %s (%v), want 5 rejected users", b, err)
		}
		if !strings.Contains(r.stdout, "5 rejected") || !strings.Contains(r.stderr, "rejected record(s)") {
			t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
		}
	})
}

// rowIDs is the one text column of q's rows.
func rowIDs(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExportDBRecreatesADroppedTable: a table dropped by hand is recreated
// when the export opens the database, though the schema version says it
// exists, and the export says so, naming edapp db repair; the mirrored
// kind refills it and the incremental kind's cursor starts over, so both
// hold everything again.
func TestExportDBRecreatesADroppedTable(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 5)
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users,attempts"), exitOK)
		db, d := openTestDB(t, url)
		for _, tb := range []string{"users", "attempts"} {
			cascade := "" // PostgreSQL drops the views that read the table with it
			if d == dbschema.Postgres {
				cascade = " CASCADE"
			}
			if _, err := db.Exec(`DROP TABLE ` + tb + cascade); err != nil {
				t.Fatal(err)
			}
		}
		r := runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users,attempts")
		wantCode(t, r, exitOK)
		if !strings.Contains(r.stderr, "table(s) users, attempts (dropped by hand?): re-created them") || !strings.Contains(r.stderr, "edapp db repair") {
			t.Errorf("the export did not say what it re-created, naming edapp db repair:\n%s", r.stderr)
		}
		got, want := dbCounts(t, db, []string{"users", "attempts"}), fakeCounts(t, srv)
		for _, tb := range []string{"users", "attempts"} {
			if got[tb] != want[tb] || got[tb] == 0 {
				t.Errorf("%s: %d rows after the drop, the fake holds %d", tb, got[tb], want[tb])
			}
		}
		rowsOfDB(t, db, `SELECT COUNT(*) FROM training_completions`) // dropped with users on PostgreSQL, made again
	})
}

// TestExportRejectsExitCode: --rejects-exit-code (or
// EDAPP_REJECTS_EXIT_CODE) sets the code of a run that finished with
// rejected records, 3 by default; the rejects still show in the summary,
// --stats and the log. A bad value is a usage error, before anything runs.
func TestExportRejectsExitCode(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 0)
	serveUsers(t, srv, `{"name":"no id"}`, `{"id":"u1","name":"one"}`)
	for _, tc := range []struct {
		name string
		env  env
		args []string
		code int
	}{
		{"default", nil, nil, exitRejected},
		{"flag", nil, []string{"--rejects-exit-code", "0"}, exitOK},
		{"environment", env{"EDAPP_REJECTS_EXIT_CODE": "0"}, nil, exitOK},
		{"flag over environment", env{"EDAPP_REJECTS_EXIT_CODE": "0"}, []string{"--rejects-exit-code", "7"}, 7},
		{"flag out of range", nil, []string{"--rejects-exit-code", "126"}, exitUsage},
		{"environment not a number", env{"EDAPP_REJECTS_EXIT_CODE": "zero"}, nil, exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := fakeEnv(srv)
			for k, v := range tc.env {
				e[k] = v
			}
			db := dbtest.SQLite(t)
			args := append([]string{"--db", db, "--kinds", "users", "--stats", "-"}, tc.args...)
			r := runExportEnv(context.Background(), e, nil, args...)
			wantCode(t, r, tc.code)
			if tc.code == exitUsage {
				if _, err := os.Stat(strings.TrimPrefix(db, "sqlite:")); err == nil {
					t.Errorf("a bad value made the database")
				}
				return
			}
			if !strings.Contains(r.stderr, "finished, with 1 rejected record(s)") || !strings.Contains(r.stdout, `"rejected":{"users":1}`) ||
				!strings.Contains(r.stdout, "1 rejected (see the rejects table)") {
				t.Errorf("the reject is not reported:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			}
		})
	}
}
