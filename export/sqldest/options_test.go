package sqldest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
)

// OpenDatabase reports the first bad option value as an error wrapping
// edapp.ErrInvalidInput; nothing is clamped.
func TestOpenDatabaseReportsTheFirstBadOption(t *testing.T) {
	t.Parallel()
	// OpenDatabase checks the options, the first bad value first, before
	// it touches the database.
	for _, tc := range []struct {
		name string
		opts []DatabaseOption
		want string
	}{
		{"negative lock wait", []DatabaseOption{WithLockWait(-time.Second)}, "WithLockWait"},
		{"negative reconnect", []DatabaseOption{WithReconnect(-time.Second)}, "WithReconnect"},
		{"unknown source", []DatabaseOption{WithSource("moodle")}, "WithSource"},
		{"the first bad value", []DatabaseOption{WithSource(""), WithLockWait(-time.Second)}, "WithSource"},
	} {
		if err := checkDatabaseOptions(tc.opts); !errors.Is(err, edapp.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if err := checkDatabaseOptions([]DatabaseOption{nil, WithSource(SourceSafetyCulture), WithLockWait(0), WithReconnect(0)}); err != nil {
		t.Errorf("good options (zero waits mean 'at once'): %v", err)
	}
	if _, err := OpenDatabase(context.Background(), nil, SQLite); !errors.Is(err, edapp.ErrInvalidInput) {
		t.Errorf("a nil *sql.DB: %v", err)
	}
}
