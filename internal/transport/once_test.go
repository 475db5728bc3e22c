package transport

import (
	"context"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCallStateRetryNeverRepeatsAOnceRequestThatMayHaveActed(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, once := range []bool{false, true} {
		s := (&Client{}).newCall(context.Background(), Request{Method: http.MethodPut, Once: once})
		got, _ := s.retry(context.Background(), &http.Response{StatusCode: 503, Body: io.NopCloser(nil)}, nil)
		assert.Equal(t, !once, got, "503, once=%v", once)
		got, _ = s.retry(context.Background(), nil, reset)
		assert.Equal(t, !once, got, "reset, once=%v", once)
		got, _ = s.retry(context.Background(), nil, dial)
		assert.True(t, got, "nothing was sent: once=%v", once)
	}
}
