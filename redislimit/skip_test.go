package redislimit

import (
	"os"
	"testing"

	"github.com/edapp-go/edapp/edapptest/testskip"
)

// missing lists the tests that skipped because redis-server is not
// installed; TestMain prints it after the run.
var missing = testskip.New("github.com/edapp-go/edapp/redislimit")

// skipMissing skips t because a tool it needs is not installed, and records
// why; under CI it fails t instead.
func skipMissing(t testing.TB, why string) {
	t.Helper()
	missing.Skip(t, why)
}

func TestMain(m *testing.M) {
	code := m.Run()
	missing.Report()
	os.Exit(code)
}
