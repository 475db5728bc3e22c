package edapptest

import (
	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp"
)

// Client returns an *[edapp.Client] pointed at the fake with its token and
// without a client-side rate limit; opts come after those defaults, so
// [edapp.WithLimiter] turns a limiter back on.
func (s *Server) Client(opts ...edapp.Option) *edapp.Client {
	base := []edapp.Option{edapp.WithBaseURL(s.URL), edapp.WithRateLimit(rate.Inf, 0)}
	c, err := edapp.NewClient(s.Token, append(base, opts...)...)
	if err != nil {
		panic("edapptest: " + err.Error())
	}
	return c
}
