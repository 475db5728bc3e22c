package main

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/export/sqldest"
)

// rebind is query with PostgreSQL's placeholders $1, $2, ... for its ?s
// when d is PostgreSQL.
func rebind(d dbschema.Dialect, query string) string {
	if d != dbschema.Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r != '?' {
			b.WriteRune(r)
			continue
		}
		n++
		fmt.Fprintf(&b, "$%d", n)
	}
	return b.String()
}

// latestVersion is the schema version of the last migration.
func latestVersion() int {
	ms := dbschema.Migrations()
	return ms[len(ms)-1].Version
}

// The bounds of the export's SQL destination, and how SQLite holds a time.
const (
	maxKeyBytes       = 2000     // a record's key columns together
	maxIndexedBytes   = 2000     // a text value in an indexed column
	maxRejectRawBytes = 64 << 10 // a reject's raw column
	sqliteTimeLayout  = "2006-01-02T15:04:05.000000Z"
)

// bothDBs runs f against a fresh SQLite file and a fresh PostgreSQL
// database, each with the schema at its latest version.
func bothDBs(t *testing.T, f func(t *testing.T, url string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, dbtest.MigratedSQLite(t, sqldest.SQLiteDSN)) })
	t.Run("postgres", func(t *testing.T) { f(t, dbtest.MigratedPostgres(t)) })
}

// bothEmptyDBs runs f against a new, empty SQLite file and PostgreSQL
// database: for a test of the migrations themselves.
func bothEmptyDBs(t *testing.T, f func(t *testing.T, url string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, dbtest.SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, dbtest.Postgres(t)) })
}

func TestOpenDBUnreachableHidesPassword(t *testing.T) {
	t.Parallel()
	port := freeLoopbackPort(t)
	_, _, err := openDB(context.Background(), "postgres://edapp:hunter2secret@127.0.0.1:"+port+"/edapp?sslmode=disable&connect_timeout=2")
	if err == nil {
		t.Fatal("no error")
	}
	if isUsage(err) {
		t.Errorf("an unreachable database is not a usage error: %v", err)
	}
	if strings.Contains(err.Error(), "hunter2secret") || !strings.Contains(err.Error(), "xxxxx") {
		t.Errorf("error: %v", err)
	}
}

func TestOpenDBBadURLIsUsage(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"mysql://u:hunter2secret@h/db", "sqlite:", "postgres://u:hunter2secret@h:port/db"} {
		_, _, err := openDB(context.Background(), raw)
		if !isUsage(err) || strings.Contains(err.Error(), "hunter2secret") {
			t.Errorf("openDB(%q): %v", raw, err)
		}
	}
}

// freeLoopbackPort returns a loopback port nothing listens on.
func freeLoopbackPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	return port
}

// A password given on the command line in --db or --redis draws one line of
// warning on stderr, which names the flag and never the password; the same
// URL from the environment draws none.
func TestWarnPasswordFlag(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	closed := "127.0.0.1:" + freeLoopbackPort(t) // nothing answers there: each run fails fast
	pg := "postgres://edapp:hunter2@" + closed + "/edapp"
	for _, tc := range []struct {
		name string
		env  env
		args []string
		warn string
	}{
		{"export --db", nil, []string{"export", "--db", pg}, "--db carries a password"},
		{"export --db password=", nil, []string{"export", "--db", "postgres://edapp@" + closed + "/edapp?password=hunter2"}, "--db carries a password"},
		{"export --redis", nil, []string{"export", "--out", t.TempDir(), "--kinds", "users", "--redis", "redis://:hunter2@" + closed}, "--redis carries a password"},
		{"serve --db", nil, []string{"webhooks", "serve", "--insecure-no-secret", "--addr", "127.0.0.1:0", "--db", pg}, "--db carries a password"},
		{"EDAPP_EXPORT_DB", env{"EDAPP_EXPORT_DB": pg}, []string{"export"}, ""},
		{"EDAPP_REDIS_URL", env{"EDAPP_REDIS_URL": "redis://:hunter2@" + closed}, []string{"export", "--out", t.TempDir(), "--kinds", "users"}, ""},
		{"no password", nil, []string{"export", "--db", "postgres://edapp@" + closed + "/edapp"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := fakeEnv(srv)
			maps.Copy(e, tc.env)
			r := runEnv(t, e, tc.args...)
			warnings := strings.Count(r.stderr, "warning:")
			if strings.Contains(r.stderr, "hunter2") || tc.warn == "" && warnings != 0 ||
				tc.warn != "" && (warnings != 1 || !strings.Contains(r.stderr, tc.warn)) {
				t.Errorf("stderr:\n%s", r.stderr)
			}
		})
	}
}

// TestOpenDBCreatesSQLitePrivate: a new SQLite database, and the -wal and
// -shm files beside it, are readable by their owner only; an existing
// file keeps its mode. The inbox and the export open theirs with openDB.
func TestOpenDBCreatesSQLitePrivate(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no Unix file modes")
	}
	dir := t.TempDir()
	write := func(path string) {
		t.Helper()
		db, _, err := openDB(context.Background(), "sqlite:"+path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS t (x INTEGER); INSERT INTO t VALUES (1)`); err != nil {
			t.Fatal(err)
		}
	}
	fresh := filepath.Join(dir, "new.db")
	write(fresh) // kept open, so that its -wal and -shm exist
	for _, p := range []string{fresh, fresh + "-wal", fresh + "-shm"} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v; want -rw-------", filepath.Base(p), fi.Mode(), err)
		}
	}
	shared := filepath.Join(dir, "shared.db")
	if err := os.WriteFile(shared, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	write(shared)
	if fi, err := os.Stat(shared); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("an existing file: %v, %v; want its mode kept", fi.Mode(), err)
	}
}

// TestOpenDBSQLiteTransactionsBeginImmediate: a transaction that reads,
// then writes, while another connection writes the same file, waits for
// it instead of failing with SQLITE_BUSY: transactions take the write lock
// at BEGIN.
func TestOpenDBSQLiteTransactionsBeginImmediate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := dbtest.SQLite(t)
	open := func() *sql.DB {
		db, _, err := openDB(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	export, inbox := open(), open()
	if _, err := export.Exec(`CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	tx, err := export.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM t`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	other := make(chan error, 1)
	go func() { _, err := inbox.Exec(`INSERT INTO t VALUES (2)`); other <- err }()
	select { // with a deferred BEGIN, the other write commits now
	case err := <-other:
		other <- err
	case <-time.After(time.Second):
	}
	if _, err := tx.Exec(`INSERT INTO t VALUES (1)`); err != nil {
		t.Fatalf("the write after a read, beside another writer: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-other; err != nil {
		t.Errorf("the other writer: %v", err)
	}
}

// Programs opening one new SQLite file at once race to switch it to WAL;
// the loser is told SQLITE_BUSY at once, whatever the busy timeout, and
// openDB asks again.
func TestOpenDBNewSQLiteFileAtOnce(t *testing.T) {
	t.Parallel()
	for round := range 5 {
		url := "sqlite:" + filepath.Join(t.TempDir(), "new.db")
		var wg sync.WaitGroup
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				db, _, err := openDB(context.Background(), url)
				if err != nil {
					t.Errorf("round %d: %v", round, err)
					return
				}
				db.Close()
			}()
		}
		wg.Wait()
	}
}

// TestOpenDBSQLitePageSize: a new SQLite database gets 16 KiB pages and
// WAL; one made before with SQLite's 4 KiB pages keeps them, in WAL, and
// takes writes.
func TestOpenDBSQLitePageSize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	settings := func(t *testing.T, path string) (pageSize int, mode string) {
		t.Helper()
		db, _, err := openDB(ctx, "sqlite:"+path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS t (x TEXT); INSERT INTO t VALUES ('row')`); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		return pageSize, mode
	}
	if size, mode := settings(t, filepath.Join(t.TempDir(), "new.db")); size != 16384 || mode != "wal" {
		t.Errorf("a new database: page_size %d, journal_mode %s; want 16384, wal", size, mode)
	}
	old := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", old)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; CREATE TABLE t (x TEXT)`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if size, mode := settings(t, old); size != 4096 || mode != "wal" {
		t.Errorf("an existing database: page_size %d, journal_mode %s; want 4096 kept, wal", size, mode)
	}
}
