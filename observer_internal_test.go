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

// TestObserverUnsetCostsNothing: a client with no callback set has no
// observer at all, so no call pays for one (BenchmarkGetUserObserver
// measures the allocations side by side).
func TestObserverUnsetCostsNothing(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]Option{
		"no option":      nil,
		"empty Observer": {WithObserver(Observer{})},
		"a later WithObserver(Observer{}) turns it off": {WithObserver(Observer{CallEnd: func(context.Context, CallEvent) {}}), WithObserver(Observer{})},
	} {
		c, err := NewClient("t", opts...)
		if err != nil {
			t.Fatal(err)
		}
		if c.observer != nil {
			t.Errorf("%s: the client has an observer", name)
		}
	}
	c, err := NewClient("t", WithObserver(Observer{Wait: func(context.Context, WaitEvent) {}}))
	if err != nil || c.observer == nil {
		t.Errorf("one callback set: observer %v, err %v", c.observer, err)
	}
}
