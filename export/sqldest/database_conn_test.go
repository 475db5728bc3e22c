package sqldest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/edapp-go/edapp"
)

// sqlStateError is a driver's error that carries a SQLSTATE, as pgx's does.
type sqlStateError string

func (e sqlStateError) Error() string    { return "server error (SQLSTATE " + string(e) + ")" }
func (e sqlStateError) SQLState() string { return string(e) }

// connClosedError is pgconn's error for a connection it has closed: safe
// to retry, since nothing reached the server.
type connClosedError struct{}

func (*connClosedError) Error() string     { return "conn closed" }
func (*connClosedError) SafeToRetry() bool { return true }

func TestConnLost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{driver.ErrBadConn, true},
		{fmt.Errorf("users: %w", driver.ErrBadConn), true},
		{sql.ErrConnDone, true},
		{io.ErrUnexpectedEOF, true},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{sqlStateError("08006"), true},  // connection failure
		{sqlStateError("08P01"), true},  // protocol violation
		{sqlStateError("57P01"), true},  // admin shutdown
		{sqlStateError("57P02"), true},  // crash shutdown
		{sqlStateError("57P03"), true},  // cannot connect now
		{sqlStateError("57014"), false}, // query canceled
		{sqlStateError("23505"), false}, // unique violation
		{sqlStateError("22P02"), false}, // invalid text representation
		{&connClosedError{}, true},      // pgconn's, for a connection it closed
		{fmt.Errorf("commit: %w", &os.SyscallError{Syscall: "write", Err: syscall.EPIPE}), true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{errors.New("conn closed"), false}, // text alone says nothing
		{errors.New("write tcp 127.0.0.1:1->127.0.0.1:2: write: broken pipe"), false},
		{errors.New("syntax error at or near"), false},
		{context.Canceled, false},
		{fmt.Errorf("read: %w", context.DeadlineExceeded), false},
		{sql.ErrNoRows, false},
	} {
		if got := connLost(tc.err); got != tc.want {
			t.Errorf("connLost(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestWithReconnectNegative(t *testing.T) {
	t.Parallel()
	if err := checkDatabaseOptions([]DatabaseOption{WithReconnect(-1)}); !errors.Is(err, edapp.ErrInvalidInput) {
		t.Fatalf("WithReconnect(-1): %v, want edapp.ErrInvalidInput", err)
	}
}
