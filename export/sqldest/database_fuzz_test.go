package sqldest

import (
	"testing"
	"time"
)

// FuzzScanTime: the database's cursors, read by scanTime, are UTC or
// zero, whatever the text.
func FuzzScanTime(f *testing.F) {
	for _, s := range []string{"2026-11-24T10:00:00.123456Z", "2026-11-24 10:00:00+02:00", "0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999999999+23:59", "", "x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if tm := scanTime(string(b)); !tm.IsZero() && tm.Location() != time.UTC {
			t.Fatalf("scanTime(%q) = %v, not UTC", b, tm)
		}
	})
}
