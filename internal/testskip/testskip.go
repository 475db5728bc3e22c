// Package testskip lists the tests of a package that skipped because a
// tool they need (redis-server, PostgreSQL, Chromium) is not installed, and
// says so after the run. go test shows a passing package's output only
// with -v, so without it the list goes to the terminal when there is one.
// Under CI (the CI variable set) such a test fails instead: CI never skips.
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
