package sqldest

import (
	"context"
	"io"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/dbtest"
)

// reconnectFixture is a PostgreSQL server of the test's own, to restart,
// and a fake with data for a few seconds of export.
func reconnectFixture(t *testing.T) (*dbtest.Server, *edapptest.Server) {
	if testing.Short() {
		t.Skip("restarts a PostgreSQL server; skipped in -short")
	}
	t.Parallel()
	pg := dbtest.NewServer(t)
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	if err := fakedata.SeedAccount(srv, fakedata.AccountSpec{Users: 40, Attempts: 800}); err != nil {
		t.Fatal(err)
	}
	srv.SetLatency(10 * time.Millisecond)
	return pg, srv
}

// TestDatabaseReconnect restarts PostgreSQL in the middle of an export:
// the export regains its connection and its lock, and finishes on its own
// with the tables of a clean export.
func TestDatabaseReconnect(t *testing.T) {
	pg, srv := reconnectFixture(t)
	clean := pg.Database(t)
	srv.ResetRequests()
	if err := runDBExport(t, context.Background(), srv, clean, smallPages, concurrency(2)); err != nil {
		t.Fatal(err)
	}
	requests := len(srv.Requests())

	restarted := pg.Database(t)
	srv.ResetRequests()
	done := make(chan error, 1)
	go func() {
		done <- runDBExport(t, context.Background(), srv, restarted, smallPages, concurrency(2))
	}()
	stop := make(chan struct{})
	defer close(stop)
	select {
	case err := <-done:
		t.Fatalf("the export finished before the restart: %v", err)
	case <-afterRequests(srv, requests/2, stop):
	}
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a, _ := openTestDB(t, clean)
	b, _ := openTestDB(t, restarted)
	diffSnapshots(t, "an export through a restart against a clean one", snapshot(t, a), snapshot(t, b))
}

// TestDatabaseReconnectLockTaken restarts PostgreSQL in the middle of an
// export whose connection goes through a proxy that stays shut until a
// second export has taken the database: the first one, back, finds the
// lock taken and stops with the resume hint; run again once the second
// ended, it finishes.
func TestDatabaseReconnectLockTaken(t *testing.T) {
	pg, srv := reconnectFixture(t)
	direct := pg.Database(t)
	proxied := startPGProxy(t, direct)
	first := exportThroughOutage(t, pg, srv, proxied, smallPages)

	// The second export takes the database and waits on its fake.
	slow := edapptest.New(t)
	t.Cleanup(slow.Close)
	slow.SetLatency(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() { second <- runDBExport(t, ctx, slow, direct, kinds("users")) }()
	waitSecondRun(t, direct)
	db, _ := openTestDB(t, direct)
	const walksQuery = `SELECT kind, COALESCE(walk_pages, 0) FROM edapp_export_kinds ORDER BY kind`
	rows, walks := snapshot(t, db), pairs(t, db, walksQuery)
	proxied.shut.Store(false)

	err := <-first
	if err == nil {
		t.Error("the first export succeeded after another took the database")
	}
	if !maps.EqualFunc(rows, snapshot(t, db), slices.Equal) || !slices.Equal(walks, pairs(t, db, walksQuery)) {
		t.Error("the first export wrote after the second took the database")
	}
	if err == nil || !strings.Contains(err.Error(), "run it again to resume") || !strings.Contains(err.Error(), "another export") {
		t.Errorf("the error does not say another export took the database and to run it again:\n%v", err)
	}
	cancel()
	<-second
	if err := runDBExport(t, context.Background(), srv, direct, smallPages, concurrency(2)); err != nil {
		t.Fatal(err)
	}
}

// exportThroughOutage starts an export through proxied and, a few
// requests in, shuts the proxy and restarts PostgreSQL; the export's
// result comes on the channel.
func exportThroughOutage(t *testing.T, pg *dbtest.Server, srv *edapptest.Server, proxied *pgProxy, setup ...func(*dbRun)) <-chan error {
	// Slow enough that the export still has groups to write once
	// PostgreSQL is back: a fast one can finish during the restart.
	srv.SetLatency(100 * time.Millisecond)
	first := make(chan error, 1)
	go func() {
		first <- runDBExport(t, context.Background(), srv, proxied.url, append([]func(*dbRun){concurrency(2)}, setup...)...)
	}()
	stop := make(chan struct{})
	defer close(stop)
	<-afterRequests(srv, 5, stop)
	proxied.cut()
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	return first
}

// pgProxy forwards connections to a PostgreSQL server, or, while shut,
// closes them at once: the server is out of reach for its clients alone.
type pgProxy struct {
	url  string
	shut atomic.Bool
	mu   sync.Mutex
	open map[net.Conn]bool // the clients' connections being forwarded
}

// cut shuts the proxy and closes the connections it forwards: their
// sessions end at once, however long the server then takes to restart.
func (p *pgProxy) cut() {
	p.shut.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.open {
		c.Close()
	}
}

// startPGProxy starts a proxy to the server of dbURL, and returns it with
// dbURL through it.
func startPGProxy(t *testing.T, dbURL string) *pgProxy {
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	target := u.Host
	u.Host = l.Addr().String()
	p := &pgProxy{url: u.String(), open: map[net.Conn]bool{}}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go p.forward(c, target)
		}
	}()
	return p
}

func (p *pgProxy) forward(c net.Conn, target string) {
	defer c.Close()
	p.mu.Lock()
	if p.shut.Load() {
		p.mu.Unlock()
		return
	}
	p.open[c] = true
	p.mu.Unlock()
	defer func() { p.mu.Lock(); delete(p.open, c); p.mu.Unlock() }()
	s, err := net.DialTimeout("tcp", target, 10*time.Second)
	if err != nil {
		return
	}
	defer s.Close()
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
}

// waitSecondRun waits until a second export run of EdApp has taken the
// database of dbURL: edapp_export_lock numbers the runs that took the
// lock. (Any advisory lock of the server would not do: the second
// export's migration holds one of its own before it takes the export's.)
func waitSecondRun(t *testing.T, dbURL string) {
	t.Helper()
	db, _ := openTestDB(t, dbURL)
	waitRows(t, db, 1, `SELECT COUNT(*) FROM edapp_export_lock WHERE source = 'edapp' AND runs >= 2`)
}

// TestDatabaseReconnectGivesUp keeps PostgreSQL out of the export's reach
// after a restart, with no time to reconnect: the export stops with the
// resume hint, and the next run finishes.
func TestDatabaseReconnectGivesUp(t *testing.T) {
	pg, srv := reconnectFixture(t)
	direct := pg.Database(t)
	proxied := startPGProxy(t, direct)
	first := exportThroughOutage(t, pg, srv, proxied, smallPages, noReconnect)
	err := <-first
	if err == nil || !strings.Contains(err.Error(), "connection was lost") || !strings.Contains(err.Error(), "run it again to resume") {
		t.Errorf("the error does not say the connection was lost and to run it again:\n%v", err)
	}
	if err := runDBExport(t, context.Background(), srv, direct, smallPages, concurrency(2)); err != nil {
		t.Fatal(err)
	}
}
