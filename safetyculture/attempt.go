package safetyculture

import (
	"time"

	"github.com/edapp-go/edapp"
)

// WithAttemptTimeout bounds each attempt of a request, its answer's body
// included, as [edapp.WithAttemptTimeout] does (default
// edapp.DefaultAttemptTimeout): a feed that stops answering ends the call
// with an error once the retries are spent, never hangs it.
func WithAttemptTimeout(d time.Duration) Option {
	return func(c *config) { c.root = append(c.root, edapp.WithAttemptTimeout(d)) }
}
