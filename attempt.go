package edapp

import (
	"fmt"
	"time"

	"github.com/edapp-go/edapp/internal/core"
	"github.com/edapp-go/edapp/internal/transport"
)

// DefaultAttemptTimeout bounds one attempt of a request unless
// [WithAttemptTimeout] says otherwise.
const DefaultAttemptTimeout = transport.DefaultAttemptTimeout

// WithAttemptTimeout bounds each attempt of a request (default
// [DefaultAttemptTimeout]): from the moment it is sent, after any wait for
// the limiter or a pause the service asked for, until its answer's body
// has been read, redirects included. An attempt that runs out of time is
// a connection error: a read is retried as the retry policy allows; a
// write is not sent again, since the service may have acted on it. A
// whole call, retries and waits included, is bounded by its ctx. A
// duration below 1 ms is an error.
func WithAttemptTimeout(d time.Duration) Option {
	return func(c *core.Config) error {
		if d < time.Millisecond {
			return fmt.Errorf("%w: WithAttemptTimeout(%s) needs at least 1ms", ErrInvalidInput, d)
		}
		c.AttemptTimeout = d
		return nil
	}
}
