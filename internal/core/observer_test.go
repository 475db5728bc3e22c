package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/edapp-go/edapp/internal/transport"
)

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// TestClassOfRecognisesErrorsByType: the class never depends on the text.
func TestClassOfRecognisesErrorsByType(t *testing.T) {
	t.Parallel()
	for want, err := range map[ErrorClass]error{
		ErrorClassNone:         nil,
		ErrorClassStatus:       fmt.Errorf("wrapped: %w", &APIError{StatusCode: 429}),
		ErrorClassDecode:       &DecodeError{Err: errors.New("x")},
		ErrorClassInvalidInput: fmt.Errorf("%w: bad", ErrInvalidInput),
		ErrorClassThrottled:    &transport.LimiterError{Throttled: true, Err: context.DeadlineExceeded},
		ErrorClassCanceled:     fmt.Errorf("edapp: GET /x: %w", context.Canceled),
		ErrorClassDeadline:     context.DeadlineExceeded,
		ErrorClassTimeout:      &net.OpError{Op: "read", Err: timeoutError{}},
		ErrorClassConnection:   &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED},
		ErrorClassOther:        errors.New("connection refused"), // the text does not count
	} {
		assert.Equal(t, want, classOf(err), "%v", err)
	}
	assert.Equal(t, ErrorClassConnection, classOf(io.ErrUnexpectedEOF))
}
