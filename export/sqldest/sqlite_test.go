package sqldest

import (
	"strings"
	"testing"
)

// TestSQLiteDSN: the data source name carries each pragma the export and
// the inbox rely on, after the path.
func TestSQLiteDSN(t *testing.T) {
	t.Parallel()
	dsn := SQLiteDSN("/data/edapp.db")
	path, query, ok := strings.Cut(dsn, "?")
	if !ok || path != "/data/edapp.db" {
		t.Fatalf("SQLiteDSN = %q", dsn)
	}
	for _, want := range []string{"_journal_mode=WAL", "_pragma=synchronous(FULL)", "_pragma=busy_timeout(10000)", "_pragma=page_size(16384)",
		"_pragma=cache_size(-8192)", "_pragma=temp_store(MEMORY)", "_pragma=foreign_keys(1)"} {
		if !strings.Contains("&"+query+"&", "&"+want+"&") {
			t.Errorf("SQLiteDSN lacks %s: %q", want, dsn)
		}
	}
}
