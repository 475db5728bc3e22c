package core

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/edapp-go/edapp/internal/transport"
)

// Observer is told what a client does: each call's start and end, each
// attempt, each wait and each page of a list. Set it with [WithObserver];
// every field is optional. It is the hook for metrics and tracing (the
// otel module builds on it).
//
// Callbacks run inline, on the goroutine making the call, so they must be
// quick and must not block: a slow callback slows the call. A callback that
// panics is recovered and the call goes on. Events name an operation by
// its method and route template ("/v2/users/{userId}"), never by its path
// or query, and never carry the token, a body or a header value.
//
// Every callback gets the call's context. CallStart may return a context
// derived from it (a tracer puts the call's span there); the call then
// runs with it, and its CallEnd, Attempt and Wait callbacks get it, so
// they can find what CallStart put there. Returning nil keeps ctx. Page
// gets the context of the list call that fetched the page.
type Observer struct {
	CallStart func(ctx context.Context, e CallEvent) context.Context
	CallEnd   func(ctx context.Context, e CallEvent)
	Attempt   func(ctx context.Context, e AttemptEvent)
	Wait      func(ctx context.Context, e WaitEvent)
	Page      func(ctx context.Context, e PageEvent)
}

// CallEvent is one call: a service method, or one [Client.Do]. CallStart
// gets the Method and Route; CallEnd gets the rest too.
type CallEvent struct {
	Method string
	Route  string // the route template; "custom" for Client.Do without WithRoute
	// StatusCode is the final answer's status; 0 when none came.
	StatusCode int
	// Error is the class of the call's error; "" when it succeeded.
	Error ErrorClass
	// Attempts and Waited are Response.Attempts and Response.Waited.
	Attempts int
	Waited   time.Duration
	Duration time.Duration // from start to end, waits included
}

// AttemptEvent is one attempt that was sent (a retry is another attempt).
type AttemptEvent struct {
	Method     string
	Route      string
	Attempt    int        // 1 for the first
	StatusCode int        // 0 when no answer came
	Error      ErrorClass // "" when an answer came
	Duration   time.Duration
}

// WaitEvent is one time a call was held before an attempt.
type WaitEvent struct {
	Method   string
	Route    string
	Kind     WaitKind
	Duration time.Duration
	// Expected is how long the wait was expected to take when it began:
	// the limiter's estimate (a limiter with a Delay method, such as
	// WindowLimiter), or the rest of a 429's pause; 0 when not known (a
	// backoff between attempts, a limiter that cannot tell).
	Expected time.Duration
}

// PageEvent is one page a list operation fetched: a ListX call, or a page
// of an AllX walk.
type PageEvent struct {
	Route string
	Page  int // the page number asked for; 0 when the call named none
	Items int // items decoded from the page
}

// WaitKind says what a call waited for.
type WaitKind string

const (
	WaitInteractive WaitKind = "interactive" // the limiter's interactive lane
	WaitBulk        WaitKind = "bulk"        // the limiter's bulk lane
	WaitPause       WaitKind = "pause"       // the client-wide pause after a 429
	WaitBackoff     WaitKind = "backoff"     // the backoff between two attempts
)

// ErrorClass names the kind of an error without its text.
type ErrorClass string

const (
	ErrorClassNone         ErrorClass = ""
	ErrorClassInvalidInput ErrorClass = "invalid_input" // refused before sending
	ErrorClassCanceled     ErrorClass = "canceled"      // the context was cancelled
	ErrorClassDeadline     ErrorClass = "deadline"      // the context's deadline passed
	ErrorClassThrottled    ErrorClass = "throttled"     // the client's limiter or a 429 pause held it too long
	ErrorClassStatus       ErrorClass = "status"        // a non-2xx answer: see StatusCode
	ErrorClassDecode       ErrorClass = "decode"        // a 2xx answer that did not decode
	ErrorClassTimeout      ErrorClass = "timeout"       // a network timeout
	ErrorClassConnection   ErrorClass = "connection"    // any other network failure
	ErrorClassOther        ErrorClass = "other"
)

// BudgetReporter is a [Limiter] that can say how much of its budget the
// current window has used, for a gauge. *[WindowLimiter] implements it.
type BudgetReporter interface {
	BudgetUsed() (used, limit int)
}

// observer calls an Observer's callbacks safely. A client without
// callbacks has a nil *observer, and nothing is reported.
type observer struct {
	o   Observer
	log *slog.Logger
}

func newObserver(o Observer, log *slog.Logger) *observer {
	if o.CallStart == nil && o.CallEnd == nil && o.Attempt == nil && o.Wait == nil && o.Page == nil {
		return nil
	}
	return &observer{o: o, log: log}
}

// notify calls f(ctx, e), recovering a panic.
func notify[E any](ob *observer, f func(context.Context, E), ctx context.Context, e E) {
	if f == nil {
		return
	}
	defer ob.recoverPanic()
	f(ctx, e)
}

func (ob *observer) recoverPanic() {
	if r := recover(); r != nil && ob.log != nil {
		ob.log.LogAttrs(context.Background(), slog.LevelWarn, "edapp: an Observer callback panicked; the call goes on")
	}
}

// callStart reports the start of op, and returns the context the call runs
// with: the one CallStart returned, or ctx.
func (ob *observer) callStart(ctx context.Context, op *Operation) (context.Context, time.Time) {
	if f := ob.o.CallStart; f != nil {
		if derived := ob.startContext(f, ctx, CallEvent{Method: op.Method, Route: routeOf(op.Route)}); derived != nil {
			ctx = derived
		}
	}
	return ctx, time.Now()
}

func (ob *observer) startContext(f func(context.Context, CallEvent) context.Context, ctx context.Context, e CallEvent) context.Context {
	defer ob.recoverPanic()
	return f(ctx, e)
}

func (ob *observer) callEnd(ctx context.Context, op *Operation, tr *transport.Response, err error, start time.Time) {
	e := CallEvent{Method: op.Method, Route: routeOf(op.Route), Error: classOf(err), Duration: time.Since(start)}
	if tr != nil {
		e.StatusCode, e.Attempts, e.Waited = tr.StatusCode, tr.Attempts, tr.Waited
	}
	notify(ob, ob.o.CallEnd, ctx, e)
}

// Attempt and Wait receive the transport's reports.
func (ob *observer) Attempt(ctx context.Context, r *transport.Request, attempt, status int, err error, took time.Duration) {
	notify(ob, ob.o.Attempt, ctx, AttemptEvent{
		Method: r.Method, Route: routeOf(r.Route), Attempt: attempt,
		StatusCode: status, Error: classOf(err), Duration: took,
	})
}

func (ob *observer) Wait(ctx context.Context, r *transport.Request, kind transport.WaitKind, took, expected time.Duration) {
	notify(ob, ob.o.Wait, ctx, WaitEvent{Method: r.Method, Route: routeOf(r.Route), Kind: waitKinds[kind], Duration: took, Expected: expected})
}

var waitKinds = [...]WaitKind{
	transport.WaitInteractive: WaitInteractive,
	transport.WaitBulk:        WaitBulk,
	transport.WaitPause:       WaitPause,
	transport.WaitBackoff:     WaitBackoff,
}

// Page reports one page of a list to the Observer: the page number asked
// for (0: none) and the items decoded from it.
func (c *Client) Page(ctx context.Context, route string, page, items int) {
	if ob := c.observer; ob != nil {
		notify(ob, ob.o.Page, ctx, PageEvent{Route: routeOf(route), Page: page, Items: items})
	}
}

// routeOf names a call without a route of its own.
func routeOf(route string) string {
	if route == "" {
		return "custom"
	}
	return route
}

// classOf classifies err by its type, never by its text. A nil err costs
// nothing: errors.As's targets live on the heap.
func classOf(err error) ErrorClass {
	if err == nil {
		return ErrorClassNone
	}
	return classOfFailure(err)
}

func classOfFailure(err error) ErrorClass {
	var apiErr *APIError
	var decErr *DecodeError
	var netErr net.Error
	switch {
	case errors.As(err, &apiErr):
		return ErrorClassStatus
	case errors.As(err, &decErr):
		return ErrorClassDecode
	case errors.Is(err, ErrInvalidInput):
		return ErrorClassInvalidInput
	case errors.Is(err, ErrRateLimited):
		return ErrorClassThrottled
	case errors.Is(err, context.Canceled):
		return ErrorClassCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return ErrorClassDeadline
	case errors.As(err, &netErr) && netErr.Timeout():
		return ErrorClassTimeout
	case errors.As(err, new(*net.OpError)) || errors.As(err, new(net.Error)),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return ErrorClassConnection
	}
	return ErrorClassOther
}
