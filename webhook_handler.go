package edapp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"time"
)

// WebhookHandlerOption configures NewWebhookHandler.
type WebhookHandlerOption func(*webhookHandler)

// Defaults of NewWebhookHandler. Deliveries are small, and a sender that
// cannot send one in 10 s is stalled or hostile.
const (
	defaultMaxWebhookBody     = 1 << 20
	defaultWebhookReadTimeout = 10 * time.Second
)

// WithSecretHeader makes the handler accept only deliveries whose header
// name carries value; a missing or different value gets 401 Unauthorized.
// The handler keeps only a SHA-256 digest of value and compares the digest of
// the value received with it in constant time (crypto/subtle), so neither the
// secret nor its length shows in timings, logs or responses.
//
// EdApp does not sign deliveries. A webhook link carries headers given when
// it is created, which is how a delivery can carry a shared secret, so
// register the link with the same name and value:
//
//	client.Webhooks.Create(ctx, edapp.WebhookCreateParams{
//		EventName:  edapp.EventLessonCompleted,
//		WebHookURL: "https://example.com/edapp/events",
//		Headers:    map[string]string{"X-Webhook-Secret": secret},
//	})
//
// An empty name or value would accept deliveries without any secret, so the
// handler then rejects every delivery with 401 and logs why.
func WithSecretHeader(name, value string) WebhookHandlerOption {
	return func(h *webhookHandler) {
		h.secretName = http.CanonicalHeaderKey(name)
		h.secretSum = sha256.Sum256([]byte(value))
		h.secretSet = true
		h.secretUnusable = name == "" || value == ""
	}
}

// WithMaxBodyBytes sets the largest delivery body the handler reads; a larger
// one gets 413 Request Entity Too Large. The default is 1 MiB, and n <= 0
// keeps it.
func WithMaxBodyBytes(n int64) WebhookHandlerOption {
	return func(h *webhookHandler) {
		if n > 0 {
			h.maxBody = n
		}
	}
}

// WithReadTimeout sets how long the handler waits for a delivery's body,
// from the moment it gets the request; a body not read by then gets 408
// Request Timeout. The default is 10 s, and d <= 0 keeps it. The handler
// sets this bound itself, whatever the server's ReadTimeout is.
func WithReadTimeout(d time.Duration) WebhookHandlerOption {
	return func(h *webhookHandler) {
		if d > 0 {
			h.readTimeout = d
		}
	}
}

// WithHandlerLogger makes the handler log each rejected delivery (at Warn),
// each error or panic of fn (at Error) and each accepted delivery (at
// Debug). Log records carry the status, the reason, the remote address and
// the event name, never header values or the payload. nil, the default, logs
// only panics, to slog.Default().
func WithHandlerLogger(l *slog.Logger) WebhookHandlerOption {
	return func(h *webhookHandler) {
		if l != nil {
			h.log, h.panicLog = l, l
		}
	}
}

// NewWebhookHandler returns an http.Handler that receives webhook deliveries,
// decodes each with ParseEvent and passes the typed event (an *UnknownEvent
// too) to fn, with the request's context. EdApp does not document how
// deliveries are made (method, headers, retries); the handler expects a POST
// of the JSON payload.
//
// It answers:
//   - 405 Method Not Allowed, with an Allow header, to any method but POST;
//   - 401 Unauthorized when WithSecretHeader is given and the header is
//     missing or wrong;
//   - 413 Request Entity Too Large to a body over WithMaxBodyBytes (1 MiB by
//     default);
//   - 408 Request Timeout to a body not read within WithReadTimeout (10 s by
//     default);
//   - 400 Bad Request to a body ParseEvent rejects;
//   - 500 Internal Server Error when fn returns an error or panics, so that
//     the sender can deliver the event again;
//   - 200 OK when fn returns nil.
//
// fn is never called for a rejected delivery. The event it gets does not
// share memory with the request. The read bound uses the connection's read
// deadline (http.ResponseController); behind a ResponseWriter that cannot set
// one, the handler stops waiting for the body when the time is up. A panic in
// fn is recovered and logged with its stack but without the payload. A nil fn
// answers 500 to every delivery, so that none is acknowledged and lost.
//
// A receiver, paired with the link that sends to it:
//
//	secret := os.Getenv("EDAPP_WEBHOOK_SECRET")
//	http.Handle("/edapp/events", edapp.NewWebhookHandler(
//		func(ctx context.Context, ev edapp.Event) error {
//			if e, ok := ev.(*edapp.LessonCompletedEvent); ok {
//				return store.RecordCompletion(ctx, e.UserID, e.LessonID, e.Score)
//			}
//			return nil
//		},
//		edapp.WithSecretHeader("X-Webhook-Secret", secret),
//	))
//	client.Webhooks.Create(ctx, edapp.WebhookCreateParams{
//		EventName:  edapp.EventLessonCompleted,
//		WebHookURL: "https://example.com/edapp/events",
//		Headers:    map[string]string{"X-Webhook-Secret": secret},
//	})
func NewWebhookHandler(fn func(context.Context, Event) error, opts ...WebhookHandlerOption) http.Handler {
	h := &webhookHandler{
		fn:          fn,
		maxBody:     defaultMaxWebhookBody,
		readTimeout: defaultWebhookReadTimeout,
		log:         slog.New(slog.DiscardHandler),
		panicLog:    slog.Default(),
	}
	for _, opt := range opts {
		if opt != nil {
			opt(h)
		}
	}
	return h
}

// webhookHandler is the handler of NewWebhookHandler. It holds no secret in
// clear.
type webhookHandler struct {
	fn             func(context.Context, Event) error
	secretSet      bool
	secretUnusable bool
	secretName     string
	secretSum      [sha256.Size]byte
	maxBody        int64
	readTimeout    time.Duration
	log            *slog.Logger
	panicLog       *slog.Logger
}

func (h *webhookHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.reject(w, r, http.StatusMethodNotAllowed, "method not allowed", nil)
		return
	}
	if reason := h.unauthorized(r); reason != "" {
		h.reject(w, r, http.StatusUnauthorized, reason, nil)
		return
	}
	if r.ContentLength > h.maxBody {
		h.reject(w, r, http.StatusRequestEntityTooLarge, "body too large", nil)
		return
	}
	body, err := h.readBody(w, r)
	if err != nil {
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
		return
	}
	ev, err := ParseEvent(body)
	if err != nil {
		h.reject(w, r, http.StatusBadRequest, "malformed event payload", err)
		return
	}
	if err := h.call(r.Context(), ev); err != nil {
		h.log.LogAttrs(r.Context(), slog.LevelError, "edapp webhook: event function failed",
			slog.String("event", string(ev.Name())), slog.Any("error", err))
		http.Error(w, "event not processed", http.StatusInternalServerError)
		return
	}
	h.log.LogAttrs(r.Context(), slog.LevelDebug, "edapp webhook: event accepted",
		slog.String("event", string(ev.Name())))
	w.WriteHeader(http.StatusOK)
}

// readBody reads the body within maxBody bytes and readTimeout. A body that
// takes too long gives an error that is os.ErrDeadlineExceeded.
func (h *webhookHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	body := http.MaxBytesReader(w, r.Body, h.maxBody)
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(h.readTimeout)) == nil {
		b, err := io.ReadAll(body)
		if err == nil {
			// Lift the deadline, so that it cannot end the connection,
			// or fn's context, while fn runs. After an error it stays,
			// so that net/http does not wait for the rest of the body.
			_ = rc.SetReadDeadline(time.Time{}) // it worked a moment ago
		}
		return b, err
	}
	// No deadline to set: read aside, and stop waiting when the timer ends.
	// A read still blocked then ends with the connection.
	type result struct {
		body []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(body)
		done <- result{b, err}
	}()
	timer := time.NewTimer(h.readTimeout)
	defer timer.Stop()
	select {
	case res := <-done:
		return res.body, res.err
	case <-timer.C:
		return nil, fmt.Errorf("edapp webhook: body not read within %v: %w", h.readTimeout, os.ErrDeadlineExceeded)
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

// call runs fn, turning a panic into an error. The panic is logged with its
// stack; its value only when the runtime made it, since a value of fn's own
// may hold the payload.
func (h *webhookHandler) call(ctx context.Context, ev Event) (err error) {
	if h.fn == nil {
		return errors.New("no event function")
	}
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
			slog.String("event", string(ev.Name())), slog.String("panic", what),
			slog.String("stack", string(debug.Stack())))
		err = errors.New("event function panicked with " + what)
	}()
	return h.fn(ctx, ev)
}

// NewTestDelivery returns a delivery body for ev, as the service would send
// it to a webhook URL, eventName included. For an *UnknownEvent it returns a
// copy of Raw as it is (valid JSON or not, so that tests can also send bodies
// a receiver must reject), or {"eventName": ...} when Raw is empty. It is
// meant for tests of receivers:
//
//	body := edapp.NewTestDelivery(&edapp.LessonCompletedEvent{UserID: "u1", Score: 90})
//	req := httptest.NewRequest(http.MethodPost, "/edapp/events", bytes.NewReader(body))
//
// Like httptest.NewRequest, it panics on input it cannot use: a nil event or
// one that does not encode (a NaN score).
func NewTestDelivery(ev Event) []byte {
	if u, ok := ev.(*UnknownEvent); ok && u != nil {
		if len(u.Raw) > 0 {
			return bytes.Clone(u.Raw)
		}
		return appendEventName(nil, u.EventName, '}')
	}
	b, err := json.Marshal(ev)
	if err == nil && string(b) == "null" {
		err = errors.New("nil event")
	}
	if err != nil {
		panic("edapp: NewTestDelivery: " + err.Error())
	}
	return b
}

// unauthorized checks the secret header and returns why it fails, or "".
func (h *webhookHandler) unauthorized(r *http.Request) string {
	if !h.secretSet {
		return ""
	}
	if h.secretUnusable {
		return "secret header configured with an empty name or value"
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
func (h *webhookHandler) reject(w http.ResponseWriter, r *http.Request, status int, reason string, err error) {
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
