package sqldest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/edappsrc"
	"github.com/edapp-go/edapp/export/internal/dbtest"
	"github.com/edapp-go/edapp/export/scsrc"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// The tests of the destination against real databases: SQLite files and
// a PostgreSQL server of the test binary's own (dbtest).

// openTestDB opens url, from dbtest.SQLite or dbtest.Postgres, as the
// edapp command opens a --db URL: on PostgreSQL the pool keeps the
// export's connection and its writers' idle.
func openTestDB(t *testing.T, url string) (*sql.DB, Dialect) {
	t.Helper()
	db := dbtest.Open(t, url, SQLiteDSN)
	if !dbtest.IsPostgres(url) {
		return db, SQLite
	}
	db.SetMaxIdleConns(ParallelWrites + 1)
	return db, Postgres
}

// migratedTestDB is openTestDB with the schema at its latest version.
func migratedTestDB(t *testing.T, url string) (*sql.DB, Dialect) {
	t.Helper()
	db, d := openTestDB(t, url)
	if err := dbschema.NewMigrator(db, d).Up(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, d
}

// bothDBs runs f against a fresh SQLite file and a fresh PostgreSQL
// database.
func bothDBs(t *testing.T, f func(t *testing.T, url string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, dbtest.SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, dbtest.Postgres(t)) })
}

// exportFixture is the demo account plus n users with a completion each
// of every lesson of the first demo course.
func exportFixture(t *testing.T, n int) *edapptest.Server {
	t.Helper()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	demo, err := fakedata.SeedDemo(srv)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		id, err := srv.AddUser(edapptest.UserSpec{Username: fmt.Sprintf("learner%03d", i), ExternalID: fmt.Sprintf("L%03d", i), Groups: []string{demo.GroupIDs[0]}})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range demo.LessonIDs[0] {
			if err := srv.CompleteLesson(id, l, float64(60+i%40)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return srv
}

// dbRun is one export into a database, as `edapp export --db URL` runs
// it: the run's options and the destination's.
type dbRun struct {
	opts   export.Options
	dbOpts []DatabaseOption
}

// smallPages gives an export the small pages of the command's kill loop:
// many transactions for a restart to land in.
func smallPages(r *dbRun) { r.opts.PageSize = 40 }

// concurrency makes an export keep n requests in flight.
func concurrency(n int) func(*dbRun) { return func(r *dbRun) { r.opts.Concurrency = n } }

// kinds makes an export fetch only the kinds named.
func kinds(names ...string) func(*dbRun) { return func(r *dbRun) { r.opts.Kinds = names } }

// noReconnect makes the destination stop at once when its connection is
// lost.
func noReconnect(r *dbRun) { r.dbOpts = append(r.dbOpts, WithReconnect(0)) }

// runDBExport exports EdApp's records from srv into url, with pgx's COPY
// as the bulk path on PostgreSQL, as the command does. Its error holds
// the run's and each kind's, as the command prints them.
func runDBExport(t *testing.T, ctx context.Context, srv *edapptest.Server, url string, setup ...func(*dbRun)) error {
	t.Helper()
	r := &dbRun{dbOpts: []DatabaseOption{WithBulkLoader(pgxCopier{})}}
	for _, f := range setup {
		f(r)
	}
	db, d := openTestDB(t, url)
	dest, err := OpenDatabase(ctx, db, d, r.dbOpts...)
	if err != nil {
		return err
	}
	defer dest.Close()
	rep, err := export.Run(ctx, edappsrc.New(srv.Client()), r.opts, dest)
	if err == nil || rep == nil {
		return err
	}
	errs := []error{err}
	for _, k := range rep.Kinds {
		errs = append(errs, k.Err)
	}
	return errors.Join(errs...)
}

// pgxCopier is the command's bulk path on PostgreSQL: COPY through pgx.
type pgxCopier struct{}

func (pgxCopier) CopyRows(ctx context.Context, driverConn any, table string, columns []string, next func() ([]any, error)) (int64, error) {
	c, ok := driverConn.(*stdlib.Conn)
	if !ok {
		return 0, fmt.Errorf("copy into %s through a %T: %w", table, driverConn, errors.ErrUnsupported)
	}
	return c.Conn().CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromFunc(next))
}

// snapshot is every row of every kind's table, but edapp_run and
// edapp_digest, as text, sorted: what two exports of the same data must
// hold alike.
func snapshot(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	all := func(export.Kind) bool { return true }
	names := append([]string{"user_custom_fields"}, export.KindNames(edappsrc.Kinds(), all)...)
	for _, name := range export.KindNames(scsrc.Kinds(), all) {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		tb, _ := dbschema.Lookup(name)
		var cols []string
		for _, c := range tb.Columns {
			if c.Name != "edapp_run" && c.Name != "edapp_digest" {
				cols = append(cols, c.Name)
			}
		}
		out[name] = textRows(t, db, `SELECT `+strings.Join(cols, ", ")+` FROM `+name, cols)
	}
	return out
}

// textRows is the rows of query, each its columns as col=value|, sorted.
func textRows(t *testing.T, db *sql.DB, query string, cols []string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, v := range vals {
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			fmt.Fprintf(&b, "%s=%v|", cols[i], v)
		}
		out = append(out, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// diffSnapshots reports each table that differs between a and b.
func diffSnapshots(t *testing.T, what string, a, b map[string][]string) {
	t.Helper()
	for tb := range a {
		if !slices.Equal(a[tb], b[tb]) {
			t.Errorf("%s: table %s differs: %d rows, then %d", what, tb, len(a[tb]), len(b[tb]))
		}
	}
}

// pairs is the rows of query, two columns each, as "a b".
func pairs(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		out = append(out, a+" "+b)
	}
	return out
}

// afterRequests is closed once srv has seen n requests, unless stop is
// closed first.
func afterRequests(srv *edapptest.Server, n int, stop <-chan struct{}) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		for len(srv.Requests()) < n {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
		close(ch)
	}()
	return ch
}
