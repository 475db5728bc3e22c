package main

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/export/sqldest"
)

// countingCopier is a BulkLoader that counts the rows it copies.
type countingCopier struct {
	sqldest.BulkLoader
	rows *atomic.Int64
}

func (c countingCopier) CopyRows(ctx context.Context, dc any, table string, cols []string, next func() ([]any, error)) (int64, error) {
	n, err := c.BulkLoader.CopyRows(ctx, dc, table, cols, next)
	c.rows.Add(n)
	return n, err
}

// withBulkLoader makes the export's database load with l.
func withBulkLoader(l sqldest.BulkLoader) func(*factory) {
	return func(f *factory) {
		f.OpenDatabase = func(ctx context.Context, db *sql.DB, d sqldest.Dialect, opts ...sqldest.DatabaseOption) (*sqldest.Database, error) {
			return sqldest.OpenDatabase(ctx, db, d, append(opts, sqldest.WithBulkLoader(l))...)
		}
	}
}

// TestPgxCopierCopyRows: a PostgreSQL export loads its rows by COPY, and
// holds what an export by statements holds, row for row.
func TestPgxCopierCopyRows(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 30)
	copied := &atomic.Int64{}
	bulk, statements := dbtest.Postgres(t), dbtest.Postgres(t)
	wantCode(t, runExport(t, context.Background(), srv, withBulkLoader(countingCopier{pgxCopier{}, copied}), "--db", bulk), exitOK)
	wantCode(t, runExport(t, context.Background(), srv, withBulkLoader(nil), "--db", statements), exitOK)
	a, _ := openTestDB(t, bulk)
	b, _ := openTestDB(t, statements)
	want := snapshot(t, b)
	rows := 0
	for _, tb := range want {
		rows += len(tb)
	}
	if got := copied.Load(); got < int64(rows) {
		t.Errorf("%d rows copied, want at least the %d the tables hold", got, rows)
	}
	diffSnapshots(t, "loaded by COPY against by statements", want, snapshot(t, a))
	// Again, over the rows the first run left: the merge updates them.
	wantCode(t, runExport(t, context.Background(), srv, withBulkLoader(pgxCopier{}), "--db", bulk, "--full"), exitOK)
	diffSnapshots(t, "loaded again by COPY against by statements", want, snapshot(t, a))
}

// killAtIndexBuild is the environment variable that makes TestExportChild
// kill itself (SIGKILL) when the export builds an index after a load.
const killAtIndexBuild = "EDAPP_EXPORT_CHILD_KILL_AT_INDEX"

// killAtIndexBuildURL is the --db of the child's arguments, which it
// opens again through hookedDB, to kill the process (SIGKILL) at the
// first statement that builds an index after a load.
func killAtIndexBuildURL(args string) string {
	fields := strings.Fields(args)
	for i, a := range fields {
		if a == "--db" && i+1 < len(fields) {
			return fields[i+1]
		}
	}
	return ""
}

// killAtIndexBuildHook is hookedDB's hook that kills the process at an
// index build.
func killAtIndexBuildHook(q string) {
	if strings.HasPrefix(q, "CREATE INDEX IF NOT EXISTS") {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
}

// liveIndexes is the set of the database's index names that end in _idx.
func liveIndexes(t *testing.T, db *sql.DB, d dbschema.Dialect) map[string]bool {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%_idx'`
	if d == dbschema.Postgres {
		q = `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE '%_idx'`
	}
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		got[name] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestDatabaseBuildIndexesAfterKill: a first run is killed between the
// load of a kind and the build of its indexes; the next run resumes, and
// every table has all its secondary indexes.
func TestDatabaseBuildIndexesAfterKill(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 5)
		cmd := exportChild(srv, killPageSize, "--db", url, "--kinds", "users,attempts")
		cmd.Env = append(cmd.Env, killAtIndexBuild+"=1")
		err := cmd.Run()
		if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !st.Signaled() {
			t.Fatalf("the child was not killed at the index build: %v\n%s", err, cmd.Stdout.(*strings.Builder).String())
		}
		db, d := openTestDB(t, url)
		want := map[string]bool{}
		for _, tb := range dbschema.Tables() {
			for _, idx := range tb.Indexes {
				if !idx.Deferred { // built by its own kind's first load, which this export does not fetch
					want[tb.Name+"_"+strings.Join(idx.Columns, "_")+"_idx"] = true
				}
			}
		}
		if got := liveIndexes(t, db, d); len(got) == len(want) {
			t.Fatalf("the killed run left all %d indexes: it was killed too late", len(got))
		}
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users,attempts"), exitOK)
		got := liveIndexes(t, db, d)
		for name := range want {
			if !got[name] {
				t.Errorf("index %s missing after the resumed run", name)
			}
		}
	})
}
