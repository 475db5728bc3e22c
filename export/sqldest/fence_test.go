package sqldest

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/edapp-go/edapp/export/dbtest"
)

// openFence opens a new PostgreSQL database and a fence of the EdApp
// source on it, draining for at most wait.
func openFence(t *testing.T, wait time.Duration) (*sql.DB, *fence) {
	t.Helper()
	db, err := sql.Open("pgx", dbtest.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, newFence(SourceEdApp, wait)
}

// ownerConn is a connection of db on which f took its lock and noted the
// owner (Take, Held, Drain).
func ownerConn(t *testing.T, ctx context.Context, db *sql.DB, f *fence) *sql.Conn {
	t.Helper()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if ok, err := f.Take(ctx, conn); err != nil || !ok {
		t.Fatalf("Take: %v, %v", ok, err)
	}
	if err := f.Held(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if err := f.Drain(ctx, conn); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestFenceTakeRefusesASecondOwner: a second session cannot take the
// lock while the first holds it, and can once it lets it go.
func TestFenceTakeRefusesASecondOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, f := openFence(t, time.Second)
	first := ownerConn(t, ctx, db, f)
	second, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if ok, err := newFence(SourceEdApp, time.Second).Take(ctx, second); err != nil || ok {
		t.Fatalf("a second Take while the first holds the lock: %v, %v", ok, err)
	}
	if ok, err := newFence(SourceSafetyCulture, time.Second).Take(ctx, second); err != nil || !ok {
		t.Fatalf("the other source's lock: %v, %v", ok, err)
	}
	f.Release(ctx, first)
	if ok, err := newFence(SourceEdApp, time.Second).Take(ctx, second); err != nil || !ok {
		t.Fatalf("Take once the first let go: %v, %v", ok, err)
	}
}

// TestFenceEnterChecksTheOwner: a writer's transaction enters while the
// owner's session holds the lock, and fails with errOwnerLost once that
// session has ended.
func TestFenceEnterChecksTheOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, f := openFence(t, time.Second)
	owner := ownerConn(t, ctx, db, f)
	enter := func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		return f.Enter(ctx, tx)
	}
	if err := enter(); err != nil {
		t.Fatalf("Enter while the owner holds the lock: %v", err)
	}
	lost(owner) // its session ends, and the lock with it
	deadline := time.Now().Add(10 * time.Second)
	for err := enter(); !errors.Is(err, errOwnerLost); err = enter() {
		if time.Now().After(deadline) {
			t.Fatalf("Enter after the owner's session ended: %v, want errOwnerLost", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestFenceDrainWaitsForTheWriters: Drain returns only once the writers'
// transactions under way have ended, and is ErrLocked when one outlasts
// its wait.
func TestFenceDrainWaitsForTheWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, f := openFence(t, 300*time.Millisecond)
	owner := ownerConn(t, ctx, db, f)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Enter(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if err := f.Drain(ctx, owner); !errors.Is(err, ErrLocked) {
		t.Fatalf("Drain while a writer's transaction is open: %v, want ErrLocked", err)
	}
	again, err := db.Conn(ctx) // the wait that ended cancelled the statement, and its session
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	drained := make(chan error, 1)
	go func() { drained <- newFence(SourceEdApp, 5*time.Second).Drain(ctx, again) }()
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-drained:
		t.Fatalf("Drain returned (%v) before the writer's transaction ended", err)
	default:
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-drained; err != nil {
		t.Fatalf("Drain once the writer committed: %v", err)
	}
}

// TestFenceHeldRefusesAnotherSession: Held is ErrSessionLock when the
// session it reaches does not hold the lock (a pooler in transaction
// mode), and lets the lock go.
func TestFenceHeldRefusesAnotherSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, f := openFence(t, time.Second)
	holder, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if ok, err := f.Take(ctx, holder); err != nil || !ok {
		t.Fatalf("Take: %v, %v", ok, err)
	}
	other, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := f.Held(ctx, other); !errors.Is(err, ErrSessionLock) {
		t.Fatalf("Held on a session without the lock: %v, want ErrSessionLock", err)
	}
}
