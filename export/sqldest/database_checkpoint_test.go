package sqldest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp/export/dbtest"
)

// fakeDriver is a database stand-in that records each connection's
// statements and answers the queries the tests ask: SQLite's PRAGMAs,
// with its journal mode, and the reads of seenTable's digests, two rows
// (an error while failDigests is set).
type fakeDriver struct {
	journal     string
	failDigests bool
	failOnDisk  bool  // an index build fails sorting through temporary files, as with no directory for them
	walPages    int64 // a checkpoint's answer: the pages in the log,
	walCopied   int64 // and those copied
	mu          sync.Mutex
	conns       int
	stmts       map[int][]string // by connection, numbered from 1
}

type fakeConn struct {
	d      *fakeDriver
	id     int
	onDisk bool // temp_store FILE
}

func (d *fakeDriver) Connect(context.Context) (driver.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.conns++
	return &fakeConn{d: d, id: d.conns}, nil
}
func (d *fakeDriver) Driver() driver.Driver { return nil }

// ran is what connection id ran, in order.
func (d *fakeDriver) ran(id int) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.stmts[id])
}

// checkpointedBy are the connections that ran a checkpoint.
func (d *fakeDriver) checkpointedBy() []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	var ids []int
	for id, stmts := range d.stmts {
		if slices.ContainsFunc(stmts, func(s string) bool { return strings.HasPrefix(s, "PRAGMA wal_checkpoint") }) {
			ids = append(ids, id)
		}
	}
	return ids
}

func (c *fakeConn) record(q string) {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	if c.d.stmts == nil {
		c.d.stmts = map[int][]string{}
	}
	c.d.stmts[c.id] = append(c.d.stmts[c.id], q)
}

func (c *fakeConn) Prepare(string) (driver.Stmt, error) { return nil, driver.ErrSkip }
func (c *fakeConn) Close() error                        { return nil }
func (c *fakeConn) Begin() (driver.Tx, error)           { c.record("BEGIN"); return c, nil }
func (c *fakeConn) Commit() error                       { c.record("COMMIT"); return nil }
func (c *fakeConn) Rollback() error                     { c.record("ROLLBACK"); return nil }

func (c *fakeConn) ExecContext(_ context.Context, q string, _ []driver.NamedValue) (driver.Result, error) {
	c.record(q)
	if v, ok := strings.CutPrefix(q, "PRAGMA temp_store = "); ok {
		c.onDisk = v == "FILE"
	}
	if c.onDisk && c.d.failOnDisk && strings.HasPrefix(q, "CREATE INDEX") {
		const ioErrGetTempPath = 6410 // SQLITE_IOERR_GETTEMPPATH
		return nil, liteError(ioErrGetTempPath)
	}
	return driver.RowsAffected(1), nil
}

func (c *fakeConn) QueryContext(_ context.Context, q string, _ []driver.NamedValue) (driver.Rows, error) {
	c.record(q)
	if strings.Contains(q, "edapp_digest") {
		c.d.mu.Lock()
		defer c.d.mu.Unlock()
		if c.d.failDigests {
			return nil, errors.New("read refused")
		}
		// each key laid out by the query: its column, then U+001F
		return &fakeRows{cols: 2, rows: [][]driver.Value{{"a\x1f", "d1"}, {"b\x1f", "d2"}}}, nil
	}
	if q == "PRAGMA wal_checkpoint(PASSIVE)" {
		c.d.mu.Lock()
		defer c.d.mu.Unlock()
		return &fakeRows{cols: 3, rows: [][]driver.Value{{int64(0), c.d.walPages, c.d.walCopied}}}, nil
	}
	answers := map[string]driver.Value{"PRAGMA journal_mode": c.d.journal, "PRAGMA wal_autocheckpoint": int64(1000), "PRAGMA synchronous": int64(2),
		"PRAGMA journal_size_limit": int64(-1), "PRAGMA page_size": int64(4096), "PRAGMA temp_store": int64(2)}
	v, ok := answers[q]
	if !ok {
		return &fakeRows{cols: 1}, nil
	}
	return &fakeRows{cols: 1, rows: [][]driver.Value{{v}}}, nil
}

// fakeRows is a result of rows of cols columns.
type fakeRows struct {
	cols int
	rows [][]driver.Value
}

func (r *fakeRows) Columns() []string { return make([]string, r.cols) }
func (r *fakeRows) Close() error      { return nil }
func (r *fakeRows) Next(dest []driver.Value) error {
	if len(r.rows) == 0 {
		return io.EOF
	}
	copy(dest, r.rows[0])
	r.rows = r.rows[1:]
	return nil
}

// openFakeDatabase is a SQLite Database on the driver's first
// connection, with its checkpointer started.
func openFakeDatabase(t *testing.T, d *fakeDriver, maxOpen int) *Database {
	t.Helper()
	ctx := context.Background()
	db := sql.OpenDB(d)
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(maxOpen)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	x := newDatabase(conn, db, SQLite)
	if err := x.own.startCheckpointer(ctx); err != nil {
		t.Fatal(err)
	}
	return x
}

// commit runs one transaction on x's connection.
func commit(t *testing.T, x *Database) {
	t.Helper()
	err := x.own.tx1(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec("INSERT INTO attempts DEFAULT VALUES")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStartCheckpointer: in WAL mode the export's connection neither
// checkpoints nor syncs its commits; another connection checkpoints after
// them; Close gives the connection the settings it had.
func TestStartCheckpointer(t *testing.T) {
	t.Parallel()
	d := &fakeDriver{journal: "wal"}
	x := openFakeDatabase(t, d, 0)
	commit(t, x)
	deadline := time.Now().Add(10 * time.Second)
	for len(d.checkpointedBy()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if by := d.checkpointedBy(); !slices.Equal(by, []int{2}) {
		t.Fatalf("checkpoints by connections %v, want by the second alone", by)
	}
	x.Close()
	got := strings.Join(d.ran(1), "; ")
	want := "PRAGMA journal_mode; PRAGMA wal_autocheckpoint; PRAGMA synchronous; PRAGMA journal_size_limit; PRAGMA page_size; " +
		"PRAGMA wal_autocheckpoint = 0; PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = " + strconv.Itoa(walLimit) + "; " +
		"BEGIN; INSERT INTO attempts DEFAULT VALUES; COMMIT; PRAGMA wal_autocheckpoint = 1000; PRAGMA synchronous = 2; PRAGMA journal_size_limit = -1"
	if !strings.HasPrefix(got, want) {
		t.Errorf("the export's connection ran\n%s\nwant it to begin\n%s", got, want)
	}
}

// TestStartCheckpointerLeavesOthersAlone: a journal other than WAL, or a
// pool with no connection to spare, keeps SQLite's own checkpoints.
func TestStartCheckpointerLeavesOthersAlone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		journal string
		maxOpen int
	}{{"delete", 0}, {"wal", 1}} {
		d := &fakeDriver{journal: tc.journal}
		x := openFakeDatabase(t, d, tc.maxOpen)
		_, started := x.own.ckpt.(*checkpointer)
		commit(t, x)
		x.Close()
		if started || slices.ContainsFunc(d.ran(1), func(s string) bool { return strings.HasPrefix(s, "PRAGMA") && strings.Contains(s, " = ") }) || d.conns != 1 {
			t.Errorf("journal %s, %d connections at most: the export's connection ran %q on one of %d connections", tc.journal, tc.maxOpen, d.ran(1), d.conns)
		}
	}
}

// checkpoints is how many checkpoints connection id ran.
func (d *fakeDriver) checkpoints(id int) int {
	n := 0
	for _, s := range d.ran(id) {
		if strings.HasPrefix(s, "PRAGMA wal_checkpoint") {
			n++
		}
	}
	return n
}

// TestCatchUp: once a checkpoint copied a log of walLimit or more, the
// export's connection waits for a checkpoint before it begins, once, so
// that its transaction starts the log over; a smaller log, or one a
// reader held back (not all copied), does not make it wait.
func TestCatchUp(t *testing.T) {
	t.Parallel()
	limit := int64(walLimit / 4096)
	for _, tc := range []struct {
		pages, copied int64
		want          int // checkpoints by catchUp
	}{{limit, limit, 1}, {limit - 1, limit - 1, 0}, {2 * limit, limit, 0}} {
		d := &fakeDriver{journal: "wal", walPages: tc.pages, walCopied: tc.copied}
		x := openFakeDatabase(t, d, 0)
		ckpt := x.own.ckpt.(*checkpointer)
		ckpt.checkpoint(context.Background()) // as after a commit
		before := d.checkpoints(2)
		ckpt.catchUp(context.Background())
		ckpt.catchUp(context.Background()) // the log started over meanwhile
		if got := d.checkpoints(2) - before; got != tc.want {
			t.Errorf("a log of %d pages, %d copied: catchUp checkpointed %d times, want %d", tc.pages, tc.copied, got, tc.want)
		}
		x.Close()
	}
}

// TestOpenDatabaseCheckpointsSQLiteBesideTheWriter: an export into SQLite
// takes a second connection for its checkpoints, and leaves both
// connections with the settings of the database URL.
func TestOpenDatabaseCheckpointsSQLiteBesideTheWriter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, d := migratedTestDB(t, dbtest.SQLite(t))
	db.SetMaxOpenConns(2)
	x, err := OpenDatabase(ctx, db, d)
	if err != nil {
		t.Fatal(err)
	}
	if n := db.Stats().InUse; n != 2 {
		t.Errorf("%d connections in use while the export holds the database, want 2: its own and the checkpointer's", n)
	}
	x.Close()
	for range 2 {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var pages, sync int
		if err := conn.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&pages); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync); err != nil {
			t.Fatal(err)
		}
		if pages != 1000 || sync != 2 {
			t.Errorf("a connection of the pool has wal_autocheckpoint %d and synchronous %d after the export, want 1000 and 2 (FULL)", pages, sync)
		}
	}
}
