package main

import (
	"os"
	"testing"

	"github.com/edapp-go/edapp/edapptest/testskip"
	"github.com/edapp-go/edapp/export/dbtest"
)

// missing lists the tests that skipped because a tool they need is not
// installed; TestMain prints it after the run.
var missing = testskip.New("github.com/edapp-go/edapp/cmd/edapp")

// skipMissing skips t because a tool it needs is not installed, and records
// why; under CI it fails t instead.
func skipMissing(t testing.TB, why string) {
	t.Helper()
	missing.Skip(t, why)
}

func TestMain(m *testing.M) {
	code := dbtest.Run(m) // runs tests four at once; stops the PostgreSQL server the tests started, if any
	missing.Report()
	os.Exit(code)
}
