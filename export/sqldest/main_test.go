package sqldest

import (
	"flag"
	"runtime"
	"strconv"
	"testing"

	"github.com/edapp-go/edapp/export/dbtest"
)

// parallelTests is how many tests run at once unless -test.parallel says:
// the real-database tests wait on the servers they start and on the fake
// service, not on a core, so GOMAXPROCS (go test's default) leaves a
// two-core machine mostly idle (as cmd/edapp's TestMain says too).
const parallelTests = 4

// TestMain runs the tests parallelTests at a time, stops the PostgreSQL
// server the tests started, and lists the tests that skipped.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(max(parallelTests, runtime.GOMAXPROCS(0))))
	}
	dbtest.Main(m)
}
