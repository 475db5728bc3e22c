package transport

import (
	"context"
	"net/http"
	"time"
)

// DefaultAttemptTimeout bounds one attempt, from the moment it is sent
// (after any wait for the limiter or a pause) until its answer's body has
// been read, redirects included. SafetyCulture's own exporter gives a
// request as long.
const DefaultAttemptTimeout = 2 * time.Minute

// AttemptTimeoutError is an attempt that did not finish within its bound:
// the service, or something on the way, stalled. It counts as a
// connection error, so a read is tried again; a write only when nothing
// was sent.
type AttemptTimeoutError struct{ After time.Duration }

func (e *AttemptTimeoutError) Error() string {
	return "no complete answer within " + e.After.String() + " (the attempt's bound; see WithAttemptTimeout)"
}

// Timeout makes the error a timing-out net.Error, as isConnectionError
// expects of one worth another attempt.
func (e *AttemptTimeoutError) Timeout() bool   { return true }
func (e *AttemptTimeoutError) Temporary() bool { return true }

// attemptRequest returns req bound by the current attempt's deadline,
// starting the attempt's timer when this round trip starts an attempt (a
// redirect hop shares its attempt's). The timer runs until the next
// attempt starts or the call ends (endAttempt), so the body is read
// within the bound too.
func (s *callState) attemptRequest(req *http.Request, starting bool) *http.Request {
	d := s.c.attemptTimeout
	if d <= 0 {
		return req
	}
	if starting || s.attemptCtx == nil {
		s.endAttempt()
		s.attemptCtx, s.attemptCancel = context.WithTimeoutCause(req.Context(), d, &AttemptTimeoutError{After: d})
	}
	return req.WithContext(s.attemptCtx)
}

// endAttempt stops the current attempt's timer.
func (s *callState) endAttempt() {
	if s.attemptCancel != nil {
		s.attemptCancel()
	}
	s.attemptCtx, s.attemptCancel = nil, nil
}

// attemptError is err, or the attempt's timeout when that is what ended
// it: net/http reports a request whose context ended by the context's
// error, not its cause.
func (s *callState) attemptError(err error) error {
	if err == nil || s.attemptCtx == nil {
		return err
	}
	if cause := context.Cause(s.attemptCtx); cause != nil && s.ctx.Err() == nil {
		if _, ok := cause.(*AttemptTimeoutError); ok {
			return cause
		}
	}
	return err
}
