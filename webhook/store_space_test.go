package webhook

import (
	"errors"
	"fmt"
	"testing"
)

type pgError string

func (e pgError) Error() string    { return "pg " + string(e) }
func (e pgError) SQLState() string { return string(e) }

type liteError int

func (e liteError) Error() string { return fmt.Sprint("sqlite ", int(e)) }
func (e liteError) Code() int     { return int(e) }

// A database out of room is told apart from one that refuses a row, on
// both dialects: PostgreSQL's disk_full (53100), SQLite's SQLITE_FULL.
func TestIsOutOfSpace(t *testing.T) {
	t.Parallel()
	for err, want := range map[error]bool{
		pgError("53100"): true, pgError("53200"): true, pgError("23505"): false, pgError("22001"): false,
		liteError(13): true, liteError(10 | 3<<8): true, liteError(19): false, liteError(5): false,
		fmt.Errorf("commit: %w", pgError("53100")): true, errors.New("disk full"): false,
	} {
		if got := isOutOfSpace(err); got != want {
			t.Errorf("isOutOfSpace(%v) = %v", err, got)
		}
	}
	if !errors.Is(outOfSpace(liteError(13)), ErrUnavailable) {
		t.Error("a database out of room is not ErrUnavailable")
	}
}
