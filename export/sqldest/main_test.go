package sqldest

import (
	"testing"

	"github.com/edapp-go/edapp/export/internal/dbtest"
)

// TestMain stops the PostgreSQL server the fence's tests started.
func TestMain(m *testing.M) { dbtest.Main(m) }
