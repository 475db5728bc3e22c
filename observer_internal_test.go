package edapp

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
	for want, err := range map[ErrorClass]error{
		ErrorNone:         nil,
		ErrorStatus:       fmt.Errorf("wrapped: %w", &APIError{StatusCode: 429}),
		ErrorDecode:       &DecodeError{Err: errors.New("x")},
		ErrorInvalidInput: fmt.Errorf("%w: bad", ErrInvalidInput),
		ErrorThrottled:    &transport.LimiterError{Throttled: true, Err: context.DeadlineExceeded},
		ErrorCanceled:     fmt.Errorf("edapp: GET /x: %w", context.Canceled),
		ErrorDeadline:     context.DeadlineExceeded,
		ErrorTimeout:      &net.OpError{Op: "read", Err: timeoutError{}},
		ErrorConnection:   &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED},
		ErrorOther:        errors.New("connection refused"), // the text does not count
	} {
		assert.Equal(t, want, classOf(err), "%v", err)
	}
	assert.Equal(t, ErrorConnection, classOf(io.ErrUnexpectedEOF))
}
