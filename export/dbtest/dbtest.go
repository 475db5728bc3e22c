package dbtest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/edapp-go/edapp/edapptest/testskip"
)

// SQLite returns the URL of a new SQLite database, a file in t's
// temporary directory, removed when t ends.
func SQLite(t testing.TB) string {
	t.Helper()
	return "sqlite:" + filepath.Join(t.TempDir(), "edapp.db")
}

// shared is the test binary's PostgreSQL server, which Postgres starts on
// first use and Run stops.
var shared struct {
	once   sync.Once
	server *Server
	err    error
}

// Postgres returns the URL of a new, empty database on the test binary's
// PostgreSQL server, starting the server on first use. When the server
// cannot start, t skips, or fails when the CI environment variable is
// set.
func Postgres(t testing.TB) string {
	t.Helper()
	shared.once.Do(func() { shared.server, shared.err = start() })
	if shared.err != nil {
		skipNoServer(t, shared.err)
	}
	return shared.server.Database(t)
}

// skipNoServer skips t, or fails it under CI, because err kept PostgreSQL
// from starting, and adds t to the list Run prints.
func skipNoServer(t testing.TB, err error) {
	t.Helper()
	missing.Skip(t, fmt.Sprintf("cannot start PostgreSQL (install it to run this test): %v", err))
}

// missing lists the test binary's tests that skipped for want of
// PostgreSQL; Run prints it after the tests, as the root's and cmd/edapp's
// tests print theirs.
var missing = testskip.New(testedPackage())

// testedPackage is the import path of the package the test binary tests
// (a test binary's main package is that path plus ".test").
func testedPackage() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		return strings.TrimSuffix(bi.Path, ".test")
	}
	return filepath.Base(os.Args[0])
}

// ParallelTests is how many parallel tests [Run] lets run at once unless
// -test.parallel says otherwise.
const ParallelTests = 4

// Main runs the tests as [Run] does and exits with their status; a test
// package that uses [Postgres] calls it from its TestMain:
//
//	func TestMain(m *testing.M) { dbtest.Main(m) }
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run runs the tests (m.Run), then stops the PostgreSQL server if one
// started, removing its directory, and lists the tests that skipped for
// want of PostgreSQL. It returns m.Run's status, for a TestMain that does
// more before it exits.
//
// Unless -test.parallel is given, Run lets [ParallelTests] parallel tests
// run at once (or GOMAXPROCS, go test's default, when that is more): a
// test against a real database waits on the server more than on a core.
//
// Unless TMPDIR is set, Run sets it, for the run, to a new directory in
// memory (Linux's /dev/shm, when it has a gigabyte free and lets programs
// run) and removes that directory after: t.TempDir, the files of [SQLite]
// and the temporary files of the programs the tests start go there, as the
// PostgreSQL server's do.
func Run(m *testing.M) int {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(max(ParallelTests, runtime.GOMAXPROCS(0))))
	}
	if dir := memoryTempDir(); dir != "" {
		defer os.RemoveAll(dir)
	}
	code := m.Run()
	if shared.server != nil {
		shared.server.stop()
	}
	missing.Report()
	return code
}
