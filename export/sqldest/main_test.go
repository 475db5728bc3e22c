package sqldest

import (
	"testing"

	"github.com/edapp-go/edapp/export/dbtest"
)

// TestMain runs the tests dbtest.ParallelTests at a time, stops the
// PostgreSQL server the tests started, and lists the tests that skipped.
func TestMain(m *testing.M) { dbtest.Main(m) }
