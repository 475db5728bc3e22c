package main

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/edapp-go/edapp/cmd/edapp/internal/dbtest"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/export/dbschema"
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

// TestExportDBStoresInvalidUTF8AndLongValues: bytes that are not UTF-8, in
// a known field and in one the SDK keeps raw, are stored as U+FFFD on both
// databases, and a value of 5,000 bytes is stored whole (PostgreSQL once
// refused both rows, on every run; see TestExportDBBoundsIndexedValues for
// an indexed column).
func TestExportDBStoresInvalidUTF8AndLongValues(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 0)
		long := strings.Repeat("x", 5000)
		serveUsers(t, srv, `{"id":"u-latin","name":"latin","firstName":"Ren`+"\xe9"+`","nickname":"caf`+"\xe9\xe9"+`"}`,
			`{"id":"u-long","name":"`+long+`"}`)
		r := runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users")
		wantCode(t, r, exitOK)
		db, dialect := openTestDB(t, url)
		var first, raw, external string
		if err := db.QueryRow(rebind(dialect, `SELECT first_name, raw FROM users WHERE id = ?`), "u-latin").Scan(&first, &raw); err != nil {
			t.Fatal(err)
		}
		var kept map[string]any
		err := json.Unmarshal([]byte(raw), &kept)
		if err != nil || first != "Ren\uFFFD" || !utf8.ValidString(raw) || !strings.Contains(raw, "caf\uFFFD\uFFFD") {
			t.Errorf("first_name %q, raw %s (%v): want each bad byte as U+FFFD", first, raw, err)
		}
		if err := db.QueryRow(rebind(dialect, `SELECT name FROM users WHERE id = ?`), "u-long").Scan(&external); err != nil || external != long {
			t.Errorf("name of %d bytes, %v; want %d", len(external), err, len(long))
		}
	})
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

// refuseNames makes the database refuse, with a data error, a row of
// table whose column starts with "bad": a CHECK constraint on PostgreSQL
// (SQLSTATE 23514), a trigger on SQLite (SQLITE_CONSTRAINT_TRIGGER).
func refuseNames(t *testing.T, db *sql.DB, dialect dbschema.Dialect, table, column string) {
	t.Helper()
	q := `ALTER TABLE ` + table + ` ADD CONSTRAINT no_bad CHECK (` + column + ` NOT LIKE 'bad%')`
	if dialect == dbschema.SQLite {
		q = `CREATE TRIGGER no_bad BEFORE INSERT ON ` + table + ` WHEN NEW.` + column + ` LIKE 'bad%' BEGIN SELECT RAISE(ABORT, 'bad row'); END`
	}
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
}

// TestExportDBRejectsRowsTheDatabaseRefuses: a batch the database refuses
// for one row is written again row by row under savepoints: the other
// rows of the batch are written, the refused ones go to rejects, and the
// run exits 3.
func TestExportDBRejectsRowsTheDatabaseRefuses(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 20)
		var bad []string
		for _, name := range []string{"bad1", "bad2"} {
			id, err := srv.AddUser(edapptest.UserSpec{Username: name})
			if err != nil {
				t.Fatal(err)
			}
			bad = append(bad, id)
		}
		db, dialect := migratedTestDB(t, url)
		refuseNames(t, db, dialect, "users", "name")
		r := runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users")
		wantCode(t, r, exitRejected)
		if got, want := dbCounts(t, db, []string{"users"})["users"], fakeCounts(t, srv)["users"]-2; got != want {
			t.Errorf("%d users, want the fake's %d but the 2 refused", got, want)
		}
		rejects := readRejects(t, db)
		if len(rejects) != 2 || rejects[0].identity+","+rejects[1].identity != strings.Join(bad, ",") ||
			rejects[0].source != "edapp" || rejects[0].kind != "users" || !strings.Contains(rejects[0].reason, "bad") &&
			!strings.Contains(rejects[0].reason, "no_bad") {
			t.Errorf("rejects %+v, want the users %v", rejects, bad)
		}
	})
}

// TestExportDBKeepsEachRejectOnce: a group the database refuses in its
// users' custom fields, after their users were written, is written again
// row by row; the user rejected before any statement, and the refused
// field, are each kept once. (On SQLite the group was written within a
// span, which its failure does not roll back: its rejects go in last.)
func TestExportDBKeepsEachRejectOnce(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 0)
		serveUsers(t, srv, `{"name":"no id"}`, `{"id":"u1","name":"one","customFields":{"site":"bad site","team":"Ops"}}`)
		db, dialect := migratedTestDB(t, url)
		refuseNames(t, db, dialect, "user_custom_fields", "value")
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users"), exitRejected)
		var kinds []string
		for _, rj := range readRejects(t, db) {
			kinds = append(kinds, rj.kind)
		}
		if strings.Join(kinds, ",") != "users,user_custom_fields" {
			t.Errorf("rejects of kinds %q, want one user and one custom field", kinds)
		}
		if got := rowIDs(t, db, `SELECT name FROM user_custom_fields`); strings.Join(got, ",") != "team" {
			t.Errorf("custom fields %q, want team only", got)
		}
		if got := rowIDs(t, db, `SELECT id FROM users`); strings.Join(got, ",") != "u1" {
			t.Errorf("users %q, want u1", got)
		}
	})
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

// TestExportDBBoundsIndexedValues: a value over maxIndexedBytes
// in an indexed column (users.external_id), which PostgreSQL's B-tree
// would refuse with its row, is stored as NULL there, on a first run (the
// index built after the load) and on a re-run (the index in place); the
// record is kept, its raw column holds the value, and nothing is rejected.
func TestExportDBBoundsIndexedValues(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 0)
		long := incompressible(3 * maxIndexedBytes) // PostgreSQL compresses an index entry first
		serveUsers(t, srv, `{"id":"a","name":"a","externalId":"`+long+`"}`, `{"id":"b","name":"b","externalId":"short"}`)
		for run := 1; run <= 2; run++ {
			r := runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users")
			wantCode(t, r, 0)
		}
		db, _ := openTestDB(t, url)
		got := rowIDs(t, db, `SELECT id || ':' || COALESCE(SUBSTR(external_id, 1, 5), 'NULL') FROM users ORDER BY id`)
		if strings.Join(got, ",") != "a:NULL,b:short" {
			t.Errorf("users %q, want a:NULL and b:short", got)
		}
		var raw string
		if err := db.QueryRow(`SELECT raw FROM users WHERE id = 'a'`).Scan(&raw); err != nil || !strings.Contains(raw, long) {
			t.Errorf("raw holds the long value: %v (%v)", strings.Contains(raw, long), err)
		}
		if n := len(readRejects(t, db)); n != 0 {
			t.Errorf("%d rejects, want none", n)
		}
	})
}

// incompressible is n characters of hexadecimal from a fixed seed.
func incompressible(n int) string {
	b := make([]byte, (n+1)/2)
	rand.NewChaCha8([32]byte{1}).Read(b)
	return hex.EncodeToString(b)[:n]
}

// keptReject is a row of the rejects table as by-record keeping shapes it.
type keptReject struct {
	kind, identity string
	count          int
	rawBytes       int64
	raw            string
}

// readKeptRejects is the rejects table's rows, by identity ("" for none).
func readKeptRejects(t *testing.T, db *sql.DB) map[string]keptReject {
	t.Helper()
	rows, err := db.Query(`SELECT kind, COALESCE(identity, ''), count, COALESCE(raw_bytes, 0), COALESCE(CAST(raw AS TEXT), '') FROM rejects`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]keptReject{}
	for rows.Next() {
		var r keptReject
		if err := rows.Scan(&r.kind, &r.identity, &r.count, &r.rawBytes, &r.raw); err != nil {
			t.Fatal(err)
		}
		if _, dup := out[r.identity]; dup {
			t.Errorf("two rejects of %q", r.identity)
		}
		out[r.identity] = r
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExportDBKeepsOneRejectPerRecord: three runs that refuse the same
// records (one the database refuses, one with no identity, one of 4 MB)
// leave one row each, counting 3; the 4 MB body is kept cut, within
// maxRejectRawBytes, its size in raw_bytes; a record accepted
// by a later run has its row removed, and the others count 4.
func TestExportDBKeepsOneRejectPerRecord(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 0)
		huge := `{"id":"u-huge","name":"bad huge","nickname":"` + incompressible(4<<20) + `"}`
		serveUsers(t, srv, `{"id":"u-bad","name":"bad one"}`, `{"name":"no id"}`, huge, `{"id":"ok","name":"ok"}`)
		db, dialect := migratedTestDB(t, url)
		refuseNames(t, db, dialect, "users", "name")
		for range 3 {
			wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users"), exitRejected)
		}
		got := readKeptRejects(t, db)
		if len(got) != 3 || got["u-bad"].count != 3 || got[""].count != 3 || got["u-huge"].count != 3 {
			t.Fatalf("rejects %v, want u-bad, u-huge and the one without identity, 3 times each", summarise(got))
		}
		if r := got["u-huge"]; len(r.raw) > maxRejectRawBytes || len(r.raw) < maxRejectRawBytes/2 ||
			r.rawBytes < 4<<20 || !strings.HasPrefix(r.raw, `"{\"id\":\"u-huge\"`) {
			t.Errorf("the 4 MB reject kept %d bytes (%.40s), raw_bytes %d: want at most %d, and its size", len(r.raw), r.raw, r.rawBytes,
				maxRejectRawBytes)
		}
		serveUsers(t, srv, `{"id":"u-bad","name":"good now"}`, `{"name":"no id"}`, huge, `{"id":"ok","name":"ok"}`)
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users"), exitRejected)
		got = readKeptRejects(t, db)
		if _, kept := got["u-bad"]; kept || len(got) != 2 || got["u-huge"].count != 4 || got[""].count != 4 {
			t.Errorf("after u-bad was accepted: rejects %v, want u-huge and the one without identity, 4 times each", summarise(got))
		}
	})
}

// summarise is rejects' identities and counts.
func summarise(rs map[string]keptReject) map[string]int {
	out := map[string]int{}
	for id, r := range rs {
		out[id] = r.count
	}
	return out
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
