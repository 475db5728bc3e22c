package sqldest

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/export/edappsrc"
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
// database, each with the schema at its latest version.
func bothDBs(t *testing.T, f func(t *testing.T, url string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, dbtest.MigratedSQLite(t, SQLiteDSN)) })
	t.Run("postgres", func(t *testing.T) { f(t, dbtest.MigratedPostgres(t)) })
}

// exportFixture is the demo account plus n users with a completion each
// of every lesson of the first demo course.
func exportFixture(t *testing.T, n int) (*edapptest.Server, fakedata.Demo) {
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
	return srv, demo
}

// dbRun is one export into a database, as `edapp export --db URL` runs
// it: the run's options and the destination's.
type dbRun struct {
	opts   export.Options
	dbOpts []DatabaseOption
	log    *stmtLog // when not nil, the statements the destination runs
}

// smallPages gives an export the small pages of the command's kill loop:
// many transactions for a restart to land in.
func smallPages(r *dbRun) { r.opts.PageSize = 40 }

// pageSize makes an export ask for n records a request.
func pageSize(n int) func(*dbRun) { return func(r *dbRun) { r.opts.PageSize = n } }

// concurrency makes an export keep n requests in flight.
func concurrency(n int) func(*dbRun) { return func(r *dbRun) { r.opts.Concurrency = n } }

// kinds makes an export fetch only the kinds named.
func kinds(names ...string) func(*dbRun) { return func(r *dbRun) { r.opts.Kinds = names } }

// noReconnect makes the destination stop at once when its connection is
// lost.
func noReconnect(r *dbRun) { r.dbOpts = append(r.dbOpts, WithReconnect(0)) }

// onRecords calls hook after each group of records the export fetches,
// with the kind's running count.
func onRecords(hook func(kind string, n int)) func(*dbRun) {
	return func(r *dbRun) { r.opts.Progress = recordHook(hook) }
}

// recordHook is a Progress that calls itself with each kind's running
// count of records.
type recordHook func(kind string, n int)

func (h recordHook) Track(kind string) export.Tracker { return &hookTracker{kind: kind, hook: h} }

type hookTracker struct {
	kind string
	n    int
	hook recordHook
}

func (t *hookTracker) SetTotal(int)     {}
func (t *hookTracker) Parents(int, int) {}
func (t *hookTracker) Done(error)       {}
func (t *hookTracker) Add(n int, _ time.Duration) {
	if n > 0 {
		t.n += n
		t.hook(t.kind, t.n)
	}
}

// runDBExport exports EdApp's records from srv into url (see exportInto).
func runDBExport(t *testing.T, ctx context.Context, srv *edapptest.Server, url string, setup ...func(*dbRun)) error {
	t.Helper()
	_, err := exportInto(t, ctx, srv.Client(), url, setup...)
	return err
}

// exportInto exports EdApp's records through client into url, with
// pgx's COPY as the bulk path on PostgreSQL, as the command does, and
// returns the records rejected. Its error holds the run's and each
// kind's, as the command prints them.
func exportInto(t *testing.T, ctx context.Context, client *edapp.Client, url string, setup ...func(*dbRun)) (rejected int, err error) {
	t.Helper()
	r := &dbRun{dbOpts: []DatabaseOption{WithBulkLoader(pgxCopier{})}}
	for _, f := range setup {
		f(r)
	}
	db, d := openTestDB(t, url)
	if r.log != nil {
		db = loggedDB(t, url, r.log)
	}
	dest, err := OpenDatabase(ctx, db, d, r.dbOpts...)
	if err != nil {
		return 0, err
	}
	defer dest.Close()
	rep, err := export.Run(ctx, edappsrc.New(client), r.opts, dest)
	if rep == nil {
		return 0, err
	}
	errs := []error{err}
	for _, k := range rep.Kinds {
		rejected += k.Rejected
		errs = append(errs, k.Err)
	}
	return rejected, errors.Join(errs...)
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
	names := exportTableNames()
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

// exportTableNames are the tables an EdApp export fills with records: one
// per kind, and user_custom_fields.
func exportTableNames() []string {
	all := func(export.Kind) bool { return true }
	return append([]string{"user_custom_fields"}, export.KindNames(edappsrc.Kinds(), all)...)
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

// serveUsers overrides the fake's GET /v2/users with one page holding the
// given users, as raw JSON: bytes the fake itself would never send.
func serveUsers(t *testing.T, srv *edapptest.Server, users ...string) {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		items := users
		if page, _ := strconv.Atoi(r.URL.Query().Get("page")); page > 1 {
			items = nil
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"totalCount":` + strconv.Itoa(len(users)) + `,"items":[` + strings.Join(items, ",") + `]}`))
	})
	if err := srv.Handle("GET /v2/users", h); err != nil {
		t.Fatal(err)
	}
}

// refuseNames makes the database refuse, with a data error, a row of
// table whose column starts with "bad": a CHECK constraint on PostgreSQL
// (SQLSTATE 23514), a trigger on SQLite (SQLITE_CONSTRAINT_TRIGGER).
func refuseNames(t *testing.T, db *sql.DB, dialect Dialect, table, column string) {
	t.Helper()
	q := `ALTER TABLE ` + table + ` ADD CONSTRAINT no_bad CHECK (` + column + ` NOT LIKE 'bad%')`
	if dialect == SQLite {
		q = `CREATE TRIGGER no_bad BEFORE INSERT ON ` + table + ` WHEN NEW.` + column + ` LIKE 'bad%' BEGIN SELECT RAISE(ABORT, 'bad row'); END`
	}
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
}

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

// readKeptRejects is the rejects table's rows, by identity ("" for none).
func readKeptRejects(t *testing.T, db *sql.DB) map[string]keptReject {
	t.Helper()
	rows, err := db.Query(`SELECT kind, COALESCE(identity, ''), count, COALESCE(raw_bytes, 0), COALESCE(CAST(raw AS TEXT), '') FROM rejects`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]keptReject{}
	for rows.Next() {
		var r keptReject
		if err := rows.Scan(&r.kind, &r.identity, &r.count, &r.rawBytes, &r.raw); err != nil {
			t.Fatal(err)
		}
		if _, dup := out[r.identity]; dup {
			t.Errorf("two rejects of %q", r.identity)
		}
		out[r.identity] = r
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// summarise is rejects' identities and counts.
func summarise(rs map[string]keptReject) map[string]int {
	out := map[string]int{}
	for id, r := range rs {
		out[id] = r.count
	}
	return out
}

// incompressible is n characters of hexadecimal from a fixed seed.
func incompressible(n int) string {
	b := make([]byte, (n+1)/2)
	rand.NewChaCha8([32]byte{1}).Read(b)
	return hex.EncodeToString(b)[:n]
}

// usersRuns is the edapp_run of each row of users, by id.
func usersRuns(t *testing.T, db *sql.DB) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	rows, err := db.Query(`SELECT id, edapp_run FROM users`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var run int64
		if err := rows.Scan(&id, &run); err != nil {
			t.Fatal(err)
		}
		out[id] = run
	}
	return out
}

// countRows is the count query q answers.
func countRows(t *testing.T, db *sql.DB, q string) (n int) {
	t.Helper()
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// exportUsersInterrupted runs an export of the users in pages of 5 and
// cancels it once a group of its walk is committed, with its keys.
func exportUsersInterrupted(t *testing.T, srv *edapptest.Server, url string, db *sql.DB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := runDBExport(t, ctx, srv, url, pageSize(5), kinds("users"), onRecords(func(kind string, n int) {
		// Not t.Fatal: the hook runs on the export's goroutine.
		for deadline := time.Now().Add(10 * time.Second); kind == "users" && n >= 10 && time.Now().Before(deadline); {
			var keys int
			if db.QueryRow(`SELECT COUNT(*) FROM edapp_export_seen`).Scan(&keys) == nil && keys > 0 {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}))
	if err == nil {
		t.Fatal("the interrupted run succeeded")
	}
	if countRows(t, db, `SELECT COUNT(*) FROM edapp_export_seen`) == 0 {
		t.Fatal("the interrupted run recorded no keys")
	}
}

// fakeUsers is how many users the fake holds.
func fakeUsers(t *testing.T, srv *edapptest.Server) int {
	t.Helper()
	n := 0
	for _, err := range srv.Client().Users.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}
