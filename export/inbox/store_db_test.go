package inbox_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/export/inbox"
	"github.com/edapp-go/edapp/export/sqldest"
	"github.com/edapp-go/edapp/webhook"
)

// The inbox's store against real databases: a fresh SQLite file and a
// fresh database on a PostgreSQL server the test binary starts.

func TestMain(m *testing.M) { dbtest.Main(m) }

// eachDatabase runs f against a fresh SQLite file and a fresh PostgreSQL
// database, each with the schema at its latest version.
func eachDatabase(t *testing.T, f func(t *testing.T, url string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, dbtest.MigratedSQLite(t, sqldest.SQLiteDSN)) })
	t.Run("postgres", func(t *testing.T) { f(t, dbtest.MigratedPostgres(t)) })
}

// openTestDB opens url as the edapp command opens a --db URL.
func openTestDB(t *testing.T, url string) (*sql.DB, dbschema.Dialect) {
	t.Helper()
	db := dbtest.Open(t, url, sqldest.SQLiteDSN)
	if dbtest.IsPostgres(url) {
		return db, dbschema.Postgres
	}
	return db, dbschema.SQLite
}

// migratedTestDB is openTestDB with the schema at its latest version.
func migratedTestDB(t *testing.T, url string) (*sql.DB, dbschema.Dialect) {
	t.Helper()
	db, dialect := openTestDB(t, url)
	if err := dbschema.NewMigrator(db, dialect).Up(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, dialect
}

func countEvents(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM events`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// lessonDelivery is a delivery of a distinct LessonCompletedEvent for i.
func lessonDelivery(i int) (body []byte, key string) {
	ev := &edapp.LessonCompletedEvent{
		UserID: fmt.Sprintf("user-%04d", i), LessonID: "lesson-1", CourseID: "course-1", Score: float64(i % 100),
		Timestamp: edapp.Time{Time: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Millisecond)},
	}
	body = webhook.NewTestDelivery(ev)
	parsed, _ := edapp.ParseEvent(body)
	return body, edapp.EventKey(parsed)
}

// refuseNames makes the database refuse a row of table whose column starts
// with "bad".
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

// TestStoreDurabilitySettings reads back what the writer's connection runs
// with: WAL, synchronous FULL and a busy timeout on SQLite;
// synchronous_commit on for PostgreSQL even where the database's default
// is off.
func TestStoreDurabilitySettings(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
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
		store := newTestStore(t, db, dialect)
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

// TestStorePut: Put's answers, its refusals, and after Close.
func TestStorePut(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, dialect := openTestDB(t, url)
		store := newTestStore(t, db, dialect)
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
				_, err := inbox.NewStore(ctx, db, inbox.Dialect(dialect), inbox.WithWriteTimeout(0))
				return err
			},
			"no database":     func() error { _, err := inbox.NewStore(ctx, nil, inbox.SQLite); return err },
			"unknown dialect": func() error { _, err := inbox.NewStore(ctx, db, inbox.Dialect(9)); return err },
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

// TestStoreBatch: deliveries that wait together for the writer are
// committed in one transaction. Within it, a key that comes twice is
// stored once, its copies answered as already stored; a row the database
// refuses fails alone, the others of its batch are stored.
func TestStoreBatch(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		db, dialect := openTestDB(t, url)
		store := newTestStore(t, db, dialect)
		defer store.Close()
		refuseUser(t, db, dialect, "refused")
		for _, users := range [][]string{{"a", "b", "a", "a", "c"}, {"d", "refused", "e"}} {
			stored := map[string]int{}
			for i, r := range putTogether(t, db, dialect, store, users) {
				switch {
				case users[i] == "refused":
					if r.err == nil || errors.Is(r.err, webhook.ErrUnavailable) {
						t.Errorf("the refused row: %v, %v; want the database's error", r.stored, r.err)
					}
				case r.err != nil:
					t.Errorf("%s: %v", users[i], r.err)
				case r.stored:
					stored[users[i]]++
				}
			}
			for _, u := range users {
				if u != "refused" && stored[u] != 1 {
					t.Errorf("%v: answered stored %v, want each once but refused", users, stored)
					break
				}
			}
		}
		if n := countEvents(t, db); n != 5+1 { // and the one putTogether puts first
			t.Errorf("%d rows, want 6", n)
		}
	})
}

// TestStorePutNUL: a delivery with a NUL character in a string is stored
// on both databases: as sent on SQLite, with U+FFFD in its place on
// PostgreSQL, whose text and jsonb cannot hold it.
func TestStorePutNUL(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, dialect := openTestDB(t, url)
		store := newTestStore(t, db, dialect)
		defer store.Close()
		putNew(t, store, `{"eventName":"LessonCompletedEvent","userId":"u1","userName":"Ann\u0000Lee","lessonId":"l1",`+
			`"timestamp":"2026-11-24T10:00:00Z","extra":"x\u0000"}`)
		var name, raw string
		if err := db.QueryRowContext(ctx, `SELECT user_name, raw FROM events`).Scan(&name, &raw); err != nil {
			t.Fatal(err)
		}
		nul := "\x00"
		if dialect == dbschema.Postgres {
			nul = "\uFFFD"
		}
		if name != "Ann"+nul+"Lee" {
			t.Errorf("user_name %q, want %q", name, "Ann"+nul+"Lee")
		}
		var kept map[string]any
		if err := json.Unmarshal([]byte(raw), &kept); err != nil || kept["userName"] != "Ann"+nul+"Lee" || kept["extra"] != "x"+nul {
			t.Errorf("raw %s (%v), want the NULs as %q", raw, err, nul)
		}
	})
}

// TestStorePutInvalidUTF8: a delivery with bytes that are not UTF-8 is
// stored on both databases with U+FFFD for each bad byte, in its columns
// and in raw; PostgreSQL refused it (SQLSTATE 22021) on every retry.
func TestStorePutInvalidUTF8(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, dialect := openTestDB(t, url)
		store := newTestStore(t, db, dialect)
		defer store.Close()
		putNew(t, store, `{"eventName":"LessonCompletedEvent","userId":"u1","userName":"Ren`+"\xe9"+`","lessonId":"l1",`+
			`"timestamp":"2026-11-24T10:00:00Z","extra":"caf`+"\xe9\xe9"+`"}`)
		var name, raw string
		if err := db.QueryRowContext(ctx, `SELECT user_name, raw FROM events`).Scan(&name, &raw); err != nil {
			t.Fatal(err)
		}
		if name != "Ren\uFFFD" || !utf8.ValidString(raw) || !strings.Contains(raw, "caf\uFFFD\uFFFD") {
			t.Errorf("user_name %q, raw %q: want each bad byte as U+FFFD", name, raw)
		}
	})
}

// TestStoreRejectsADeliveryTheDatabaseRefuses: a delivery the database
// refuses for good (a data error) goes to the rejects table and Put
// answers ErrRejected, which the handler answers 422; the deliveries
// beside it are stored.
func TestStoreRejectsADeliveryTheDatabaseRefuses(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, dialect := migratedTestDB(t, url)
		refuseNames(t, db, dialect, "events", "user_id")
		store := newTestStore(t, db, dialect)
		defer store.Close()
		put := func(user string) error {
			body := []byte(`{"eventName":"LessonCompletedEvent","userId":"` + user + `","lessonId":"l1","timestamp":"2026-11-24T10:00:00Z"}`)
			ev, err := edapp.ParseEvent(body)
			if err != nil {
				t.Fatal(err)
			}
			_, err = store.Put(ctx, ev, body)
			return err
		}
		errs := make([]error, 3)
		var wg sync.WaitGroup
		for i, user := range []string{"u1", "bad-user", "u2"} {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = put(user) }()
		}
		wg.Wait()
		if errs[0] != nil || errs[2] != nil || !errors.Is(errs[1], webhook.ErrRejected) {
			t.Fatalf("Put: %v", errs)
		}
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM events`).Scan(&n); err != nil || n != 2 {
			t.Errorf("%d events stored (%v), want 2", n, err)
		}
		rejects := readRejects(t, db)
		if len(rejects) != 1 || rejects[0].kind != "events" || rejects[0].identity == "" {
			t.Errorf("rejects %+v", rejects)
		}
	})
}

// TestStorePutNullWhereNotSent: a field the delivery did not carry, or
// sent as null, is NULL in events on both databases, so that AVG(score)
// leaves the missing score out; a score sent as 0 is 0.
func TestStorePutNullWhereNotSent(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, dialect := migratedTestDB(t, url)
		store := newTestStore(t, db, dialect)
		defer store.Close()
		for _, body := range []string{
			`{"eventName":"LessonCompletedEvent","userId":"u1","lessonId":"l1","timestamp":"2026-11-24T10:00:00Z","score":0}`,
			`{"eventName":"LessonCompletedEvent","userId":"u2","lessonId":"l1","timestamp":"2026-11-24T10:00:00Z","score":10}`,
			`{"eventName":"LessonCompletedEvent","lessonId":"l1","timestamp":"2026-11-24T10:00:01Z"}`,
			`{"eventName":"LessonCompletedEvent","userId":null,"lessonId":"l1","timestamp":"2026-11-24T10:00:02Z","score":null}`,
		} {
			putNew(t, store, body)
		}
		var avg float64
		var scores, users, emails int
		if err := db.QueryRowContext(ctx, `SELECT AVG(score), COUNT(score), COUNT(user_id), COUNT(email) FROM events`).Scan(&avg, &scores, &users, &emails); err != nil {
			t.Fatal(err)
		}
		if avg != 5 || scores != 2 || users != 2 || emails != 0 {
			t.Errorf("AVG(score) %v, COUNT(score) %d, COUNT(user_id) %d, COUNT(email) %d; want 5, 2, 2, 0", avg, scores, users, emails)
		}
	})
}

type batchResult struct {
	stored bool
	err    error
}

func batchEvent(user string) edapp.Event {
	return &edapp.LessonCompletedEvent{UserID: user, LessonID: "lesson-1",
		Timestamp: edapp.Time{Time: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)}}
}

// refuseUser makes the database refuse to insert an event of user.
func refuseUser(t *testing.T, db *sql.DB, dialect dbschema.Dialect, user string) {
	t.Helper()
	stmts := []string{`CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.user_id = '` + user + `' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`}
	if dialect == dbschema.Postgres {
		stmts = []string{
			`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
				IF NEW.user_id = '` + user + `' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$`,
			`CREATE TRIGGER refuse BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse()`,
		}
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// putTogether puts an event of each of users at once, so that the writer
// finds them waiting together: another connection holds the events table
// while the writer is held up on a first event (of user "first", put once
// per test) and the others queue behind it.
func putTogether(t *testing.T, db *sql.DB, dialect dbschema.Dialect, store *inbox.Store, users []string) []batchResult {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	lock := []string{`BEGIN IMMEDIATE`}
	if dialect == dbschema.Postgres {
		lock = []string{`BEGIN`, `LOCK TABLE events IN EXCLUSIVE MODE`}
	}
	for _, q := range lock {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	put := func(user string, res *batchResult) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ev := batchEvent(user)
			res.stored, res.err = store.Put(ctx, ev, webhook.NewTestDelivery(ev))
		}()
	}
	// The sleeps let the writer take the first event, then the others
	// queue; the checks do not depend on them.
	put("first", &batchResult{})
	time.Sleep(100 * time.Millisecond)
	res := make([]batchResult, len(users))
	for i, u := range users {
		put(u, &res[i])
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	return res
}

// newTestStore opens an inbox.Store on db.
func newTestStore(t *testing.T, db *sql.DB, dialect dbschema.Dialect) *inbox.Store {
	t.Helper()
	store, err := inbox.NewStore(context.Background(), db, inbox.Dialect(dialect))
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// putNew stores the delivery body, which must be a new event.
func putNew(t *testing.T, store *inbox.Store, body string) {
	t.Helper()
	ev, err := edapp.ParseEvent([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if stored, err := store.Put(context.Background(), ev, []byte(body)); err != nil || !stored {
		t.Fatalf("Put = %v, %v", stored, err)
	}
}
