package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// The life of one call, in the order things happen. Client.Do takes a
// callState from the pool (newCall) and hands the request to the call's own
// retryablehttp.Client (retryingClient), which runs this loop:
//
//  1. beforeAttempt (RequestLogHook): books the backoff since the previous
//     attempt as waiting, and logs a retry.
//  2. RoundTrip (the http.Client's Transport, once per attempt and once per
//     redirect hop): waitTurn sits out the client's pause and waits for the
//     limiter; the attempt goes out; reportAttempt logs it and tells the
//     observer.
//  3. retry (CheckRetry): the whole retry policy. A 429 pauses the client
//     (notePause).
//  4. readAnswer (the request's response handler), when no retry is due:
//     reads the final answer's body within its bound. A body that breaks
//     off goes back to retry, as a failed attempt.
//  5. backoff (Backoff), when a retry is due: waits on the client's clock
//     (retryablehttp's own timer gets 0); then 1.
//
// When the retries run out on a status, retryablehttp returns that answer
// unread and Client.Do hands it to the same readAnswer. failure turns what
// the loop returned into Do's error, and release puts the callState back.

// callState is everything one call knows while it runs, and the call's own
// clients, whose hooks are its methods. The retry loop is sequential, so
// the fields need no lock. callStates are pooled: the hooks are bound once,
// and a call costs no allocation of its own.
type callState struct {
	callVars
	retrying retryablehttp.Client
	http     http.Client
	answer   retryablehttp.ResponseHandlerFunc // readAnswer, bound once
}

// callVars is what one call knows; release zeroes it.
type callVars struct {
	c      *Client
	ctx    context.Context
	req    Request
	policy Policy

	attempts   int  // attempts sent
	starting   bool // the next round trip starts an attempt (a redirect hop does not)
	waited     time.Duration
	lastEnd    time.Time
	lastStatus int
	throttled  bool // held by the limiter or a pause, or answered 429
	placed     bool // holds a place of req.InFlight

	pausedFor *http.Response // the answer whose rate-limit headers were applied last
	body      *buffer
	truncated bool

	// The current attempt's deadline (see attemptRequest); nil: none yet.
	attemptCtx    context.Context
	attemptCancel context.CancelFunc
}

var callPool = sync.Pool{New: func() any {
	s := new(callState)
	rc := &s.retrying
	rc.HTTPClient = &s.http
	rc.Logger = nil // logging goes to slog
	rc.CheckRetry, rc.Backoff, rc.RequestLogHook = s.retry, s.backoff, s.beforeAttempt
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler
	s.answer = s.readAnswer
	return s
}}

func (c *Client) newCall(ctx context.Context, r Request) *callState {
	s := callPool.Get().(*callState)
	s.callVars = callVars{c: c, ctx: ctx, req: r, policy: c.policy}
	if r.Retry != nil {
		s.policy = *r.Retry
	}
	return s
}

// release puts s back in the pool; nothing of the call may use it after.
func (s *callState) release() {
	s.endAttempt()
	s.callVars = callVars{}
	s.http = http.Client{}
	callPool.Put(s)
}

// retryingClient returns this call's own retrying client: the configured
// http.Client with this call as its Transport, and this call's policy.
func (s *callState) retryingClient() *retryablehttp.Client {
	s.http = *s.c.hc
	s.http.Transport = s
	rc := &s.retrying
	rc.RetryWaitMin, rc.RetryWaitMax, rc.RetryMax = s.policy.MinWait, s.policy.MaxWait, s.policy.MaxRetries
	return rc
}

// retry is the retry policy, whole. retryablehttp calls it after every
// attempt with the answer or the error, and sends again, after backoff,
// while it says so and the policy's MaxRetries allow.
func (s *callState) retry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if err != nil && refusedByLimiter(err) {
		// The limiter did not let the attempt through, so nothing was sent.
		// It is never retried, and never sent unlimited.
		return false, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return false, ctxErr
	}
	idempotent := isIdempotent(s.req.Method) && !s.req.Once
	if err != nil {
		if isDialError(err) {
			// Nothing reached the server: any method goes again, POST included.
			return true, nil
		}
		// The request may have reached the server. Only a method that HTTP
		// calls idempotent goes again, so a POST is never sent twice.
		return idempotent && isConnectionError(err), nil
	}
	pause := s.notePause(resp)
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		// Every call through this client now pauses (notePause). This call
		// goes again after the pause only if it may wait that long; if its
		// WithMaxThrottle or deadline ends sooner, the 429 is its answer now.
		return s.mayWait(ctx, pause) == nil, nil
	case http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return idempotent, nil
	}
	return false, nil
}

func refusedByLimiter(err error) bool {
	var refused *LimiterError
	return errors.As(err, &refused)
}

// notePause makes the whole client feel the service's rate limit, and
// returns how long from now the client is paused. A 429 pauses every call
// through the client (and a Pauser limiter, which may share the pause with
// other processes) for its Retry-After, else its X-RateLimit-Reset, else the
// retry backoff; an answer with X-RateLimit-Remaining: 0 pauses until its
// X-RateLimit-Reset. A header's pause is capped at one budget window
// (Config.MaxPause), never at the retry policy's MaxWait.
func (s *callState) notePause(resp *http.Response) time.Duration {
	if resp != s.pausedFor { // retryablehttp may ask twice about one answer
		s.pausedFor = resp
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			s.throttled = true
			now := s.c.now()
			d, ok := RetryAfter(resp.Header, now)
			if !ok {
				d, ok = rateLimitReset(resp.Header, now)
			}
			if !ok {
				d = Backoff(s.policy.MinWait, s.policy.MaxWait, s.attempts+1, nil)
			}
			s.c.pause(s.ctx, min(d, s.c.maxPause), "429")
		case remainingZero(resp.Header):
			if d, ok := rateLimitReset(resp.Header, s.c.now()); ok {
				s.c.pause(s.ctx, min(d, s.c.maxPause), "X-RateLimit-Remaining: 0")
			}
		}
	}
	return s.c.pausedFor()
}

// remainingZero reports X-RateLimit-Remaining: 0. The header is looked up
// by its canonical key, which costs no allocation on every answer.
func remainingZero(h http.Header) bool {
	v := h["X-Ratelimit-Remaining"]
	return len(v) > 0 && strings.TrimSpace(v[0]) == "0"
}

// backoff waits, on the client's clock, before the call's next attempt:
// after a 429 the client's pause, so this call waits no longer than every
// other; otherwise Backoff. It waits itself and hands retryablehttp no
// wait of its own, so that every wait reads one clock.
func (s *callState) backoff(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	s.leavePlace() // a backoff holds no place either
	if s.c.sleep(s.ctx, s.backoffFor(lo, hi, attempt, resp)) != nil {
		// ctx is done: a wait retryablehttp's timer cannot finish first
		// makes it return ctx's error at once, never send again.
		return time.Hour
	}
	return 0
}

// backoffFor is how long backoff waits.
func (s *callState) backoffFor(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
		return s.c.pausedFor()
	}
	return backoffAt(lo, hi, attempt, resp, s.c.now())
}

// beforeAttempt runs before every attempt: it books the backoff since the
// previous attempt as waiting, and logs the retry.
func (s *callState) beforeAttempt(_ retryablehttp.Logger, r *http.Request, attempt int) {
	s.starting = true
	if attempt == 0 {
		return
	}
	wait := s.c.since(s.lastEnd)
	kind := WaitBackoff
	if s.lastStatus == http.StatusTooManyRequests {
		kind = WaitPause
	}
	s.book(kind, wait, 0)
	if log := s.c.log; log != nil {
		attrs := []slog.Attr{
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("attempt", s.attempts+1), slog.Duration("waited", wait),
		}
		if s.lastStatus != 0 {
			attrs = append(attrs, slog.Int("status", s.lastStatus))
		}
		log.LogAttrs(s.ctx, slog.LevelInfo, "edapp: retrying request", attrs...)
	}
}

// RoundTrip sends one attempt, or one redirect hop of it. It waits for the
// client's pause and the limiter first (every hop draws from the budget),
// and strips the Authorization header from a request that leaves the base
// URL's origin, so a redirect elsewhere never carries the token (net/http
// alone would keep it for a subdomain).
func (s *callState) RoundTrip(req *http.Request) (*http.Response, error) {
	s.leavePlace() // the previous attempt's: a wait holds none
	err := s.waitTurn(req.Context())
	if err == nil {
		err = s.enterPlace(req.Context())
	}
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	starting := s.starting
	if starting {
		s.attempts++
		s.starting = false
	}
	// RoundTrippers must not modify the request they are given: r is a
	// copy wherever it differs.
	r := s.attemptRequest(req, starting)
	if len(req.Header["Authorization"]) > 0 && !s.c.sameOrigin(req.URL) { // the key as setHeaders writes it
		r = r.Clone(r.Context())
		r.Header.Del("Authorization")
	}
	start := s.c.now()
	resp, err := s.c.next.RoundTrip(r)
	err = s.attemptError(err)
	s.lastEnd, s.lastStatus = s.c.now(), 0
	if resp != nil {
		s.lastStatus = resp.StatusCode
	}
	s.reportAttempt(r, s.lastEnd.Sub(start), err)
	return resp, err
}

// enterPlace takes a place of the request's InFlight semaphore, waiting
// while all are held, until ctx is done.
func (s *callState) enterPlace(ctx context.Context) error {
	if s.req.InFlight == nil {
		return nil
	}
	select {
	case s.req.InFlight <- struct{}{}:
		s.placed = true
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// leavePlace gives back the place enterPlace took, if any.
func (s *callState) leavePlace() {
	if s.placed {
		<-s.req.InFlight
		s.placed = false
	}
}

// reportAttempt logs an attempt and tells the observer.
func (s *callState) reportAttempt(r *http.Request, took time.Duration, err error) {
	if s.c.obs != nil {
		s.c.obs.Attempt(s.ctx, &s.req, s.attempts, s.lastStatus, err, took)
	}
	log := s.c.log
	if log == nil {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("host", r.URL.Host),
		slog.String("path", r.URL.Path),
		slog.Duration("duration", took),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", s.c.Redact(err.Error())))
		log.LogAttrs(s.ctx, slog.LevelDebug, "edapp: request failed", attrs...)
		return
	}
	log.LogAttrs(s.ctx, slog.LevelDebug, "edapp: response", append(attrs, slog.Int("status", s.lastStatus))...)
}

// readAnswer reads the final answer's body: retryablehttp calls it once no
// retry is due, and Client.Do when the retries ran out on a status.
func (s *callState) readAnswer(resp *http.Response) error {
	buf := getBuffer()
	truncated, err := s.c.readBody(buf, resp)
	if err != nil {
		err = s.attemptError(err)
		putBuffer(buf)
		return err
	}
	s.body, s.truncated = buf, truncated
	return nil
}

// book counts a wait in the call's Waited and tells the observer, with
// the length the wait was expected to have when it began (0: unknown).
func (s *callState) book(kind WaitKind, d, expected time.Duration) {
	s.waited += d
	if kind != WaitBackoff && d >= time.Millisecond {
		s.throttled = true
	}
	if s.c.obs != nil {
		s.c.obs.Wait(s.ctx, &s.req, kind, d, expected)
	}
}

// failure turns what the retry loop returned into the error Do reports.
func (s *callState) failure(err error) error {
	r := &s.req
	var le *LimiterError
	if errors.As(err, &le) {
		return fmt.Errorf("edapp: %s %s: %w", r.Method, r.Path, le)
	}
	if ctxErr := s.ctx.Err(); ctxErr != nil {
		if s.throttled {
			return fmt.Errorf("edapp: %s %s: %w", r.Method, r.Path, &LimiterError{Throttled: true, Err: ctxErr})
		}
		return ctxErr
	}
	if errors.Is(err, errTooLarge) {
		return fmt.Errorf("edapp: %s %s: the answer is larger than %d bytes (see WithMaxResponseBytes)", r.Method, r.Path, s.c.maxBody)
	}
	return fmt.Errorf("edapp: %s %s: %w", r.Method, r.Path, s.c.clean(unwrapURLError(err)))
}
