package dbschema

import (
	"context"
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

func TestIsDataError(t *testing.T) {
	t.Parallel()
	for err, want := range map[error]bool{
		pgError("22021"): true, pgError("22001"): true, pgError("23514"): true, pgError("23502"): true,
		pgError("54000"): true, pgError("23505"): false, pgError("08006"): false, pgError("40001"): false,
		pgError("57014"): false,
		liteError(19):    true, liteError(1811): true, liteError(1299): true, liteError(20): true, liteError(18): true,
		liteError(1555): false, liteError(2067): false, liteError(5): false, liteError(517): false,
		errors.New("driver: bad connection"): false, context.DeadlineExceeded: false,
		fmt.Errorf("users: %w", pgError("22P02")): true,
	} {
		if got := IsDataError(err); got != want {
			t.Errorf("IsDataError(%v) = %v, want %v", err, got, want)
		}
	}
}

func TestRawJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]any{"": nil, `{"a":1}`: `{"a":1}`, "not json \xff": "\"not json \uFFFD\""} {
		if got := rawJSON(in); got != want {
			t.Errorf("rawJSON(%q) = %#v, want %#v", in, got, want)
		}
	}
	if got := cut("ééé", 3); got != "é..." {
		t.Errorf("cut = %q", got)
	}
}

// A database out of room is told apart from one that refuses a row, on
// both dialects: PostgreSQL's disk_full (53100), SQLite's SQLITE_FULL.
func TestIsOutOfSpace(t *testing.T) {
	t.Parallel()
	for err, want := range map[error]bool{
		pgError("53100"): true, pgError("53200"): true, pgError("23505"): false, pgError("22001"): false,
		liteError(13): true, liteError(10 | 3<<8): true, liteError(19): false, liteError(5): false,
		fmt.Errorf("commit: %w", pgError("53100")): true, errors.New("disk full"): false,
	} {
		if got := IsOutOfSpace(err); got != want {
			t.Errorf("IsOutOfSpace(%v) = %v", err, got)
		}
	}
}
