package main

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/cmd/edapp/internal/dbtest"
	"github.com/edapp-go/edapp/internal/dbschema"
	"github.com/edapp-go/edapp/webhook"
)

// TestStoreDurabilitySettings reads back what the writer's connection runs
// with: WAL, synchronous FULL and a busy timeout on SQLite;
// synchronous_commit on for PostgreSQL even where the database's default
// is off.
func TestStoreDurabilitySettings(t *testing.T) {
	bothDBs(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, dialect := openTestDB(t, url)
		if dialect == dbschema.Postgres {
			var name string
			if err := db.QueryRow(`SELECT current_database()`).Scan(&name); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`ALTER DATABASE ` + name + ` SET synchronous_commit = off`); err != nil {
				t.Fatal(err)
			}
			db, _ = openTestDB(t, url) // new sessions take the new default
			var def string
			if err := db.QueryRow(`SHOW synchronous_commit`).Scan(&def); err != nil || def != "off" {
				t.Fatalf("default synchronous_commit %q, %v", def, err)
			}
		}
		store, err := webhook.NewStore(ctx, db, webhook.Dialect(dialect))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		got, err := store.Settings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"synchronous_commit": "on"}
		if dialect == dbschema.SQLite {
			want = map[string]string{"journal_mode": "wal", "synchronous": "2", "busy_timeout": "6000"}
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
			}
		}
	})
}

// TestServePostgresGoesAway: while the database refuses connections,
// deliveries get 503 with Retry-After and /healthz 503; once it is back,
// the same delivery is stored.
func TestServePostgresGoesAway(t *testing.T) {
	dbURL := dbtest.Postgres(t)
	in := startInbox(t, dbURL)
	first, _ := lessonDelivery(1)
	if status, _ := in.post(t, http.MethodPost, first, hookSecret); status != 200 {
		t.Fatalf("status %d", status)
	}
	admin, name := adminDB(t, dbURL)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := admin.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`ALTER DATABASE ` + name + ` WITH ALLOW_CONNECTIONS false`)
	exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, name)
	second, _ := lessonDelivery(2)
	status, retry := in.post(t, http.MethodPost, second, hookSecret)
	if status != http.StatusServiceUnavailable || retry == "" {
		t.Errorf("database away: status %d, Retry-After %q", status, retry)
	}
	if h := in.health(t); h != http.StatusServiceUnavailable {
		t.Errorf("database away: /healthz %d", h)
	}
	exec(`ALTER DATABASE ` + name + ` WITH ALLOW_CONNECTIONS true`)
	if status, _ := waitStatus(t, in, second, http.StatusOK); status != http.StatusOK {
		t.Errorf("database back: status %d", status)
	}
	if h := in.health(t); h != http.StatusOK {
		t.Errorf("database back: /healthz %d", h)
	}
	db, _ := openTestDB(t, dbURL)
	if n := countEvents(t, db); n != 2 {
		t.Errorf("%d rows, want 2", n)
	}
}

// adminDB opens the server's postgres database, to act on the test's.
func adminDB(t *testing.T, dbURL string) (*sql.DB, string) {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	db, _ := openTestDB(t, u.String())
	return db, name
}

// TestServeSQLiteLocked: while another program holds SQLite's write lock
// past the write timeout, a delivery gets 503; once it lets go, the
// delivery is stored.
func TestServeSQLiteLocked(t *testing.T) {
	dbURL := dbtest.SQLite(t)
	in := startInbox(t, dbURL)
	db, _ := openTestDB(t, dbURL)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	body, _ := lessonDelivery(1)
	status, retry := in.post(t, http.MethodPost, body, hookSecret)
	if status != http.StatusServiceUnavailable || retry == "" {
		t.Errorf("locked: status %d, Retry-After %q", status, retry)
	}
	if _, err := conn.ExecContext(context.Background(), `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if status, _ := waitStatus(t, in, body, http.StatusOK); status != http.StatusOK {
		t.Errorf("unlocked: status %d", status)
	}
	if n := countEvents(t, db); n != 1 {
		t.Errorf("%d rows, want 1", n)
	}
}

// TestStorePut: Put's answers, its refusals, and after Close.
func TestStorePut(t *testing.T) {
	bothDBs(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, dialect := openTestDB(t, url)
		store, err := webhook.NewStore(ctx, db, webhook.Dialect(dialect))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := lessonDelivery(3)
		ev, err := edapp.ParseEvent(body)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []bool{true, false} {
			if stored, err := store.Put(ctx, ev, body); err != nil || stored != want {
				t.Errorf("Put = %v, %v; want %v", stored, err, want)
			}
		}
		for name, call := range map[string]func() error{
			"nil event":    func() error { _, err := store.Put(ctx, nil, body); return err },
			"typed nil":    func() error { _, err := store.Put(ctx, (*edapp.LessonCompletedEvent)(nil), body); return err },
			"raw not JSON": func() error { _, err := store.Put(ctx, ev, []byte("{")); return err },
			"no raw":       func() error { _, err := store.Put(ctx, ev, nil); return err },
			"write timeout": func() error {
				_, err := webhook.NewStore(ctx, db, webhook.Dialect(dialect), webhook.WithWriteTimeout(0))
				return err
			},
			"no database":     func() error { _, err := webhook.NewStore(ctx, nil, webhook.SQLite); return err },
			"unknown dialect": func() error { _, err := webhook.NewStore(ctx, db, webhook.Dialect(9)); return err },
		} {
			if err := call(); !errors.Is(err, edapp.ErrInvalidInput) {
				t.Errorf("%s: %v", name, err)
			}
		}
		store.Close()
		if _, err := store.Put(ctx, ev, body); !errors.Is(err, webhook.ErrUnavailable) {
			t.Errorf("Put after Close: %v", err)
		}
	})
}
