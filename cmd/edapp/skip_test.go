package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/edapp-go/edapp/cmd/edapp/internal/dbtest"
)

// missing lists the tests that skipped because a tool they need is not
// installed, with why. TestMain prints the list after the run: go test
// shows a passing package's output only with -v, so the list also goes to
// the terminal, when there is one, and a skip never passes for a success.
var missing struct {
	sync.Mutex
	reasons []string            // in the order first met
	tests   map[string][]string // reason -> test names
}

// skipMissing skips t because a tool it needs is not installed, and records
// why; under CI (CI set) it fails t instead, so CI never skips.
func skipMissing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	missing.Lock()
	if missing.tests == nil {
		missing.tests = map[string][]string{}
	}
	if missing.tests[why] == nil {
		missing.reasons = append(missing.reasons, why)
	}
	missing.tests[why] = append(missing.tests[why], t.Name())
	missing.Unlock()
	t.Skip(why)
}

func TestMain(m *testing.M) {
	code := m.Run()
	dbtest.Stop() // the PostgreSQL server the tests started, if any
	reportMissing()
	os.Exit(code)
}

func reportMissing() {
	if len(missing.reasons) == 0 {
		return
	}
	var w io.Writer = os.Stderr
	if !testing.Verbose() {
		if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			defer tty.Close()
			w = tty
		}
	}
	for _, why := range missing.reasons {
		fmt.Fprintf(w, "%s: skipped %s: %s\n", "github.com/edapp-go/edapp/cmd/edapp", strings.Join(missing.tests[why], ", "), why)
	}
}
