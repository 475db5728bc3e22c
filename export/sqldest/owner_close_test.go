package sqldest

import (
	"context"
	"testing"

	"github.com/edapp-go/edapp/export/dbtest"
)

// TestOwnerCloseReleasesTheLockAfterACanceledWrite: a transaction on the
// owner's SQLite connection whose ctx ends can leave the connection inside
// it (database/sql has let it go); closing still releases the lock, so
// another export in the same process takes the database at once.
func TestOwnerCloseReleasesTheLockAfterACanceledWrite(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, dbtest.MigratedSQLite(t, SQLiteDSN), SQLiteDSN)
	x, err := OpenDatabase(t.Context(), db, SQLite, WithLockWait(0))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	tx, err := x.own.conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE edapp_export_lock SET runs = runs`); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	y, err := OpenDatabase(t.Context(), db, SQLite, WithLockWait(0))
	if err != nil {
		t.Fatalf("a second export after the first closed: %v", err)
	}
	if err := y.Close(); err != nil {
		t.Fatal(err)
	}
}
