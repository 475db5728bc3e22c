package sqldest

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/export"
)

// TestDatabaseWriteBesideTheOwnersCalls: on PostgreSQL a group goes to a
// pooled connection while a call on the Database's own connection (another
// kind's End, say) holds it.
func TestDatabaseWriteBesideTheOwnersCalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := &keyDriver{}
	db := sql.OpenDB(d)
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	x := newDatabase(conn, db, Postgres)
	k := &export.Kind{Name: "t"}
	x.kinds.set(k.Name, &dbKind{t: seenTable(), walk: walkState{run: 1}})
	x.own.mu.Lock()
	defer x.own.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- x.Write(ctx, &export.Batch{Kind: k, Pages: 1}) }()
	select {
	case <-done: // the fake cannot answer the lock check: any outcome will do
	case <-time.After(time.Minute):
		t.Fatal("Write waited for the owner's call")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !slices.ContainsFunc(d.stmts, func(s string) bool { return strings.Contains(s, "pg_advisory_xact_lock_shared") }) {
		t.Errorf("statements %q: the write never began", d.stmts)
	}
}
