package sqldest

import (
	"context"
	"testing"

	"github.com/edapp-go/edapp"
)

// A complete walk mirrors the service: the rows it did not see go.

func TestDatabaseMirrorsDeletions(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, demo := exportFixture(t, 3)
		if err := runDBExport(t, context.Background(), srv, url); err != nil {
			t.Fatal(err)
		}
		db, d := openTestDB(t, url)
		gone := demo.UserIDs[2]
		if err := srv.Client().Users.Delete(context.Background(), gone); err != nil {
			t.Fatal(err)
		}
		has := func() bool {
			var n int
			if err := db.QueryRow(rebind(d, `SELECT COUNT(*) FROM users WHERE id = ?`), gone).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n == 1
		}
		// An interrupted run deletes nothing.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		err := runDBExport(t, ctx, srv, url, kinds("users"), onRecords(func(kind string, n int) {
			if kind == "users" && n == 2 {
				cancel()
			}
		}))
		if err == nil {
			t.Error("the interrupted run succeeded")
		}
		if !has() {
			t.Error("an interrupted run deleted the user")
		}
		if err := runDBExport(t, context.Background(), srv, url, kinds("users")); err != nil {
			t.Fatal(err)
		}
		if has() {
			t.Error("the deleted user is still in users")
		}
		if got, want := countRows(t, db, `SELECT COUNT(*) FROM users`), fakeUsers(t, srv); got != want {
			t.Errorf("users: %d rows, the fake holds %d", got, want)
		}
	})
}

// TestDatabaseLeavesUnchangedRowsAlone: a re-run writes only the users
// that changed (their edapp_run moves on; the others keep the first
// run's), and deletes the one the service deleted, also when its walk
// was interrupted after writing some of its pages and resumed by the
// next run: the keys the first part saw are in edapp_export_seen.
func TestDatabaseLeavesUnchangedRowsAlone(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, demo := exportFixture(t, 12)
		ctx := context.Background()
		if err := runDBExport(t, ctx, srv, url, pageSize(5), kinds("users")); err != nil {
			t.Fatal(err)
		}
		db, d := openTestDB(t, url)
		before := usersRuns(t, db)
		gone, changed := demo.UserIDs[2], demo.UserIDs[0]
		if err := srv.Client().Users.Delete(ctx, gone); err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Client().Users.Update(ctx, changed, edapp.UserUpdateParams{FirstName: edapp.Ptr("Renamed")}); err != nil {
			t.Fatal(err)
		}
		exportUsersInterrupted(t, srv, url, db)
		if err := runDBExport(t, ctx, srv, url, pageSize(5), kinds("users")); err != nil {
			t.Fatal(err)
		}
		after := usersRuns(t, db)
		if _, ok := after[gone]; ok {
			t.Error("the deleted user is still in users")
		}
		if after[changed] == before[changed] {
			t.Error("the changed user kept its edapp_run")
		}
		var first string
		if err := db.QueryRow(rebind(d, `SELECT first_name FROM users WHERE id = ?`), changed).Scan(&first); err != nil || first != "Renamed" {
			t.Errorf("changed user's first_name %q, %v", first, err)
		}
		for id, run := range after {
			if id != changed && run != before[id] {
				t.Errorf("user %s: edapp_run %d, want the first run's %d (unchanged)", id, run, before[id])
			}
		}
		if got, want := len(after), fakeUsers(t, srv); got != want {
			t.Errorf("users: %d rows, the fake holds %d", got, want)
		}
		if n := countRows(t, db, `SELECT COUNT(*) FROM edapp_export_seen`); n != 0 {
			t.Errorf("edapp_export_seen keeps %d rows after the complete walk", n)
		}
	})
}
