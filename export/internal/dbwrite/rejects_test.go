package dbwrite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
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

func TestBoundRaw(t *testing.T) {
	t.Parallel()
	for name, raw := range map[string]string{
		"json":     `{"a":"` + strings.Repeat("x", 3*MaxRejectRawBytes) + `"}`,
		"controls": strings.Repeat("\x01", MaxRejectRawBytes-10), // six bytes each once quoted
		"runes":    strings.Repeat("é\"", MaxRejectRawBytes),
	} {
		v, size := boundRaw(raw)
		s, _ := v.(string)
		var back string
		if err := json.Unmarshal([]byte(s), &back); err != nil || len(s) > MaxRejectRawBytes || !utf8.ValidString(back) ||
			!strings.HasSuffix(back, "...") || size != len(raw) {
			t.Errorf("%s: kept %d bytes (%v), size %v: want a JSON string of at most %d", name, len(s), err, size, MaxRejectRawBytes)
		}
	}
	if v, size := boundRaw(`{"a":1}`); v != `{"a":1}` || size != 7 {
		t.Errorf("a small body: %v, %v", v, size)
	}
	if v, size := boundRaw(""); v != nil || size != nil {
		t.Errorf("no body: %v, %v", v, size)
	}
}

func TestRecordKey(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", maxKeyedIdentity+1)
	for _, c := range []struct{ identity, raw, want string }{
		{"u1", `{"id":"u1"}`, "u1"},
		{"u1", `{"id":"u1","name":"changed"}`, "u1"},
		{strings.Repeat("é", maxKeyedIdentity), "", strings.Repeat("é", maxKeyedIdentity)},
		{long, "", "sha256:" + hexSum(long)},
		{"", `{"name":"no id"}`, "sha256:" + hexSum(`{"name":"no id"}`)},
	} {
		if got := RecordKey(c.identity, c.raw); got != c.want {
			t.Errorf("RecordKey(%.20q, %q) = %.30q, want %.30q", c.identity, c.raw, got, c.want)
		}
	}
}

func hexSum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
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
