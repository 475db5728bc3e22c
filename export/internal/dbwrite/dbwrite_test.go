package dbwrite

import (
	"errors"
	"fmt"
	"testing"

	"github.com/edapp-go/edapp/export/dbschema"
)

func TestRebind(t *testing.T) {
	t.Parallel()
	if got := Rebind(dbschema.Postgres, "a = ? AND b = ?"); got != "a = $1 AND b = $2" {
		t.Errorf("Rebind = %q", got)
	}
	if got := Rebind(dbschema.SQLite, "a = ?"); got != "a = ?" {
		t.Errorf("Rebind = %q", got)
	}
}

// busyError is SQLITE_BUSY as modernc.org/sqlite reports it: a Code()
// method, here with an extended code (SQLITE_BUSY_SNAPSHOT).
type busyError struct{}

func (busyError) Error() string { return "database is locked (517)" }
func (busyError) Code() int     { return 517 }

func TestSQLiteBusy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{busyError{}, true},
		{fmt.Errorf("begin: %w", busyError{}), true},
		{errors.New("database is locked"), false}, // no code: not guessed from the text
		{nil, false},
	} {
		if got := SQLiteBusy(tc.err); got != tc.want {
			t.Errorf("SQLiteBusy(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
