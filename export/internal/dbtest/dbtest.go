// Package dbtest gives tests real databases: a fresh SQLite file, or a
// fresh database on a PostgreSQL server that the test binary starts from
// the installed binaries (in a temporary directory, on a free loopback
// port) and stops when it ends.
//
// A test package that uses Postgres calls Main from its TestMain, so that
// the server stops when the tests end, and the tests that skipped for
// want of the PostgreSQL binaries are listed (package testskip):
//
//	func TestMain(m *testing.M) { dbtest.Main(m) }
package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest/testskip"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// SQLite returns the URL of a new SQLite database in a temporary file.
func SQLite(t testing.TB) string {
	t.Helper()
	return "sqlite:" + filepath.Join(t.TempDir(), "edapp.db")
}

var (
	once    sync.Once
	srv     *server
	srvErr  error
	counter atomic.Int64
)

// Postgres returns the URL of a new, empty database on the test binary's
// PostgreSQL server, starting the server on first use. Without the
// PostgreSQL binaries the test is skipped, or fails when CI=true.
func Postgres(t testing.TB) string {
	t.Helper()
	once.Do(func() { srv, srvErr = start() })
	if srvErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL: %v", srvErr)
		}
		missing.Skip(t, fmt.Sprintf("PostgreSQL tests skipped: %v", srvErr))
	}
	return srv.database(t, fmt.Sprintf("edapp_test_%d", counter.Add(1)))
}

// database creates the database name on s and returns its URL.
func (s *server) database(t testing.TB, name string) string {
	t.Helper()
	admin, err := sql.Open("pgx", s.url("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("PostgreSQL: create database: %v", err)
	}
	return s.url(name)
}

// missing lists the test binary's tests that skipped for want of the
// PostgreSQL binaries; Main prints it after the run, as the root's and
// cmd/edapp's tests print theirs.
var missing = testskip.New(testedPackage())

// testedPackage is the import path of the package the test binary tests
// (a test binary's main package is that path plus ".test").
func testedPackage() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		return strings.TrimSuffix(bi.Path, ".test")
	}
	return filepath.Base(os.Args[0])
}

// Main runs the tests, then stops the PostgreSQL server if one started,
// and lists the tests that skipped.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	missing.Report()
	os.Exit(code)
}

// Stop stops the PostgreSQL server, if one started. Main calls it.
func Stop() {
	if srv != nil {
		srv.stop()
	}
}

type server struct {
	dir    string // removed on stop
	data   string
	port   int
	pgCtl  string
	asUser bool // run the binaries as the postgres user (we are root)
}

func (s *server) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// binDir finds initdb and pg_ctl: on PATH, or in a versioned PostgreSQL
// directory (Debian keeps them out of PATH), the newest first.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	var dirs []string
	for _, pat := range []string{"/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin", "/opt/homebrew/opt/postgresql*/bin"} {
		m, _ := filepath.Glob(pat)
		dirs = append(dirs, m...)
	}
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("initdb and pg_ctl not found on PATH or under /usr/lib/postgresql/*/bin")
}

func versionOf(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func start() (*server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	s := &server{pgCtl: filepath.Join(bin, "pg_ctl"), asUser: os.Geteuid() == 0}
	if s.dir, err = os.MkdirTemp("", "edapp-pg-"); err != nil {
		return nil, err
	}
	s.data = filepath.Join(s.dir, "data")
	if err := s.prepare(); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	if err := s.run(filepath.Join(bin, "initdb"), "-D", s.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	if err := s.listen(); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	s.watch()
	return s, nil
}

// prepare makes the data directory the postgres user's when we are root:
// PostgreSQL refuses to run as root.
func (s *server) prepare() error {
	if err := os.Mkdir(s.data, 0o700); err != nil {
		return err
	}
	if !s.asUser {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("running as root, and no postgres user to run PostgreSQL as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chmod(s.dir, 0o755); err != nil {
		return err
	}
	return os.Chown(s.data, uid, gid)
}

// listen starts the server on a free loopback port, trying a few in case
// another process takes the port first.
func (s *server) listen() error {
	var err error
	for range 5 {
		if s.port, err = freePort(); err != nil {
			return err
		}
		opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -c unix_socket_directories=%s -c fsync=off -c max_connections=200", s.port, s.data)
		if err = s.run(s.pgCtl, "-D", s.data, "-o", opts, "-l", filepath.Join(s.data, "log"), "-w", "-t", "60", "start"); err == nil {
			return nil
		}
	}
	return err
}

func (s *server) run(name string, args ...string) error {
	if s.asUser {
		args = append([]string{"-u", "postgres", "--", name}, args...)
		name = "runuser"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return nil
}

// watch starts a process that stops the server and removes its directory
// if this test binary dies without calling Stop (a crash, a kill).
func (s *server) watch() {
	stop := s.pgCtl + " -D " + s.data + " -m immediate stop"
	if s.asUser {
		stop = "runuser -u postgres -- " + stop
	}
	script := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 1; done; %s >/dev/null 2>&1; rm -rf %s", os.Getpid(), stop, s.dir)
	cmd := exec.Command("sh", "-c", script)
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}

func (s *server) stop() {
	_ = s.run(s.pgCtl, "-D", s.data, "-m", "fast", "-w", "stop")
	os.RemoveAll(s.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
