package edapptest

import (
	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp"
)

// Client returns an *[edapp.Client] pointed at the fake with its token and
// without a client-side rate limit. opts are applied after those defaults,
// so they override them: pass [edapp.WithLimiter] to turn a limiter back on
// (for instance [edapp.NewWindowLimiter] against a fake with [WithBudget]), or
// [edapp.WithRetry]. It
// panics only when [edapp.NewClient] fails, which cannot happen with a token
// from [NewServer] unless [WithToken] gave one containing a line break.
func (s *Server) Client(opts ...edapp.Option) *edapp.Client {
	base := []edapp.Option{edapp.WithBaseURL(s.URL), edapp.WithRateLimit(rate.Inf, 0)}
	c, err := edapp.NewClient(s.Token, append(base, opts...)...)
	if err != nil {
		panic("edapptest: " + err.Error())
	}
	return c
}
