package main

import (
	"flag"
	"os"
	"runtime"
	"strconv"
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

// parallelTests is how many tests run at once unless -test.parallel says:
// most of them wait on the servers and child processes they start, not on
// a core, so GOMAXPROCS (go test's default) leaves a two-core machine
// mostly idle.
const parallelTests = 4

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(max(parallelTests, runtime.GOMAXPROCS(0))))
	}
	code := dbtest.Run(m) // stops the PostgreSQL server the tests started, if any
	missing.Report()
	os.Exit(code)
}
