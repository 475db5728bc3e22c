// Package testskip is for tests that need a program which may not be
// installed, such as redis-server, a PostgreSQL server or a browser: such a
// test skips with the reason, and the package's skips are listed after the
// run, one line a reason. go test shows a passing package's output only
// with -v, so without it the list goes to the terminal when there is one.
// Under CI (the CI environment variable set) such a test fails instead, so
// that CI never passes by skipping.
//
//	var missing = testskip.New("example.com/mymodule/store")
//
//	func TestMain(m *testing.M) {
//		code := m.Run()
//		missing.Report()
//		os.Exit(code)
//	}
//
//	func TestWithRedis(t *testing.T) {
//		if _, err := exec.LookPath("redis-server"); err != nil {
//			missing.Skip(t, "redis-server is not on PATH: install it to run the Redis tests")
//		}
//		...
//	}
//
// The edapp-go modules' own tests use it; it is supported API like the rest
// of the module.
package testskip

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
)

// List collects the skips of one test binary.
type List struct {
	pkg     string
	mu      sync.Mutex
	reasons []string            // in the order first met
	tests   map[string][]string // reason -> test names
}

// New returns the list of the package named pkg.
func New(pkg string) *List { return &List{pkg: pkg, tests: map[string][]string{}} }

// Skip skips t because a tool it needs is missing, and records why; under
// CI it fails t instead.
func (l *List) Skip(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	l.mu.Lock()
	if l.tests[why] == nil {
		l.reasons = append(l.reasons, why)
	}
	l.tests[why] = append(l.tests[why], t.Name())
	l.mu.Unlock()
	t.Skip(why)
}

// Report prints the skips, one line a reason; call it from TestMain after
// m.Run.
func (l *List) Report() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.reasons) == 0 {
		return
	}
	var w io.Writer = os.Stderr
	if !testing.Verbose() {
		if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			defer tty.Close()
			w = tty
		}
	}
	for _, why := range l.reasons {
		fmt.Fprintf(w, "%s: skipped %s: %s\n", l.pkg, strings.Join(l.tests[why], ", "), why)
	}
}
