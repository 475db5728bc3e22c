package webhook

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/opt"
)

// Defaults of [NewHandler]. Deliveries are small, and a sender that cannot
// send one in 10 s is stalled or hostile.
const (
	defaultMaxBody     = 1 << 20
	defaultReadTimeout = 10 * time.Second
	// retryAfter is the Retry-After, in seconds, of a 503.
	retryAfter = "1"
)

// ErrUnavailable, returned by (or wrapped in an error of) the event
// function, answers the delivery 503 Service Unavailable with a Retry-After
// header instead of 500: the receiver cannot take the delivery now, and a
// sender that retries should try again later.
var ErrUnavailable = errors.New("webhook: receiver unavailable")

// ErrRejected, returned by (or wrapped in an error of) the event function,
// answers the delivery 422 Unprocessable Entity: the receiver refuses it
// for good (the inbox's store keeps it in its database's rejects table), and a
// sender must not deliver it again, as it would for a 5xx.
var ErrRejected = errors.New("webhook: delivery rejected")

// Handler receives webhook deliveries. It is an http.Handler; [NewHandler]
// and [NewHandlerFunc] make one (the inbox's store, on the latter). It
// holds no secret in clear.
type Handler struct {
	receive       receiveFunc
	secretName    string
	secretSum     [sha256.Size]byte
	secretSet     bool
	maxBody       int64
	readTimeout   time.Duration
	inFlight      chan struct{} // nil: no bound
	reading       chan struct{} // the bodies being read (see WithMaxReading)
	log, panicLog *slog.Logger
	// parse checks and decodes a body in place of edapp.ParseEvent, for
	// another service's envelope; it says what to answer when it fails.
	parse func(h http.Header, body []byte) (edapp.Event, int, error)
}

// receiveFunc takes a decoded delivery. It may set d.key and d.result for
// the delivery's log line.
type receiveFunc func(ctx context.Context, d *delivery) error

// delivery is one decoded delivery on its way to the receiver.
type delivery struct {
	event  edapp.Event
	raw    []byte // the body as received
	key    string // edapp.EventKey, when the receiver worked it out
	result string // what the receiver did, for the log line
}

// NewHandler returns a Handler that receives webhook deliveries, decodes
// each with [edapp.ParseEvent] and passes the typed event (an
// *[edapp.UnknownEvent] too) to fn, with the request's context. EdApp does
// not document how deliveries are made (method, headers, retries); the
// handler expects a POST of the JSON payload.
//
// It answers:
//   - 405 Method Not Allowed, with an Allow header, to any method but POST;
//   - 401 Unauthorized when [WithSecretHeader] is given and the header is
//     missing or wrong;
//   - 503 Service Unavailable, with Retry-After, when [WithMaxReading]
//     bodies are already being read, when [WithMaxInFlight] deliveries are
//     already with fn, or when fn's error is [ErrUnavailable];
//   - 413 Request Entity Too Large to a body over [WithMaxBodyBytes] (1 MiB by
//     default);
//   - 408 Request Timeout to a body not read within [WithReadTimeout] (10 s by
//     default);
//   - 400 Bad Request to a body [edapp.ParseEvent] rejects;
//   - 500 Internal Server Error when fn returns another error or panics, so
//     that the sender can deliver the event again;
//   - 200 OK when fn returns nil.
//
// fn is never called for a rejected delivery. The event it gets does not
// share memory with the request. The read bound uses the connection's read
// deadline (http.ResponseController); behind a ResponseWriter that cannot set
// one, the handler stops waiting for the body when the time is up. A panic in
// fn is recovered and logged with its stack but without the payload.
//
// A nil fn or a bad option value is an error wrapping [edapp.ErrInvalidInput];
// a nil option is ignored.
func NewHandler(fn func(context.Context, edapp.Event) error, opts ...Option) (*Handler, error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: webhook.NewHandler: nil event function", edapp.ErrInvalidInput)
	}
	return newHandler(func(ctx context.Context, d *delivery) error {
		return fn(ctx, d.event)
	}, opts)
}

func newHandler(receive receiveFunc, opts []Option) (*Handler, error) {
	h := &Handler{
		receive:     receive,
		maxBody:     defaultMaxBody,
		readTimeout: defaultReadTimeout,
		log:         slog.New(slog.DiscardHandler),
		panicLog:    slog.Default(),
		reading:     make(chan struct{}, DefaultMaxReading),
	}
	if err := opt.Apply(h, opts); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.reject(w, r, http.StatusMethodNotAllowed, "method not allowed", nil)
		return
	}
	if reason := h.unauthorized(r); reason != "" {
		h.reject(w, r, http.StatusUnauthorized, reason, nil)
		return
	}
	// The body is read, within its bounds, before a place is taken: a slow
	// body (a slow network, or a sender that holds connections open) then
	// holds a connection, never one of the places the receiver's work is
	// bounded by.
	d, ok := h.decode(w, r)
	if !ok {
		return
	}
	if !h.enter() {
		w.Header().Set("Retry-After", retryAfter)
		h.reject(w, r, http.StatusServiceUnavailable, "too many deliveries in flight", nil)
		return
	}
	defer h.leave()
	err := h.call(r.Context(), d)
	h.answer(w, r, d, err, time.Since(start))
}

// decode reads and decodes the body, answering the delivery when it fails.
func (h *Handler) decode(w http.ResponseWriter, r *http.Request) (*delivery, bool) {
	if r.ContentLength > h.maxBody {
		h.reject(w, r, http.StatusRequestEntityTooLarge, "body too large", nil)
		return nil, false
	}
	if !h.startReading() {
		w.Header().Set("Retry-After", retryAfter)
		w.Header().Set("Connection", "close") // the body is not read
		h.reject(w, r, http.StatusServiceUnavailable, "too many bodies being read", nil)
		return nil, false
	}
	defer h.doneReading()
	body, err := h.readBody(w, r)
	if err != nil {
		h.rejectUnread(w, r, err)
		return nil, false
	}
	if h.parse != nil {
		ev, status, err := h.parse(r.Header, body)
		if err != nil {
			h.reject(w, r, status, "delivery refused", err)
			return nil, false
		}
		return &delivery{event: ev, raw: body}, true
	}
	ev, err := edapp.ParseEvent(body)
	if err != nil {
		h.reject(w, r, http.StatusBadRequest, "malformed event payload", err)
		return nil, false
	}
	return &delivery{event: ev, raw: body}, true
}

// rejectUnread answers a delivery whose body could not be read whole.
func (h *Handler) rejectUnread(w http.ResponseWriter, r *http.Request, err error) {
	w.Header().Set("Connection", "close") // what is left of the body is not a request
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		h.reject(w, r, http.StatusRequestEntityTooLarge, "body too large", nil)
	case errors.Is(err, os.ErrDeadlineExceeded):
		h.reject(w, r, http.StatusRequestTimeout, "body not read in time", nil)
	default:
		h.reject(w, r, http.StatusBadRequest, "body could not be read", err)
	}
}

// answer answers a decoded delivery after the receiver had it, and logs one
// line for it.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, d *delivery, err error, took time.Duration) {
	status, level := http.StatusOK, slog.LevelInfo
	switch {
	case errors.Is(err, ErrUnavailable):
		status, level = http.StatusServiceUnavailable, slog.LevelWarn
		w.Header().Set("Retry-After", retryAfter)
	case errors.Is(err, ErrRejected):
		status, level = http.StatusUnprocessableEntity, slog.LevelWarn
	case err != nil:
		status, level = http.StatusInternalServerError, slog.LevelError
	}
	if h.log.Enabled(r.Context(), level) {
		if d.key == "" {
			d.key = edapp.EventKey(d.event)
		}
		attrs := []slog.Attr{
			slog.Int("status", status), slog.String("event", string(d.event.Name())),
			slog.String("key", d.key), slog.Duration("took", took),
		}
		if d.result != "" {
			attrs = append(attrs, slog.String("result", d.result))
		}
		if err != nil {
			attrs = append(attrs, slog.Any("error", err))
		}
		h.log.LogAttrs(r.Context(), level, "edapp webhook: delivery", attrs...)
	}
	if err != nil {
		http.Error(w, http.StatusText(status), status)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// enter takes a place among the deliveries in flight, if one is free.
func (h *Handler) enter() bool {
	if h.inFlight == nil {
		return true
	}
	select {
	case h.inFlight <- struct{}{}:
		return true
	default:
		return false
	}
}

func (h *Handler) leave() {
	if h.inFlight != nil {
		<-h.inFlight
	}
}

// readBody reads the body within maxBody bytes and readTimeout. A body that
// takes too long gives an error that is os.ErrDeadlineExceeded.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	body := http.MaxBytesReader(w, r.Body, h.maxBody)
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(h.readTimeout)) == nil {
		b, err := readAll(body, r.ContentLength, h.maxBody)
		if err == nil {
			// Lift the deadline, so that it cannot end the connection,
			// or fn's context, while fn runs. After an error it stays,
			// so that net/http does not wait for the rest of the body.
			_ = rc.SetReadDeadline(time.Time{}) // it worked a moment ago
		}
		return b, err
	}
	return h.readBodyAside(r, body)
}

// readBodyAside reads body without a deadline to set: aside, and it stops
// waiting when the timer ends. A read still blocked then ends with the
// connection.
func (h *Handler) readBodyAside(r *http.Request, body io.Reader) ([]byte, error) {
	type result struct {
		body []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		b, err := readAll(body, r.ContentLength, h.maxBody)
		done <- result{b, err}
	}()
	timer := time.NewTimer(h.readTimeout)
	defer timer.Stop()
	select {
	case res := <-done:
		return res.body, res.err
	case <-timer.C:
		return nil, fmt.Errorf("webhook: body not read within %v: %w", h.readTimeout, os.ErrDeadlineExceeded)
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

// call runs the receiver, turning a panic into an error. The panic is
// logged with its stack; its value only when the runtime made it, since a
// value of fn's own may hold the payload.
func (h *Handler) call(ctx context.Context, d *delivery) (err error) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if p == http.ErrAbortHandler {
			panic(p)
		}
		what := fmt.Sprintf("a value of type %T", p)
		if re, ok := p.(runtime.Error); ok {
			what = re.Error()
		}
		h.panicLog.LogAttrs(ctx, slog.LevelError, "edapp webhook: event function panicked",
			slog.String("event", string(d.event.Name())), slog.String("panic", what),
			slog.String("stack", string(debug.Stack())))
		err = errors.New("event function panicked with " + what)
	}()
	return h.receive(ctx, d)
}

// unauthorized checks the secret header and returns why it fails, or "".
func (h *Handler) unauthorized(r *http.Request) string {
	if !h.secretSet {
		return ""
	}
	got, ok := r.Header[h.secretName]
	if !ok || len(got) == 0 {
		return "secret header missing"
	}
	sum := sha256.Sum256([]byte(got[0]))
	if subtle.ConstantTimeCompare(sum[:], h.secretSum[:]) != 1 {
		return "secret header wrong"
	}
	return ""
}

// reject answers a delivery that fn will not see, and logs why.
func (h *Handler) reject(w http.ResponseWriter, r *http.Request, status int, reason string, err error) {
	attrs := []slog.Attr{
		slog.Int("status", status),
		slog.String("reason", reason),
		slog.String("method", r.Method),
		slog.String("remote", r.RemoteAddr),
	}
	if err != nil {
		attrs = append(attrs, slog.Any("error", err))
	}
	h.log.LogAttrs(r.Context(), slog.LevelWarn, "edapp webhook: delivery rejected", attrs...)
	http.Error(w, http.StatusText(status), status)
}
