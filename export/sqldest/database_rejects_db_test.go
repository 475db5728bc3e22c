package sqldest

import (
	"context"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/export/internal/dbwrite"
)

// The rejects table: the records the database refused, kept apart.

// TestDatabaseRejectsRowsTheDatabaseRefuses: a batch the database refuses
// for one row is written again row by row under savepoints: the other
// rows of the batch are written, the refused ones go to rejects, and the
// run reports them rejected (the command exits 3).
func TestDatabaseRejectsRowsTheDatabaseRefuses(t *testing.T) {
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
		wantRejected(t)(exportInto(t, context.Background(), srv.Client(), url, kinds("users")))
		if got, want := countRows(t, db, `SELECT COUNT(*) FROM users`), fakeUsers(t, srv)-2; got != want {
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

// TestDatabaseKeepsEachRejectOnce: a group the database refuses in its
// users' custom fields, after their users were written, is written again
// row by row; the user rejected before any statement, and the refused
// field, are each kept once. (On SQLite the group was written within a
// span, which its failure does not roll back: its rejects go in last.)
func TestDatabaseKeepsEachRejectOnce(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 0)
		serveUsers(t, srv, `{"name":"no id"}`, `{"id":"u1","name":"one","customFields":{"site":"bad site","team":"Ops"}}`)
		db, dialect := migratedTestDB(t, url)
		refuseNames(t, db, dialect, "user_custom_fields", "value")
		wantRejected(t)(exportInto(t, context.Background(), srv.Client(), url, kinds("users")))
		var rejectedKinds []string
		for _, rj := range readRejects(t, db) {
			rejectedKinds = append(rejectedKinds, rj.kind)
		}
		if strings.Join(rejectedKinds, ",") != "users,user_custom_fields" {
			t.Errorf("rejects of kinds %q, want one user and one custom field", rejectedKinds)
		}
		if got := column(t, db, `SELECT name FROM user_custom_fields`); strings.Join(got, ",") != "team" {
			t.Errorf("custom fields %q, want team only", got)
		}
		if got := column(t, db, `SELECT id FROM users`); strings.Join(got, ",") != "u1" {
			t.Errorf("users %q, want u1", got)
		}
	})
}

// TestDatabaseKeepsOneRejectPerRecord: three runs that refuse the same
// records (one the database refuses, one with no identity, one of 4 MB)
// leave one row each, counting 3; the 4 MB body is kept cut, within
// dbwrite.MaxRejectRawBytes, its size in raw_bytes; a record accepted
// by a later run has its row removed, and the others count 4.
func TestDatabaseKeepsOneRejectPerRecord(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 0)
		huge := `{"id":"u-huge","name":"bad huge","nickname":"` + incompressible(4<<20) + `"}`
		serveUsers(t, srv, `{"id":"u-bad","name":"bad one"}`, `{"name":"no id"}`, huge, `{"id":"ok","name":"ok"}`)
		db, dialect := migratedTestDB(t, url)
		refuseNames(t, db, dialect, "users", "name")
		for range 3 {
			wantRejected(t)(exportInto(t, context.Background(), srv.Client(), url, kinds("users")))
		}
		got := readKeptRejects(t, db)
		if len(got) != 3 || got["u-bad"].count != 3 || got[""].count != 3 || got["u-huge"].count != 3 {
			t.Fatalf("rejects %v, want u-bad, u-huge and the one without identity, 3 times each", summarise(got))
		}
		if r := got["u-huge"]; len(r.raw) > dbwrite.MaxRejectRawBytes || len(r.raw) < dbwrite.MaxRejectRawBytes/2 ||
			r.rawBytes < 4<<20 || !strings.HasPrefix(r.raw, `"{\"id\":\"u-huge\"`) {
			t.Errorf("the 4 MB reject kept %d bytes (%.40s), raw_bytes %d: want at most %d, and its size", len(r.raw), r.raw, r.rawBytes,
				dbwrite.MaxRejectRawBytes)
		}
		serveUsers(t, srv, `{"id":"u-bad","name":"good now"}`, `{"name":"no id"}`, huge, `{"id":"ok","name":"ok"}`)
		wantRejected(t)(exportInto(t, context.Background(), srv.Client(), url, kinds("users")))
		got = readKeptRejects(t, db)
		if _, kept := got["u-bad"]; kept || len(got) != 2 || got["u-huge"].count != 4 || got[""].count != 4 {
			t.Errorf("after u-bad was accepted: rejects %v, want u-huge and the one without identity, 4 times each", summarise(got))
		}
	})
}

// wantRejected is a check of an export's outcome: complete, with records
// rejected (the command's exit code 3).
func wantRejected(t *testing.T) func(rejected int, err error) {
	t.Helper()
	return func(rejected int, err error) {
		t.Helper()
		if err != nil || rejected == 0 {
			t.Fatalf("%d rejected, %v; want some rejected and no error", rejected, err)
		}
	}
}

// rejectRow is a row of the rejects table.
type rejectRow struct{ source, kind, identity, reason string }

// keptReject is a row of the rejects table as by-record keeping shapes it.
type keptReject struct {
	kind, identity string
	count          int
	rawBytes       int64
	raw            string
}
