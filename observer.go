package edapp

import "github.com/edapp-go/edapp/internal/core"

// Observer is told what a client does: each call's start and end, each
// attempt, each wait and each page of a list. Set it with [WithObserver];
// every field is optional. It is the hook for metrics and tracing (the
// otel module builds on it).
//
// Fields, each a callback:
//
//	CallStart func(ctx context.Context, e CallEvent) context.Context
//	CallEnd   func(ctx context.Context, e CallEvent)
//	Attempt   func(ctx context.Context, e AttemptEvent)
//	Wait      func(ctx context.Context, e WaitEvent)
//	Page      func(ctx context.Context, e PageEvent)
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
type Observer = core.Observer

// CallEvent is one call: a service method, or one [Client.Do]. CallStart
// gets the Method and Route; CallEnd gets the rest too.
//
// Fields: Method; Route (the route template, "custom" for Client.Do without
// [WithRoute]); StatusCode (the final answer's, 0 when none came); Error
// (the [ErrorClass] of the call's error, "" when it succeeded); Attempts
// and Waited (as in [Response]); Duration (from start to end, waits
// included).
type CallEvent = core.CallEvent

// AttemptEvent is one attempt that was sent (a retry is another attempt).
//
// Fields: Method, Route, Attempt (1 for the first), StatusCode (0 when no
// answer came), Error (an [ErrorClass], "" when an answer came), Duration.
type AttemptEvent = core.AttemptEvent

// WaitEvent is one time a call was held before an attempt.
//
// Fields: Method, Route, Kind (a [WaitKind]), Duration, and Expected: how
// long the wait was expected to take when it began (the limiter's estimate,
// for a limiter with a Delay method such as [WindowLimiter], or the rest
// of a 429's pause); 0 when not known.
type WaitEvent = core.WaitEvent

// PageEvent is one page a list operation fetched: a ListX call, or a page
// of an AllX walk.
//
// Fields: Route; Page (the page number asked for, 0 when the call named
// none); Items (items decoded from the page).
type PageEvent = core.PageEvent

// WaitKind says what a call waited for.
type WaitKind = core.WaitKind

const (
	WaitInteractive = core.WaitInteractive // the limiter's interactive lane
	WaitBulk        = core.WaitBulk        // the limiter's bulk lane
	WaitPause       = core.WaitPause       // the client-wide pause after a 429
	WaitBackoff     = core.WaitBackoff     // the backoff between two attempts
)

// ErrorClass names the kind of an error without its text.
type ErrorClass = core.ErrorClass

const (
	ErrorClassNone         = core.ErrorClassNone
	ErrorClassInvalidInput = core.ErrorClassInvalidInput // refused before sending
	ErrorClassCanceled     = core.ErrorClassCanceled     // the context was cancelled
	ErrorClassDeadline     = core.ErrorClassDeadline     // the context's deadline passed
	ErrorClassThrottled    = core.ErrorClassThrottled    // the client's limiter or a 429 pause held it too long
	ErrorClassStatus       = core.ErrorClassStatus       // a non-2xx answer: see StatusCode
	ErrorClassDecode       = core.ErrorClassDecode       // a 2xx answer that did not decode
	ErrorClassTimeout      = core.ErrorClassTimeout      // a network timeout
	ErrorClassConnection   = core.ErrorClassConnection   // any other network failure
	ErrorClassOther        = core.ErrorClassOther
)

// BudgetReporter is a [Limiter] that can say how much of its budget the
// current window has used, for a gauge: BudgetUsed() (used, limit int).
// *[WindowLimiter] implements it.
type BudgetReporter = core.BudgetReporter

// WithObserver makes the client report to o (see [Observer]). An Observer
// with no callback set costs nothing.
func WithObserver(o Observer) Option {
	return func(c *core.Config) error { c.Observer = o; return nil }
}
