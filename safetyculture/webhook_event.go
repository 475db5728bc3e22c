package safetyculture

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/webhook"
)

// WebhookEvent is a delivery from SafetyCulture: version "3.0.0" of its
// envelope. Data is the delivery's subset of the resource, as sent (fetch
// the rest through the API); members the SDK does not know are in Extra.
type WebhookEvent struct {
	WebhookID string          `json:"webhook_id"`
	Version   string          `json:"version"`
	Event     EventInfo       `json:"event"`
	Resource  Resource        `json:"resource"`
	Data      json.RawMessage `json:"data"`
	Extra     edapp.RawFields `json:"-"`
}

// EventInfo says what happened, when and by whom.
type EventInfo struct {
	DateTriggered edapp.Time      `json:"date_triggered"`
	EventTypes    []string        `json:"event_types"` // TRIGGER_EVENT_TRAINING_COURSE_COMPLETED, ...
	TriggeredBy   TriggeredBy     `json:"triggered_by"`
	Extra         edapp.RawFields `json:"-"`
}

// TriggeredBy names the user and organisation that caused the event.
type TriggeredBy struct {
	User         string          `json:"user"`
	Organization string          `json:"organization"`
	Extra        edapp.RawFields `json:"-"`
}

// Resource names the object the event is about.
type Resource struct {
	ID    string          `json:"id"`
	Type  string          `json:"type"`
	Extra edapp.RawFields `json:"-"`
}

// Name is the event's most specific type ("" when it has none), so a
// WebhookEvent is an edapp.Event: the first of event_types that no other
// listed type extends, as in ["TRIGGER_EVENT_TRAINING",
// "TRIGGER_EVENT_TRAINING_COURSE_COMPLETED"], since whether the service
// lists a family before the event is not known.
func (e *WebhookEvent) Name() edapp.EventName {
	types := e.Event.EventTypes
	for _, t := range types {
		if !slices.ContainsFunc(types, func(u string) bool { return strings.HasPrefix(u, t+"_") }) {
			return edapp.EventName(t)
		}
	}
	return ""
}

// Key identifies the event for deduplicating deliveries: the same for
// every delivery of one event (the webhook, event types, time and
// resource), never empty.
func (e *WebhookEvent) Key() string {
	h := sha256.New()
	for _, part := range append([]string{e.WebhookID, e.Event.DateTriggered.UTC().String(), e.Resource.Type, e.Resource.ID}, e.Event.EventTypes...) {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ParseWebhookEvent decodes a delivery's body leniently: a value that does
// not fit costs that value only. A body that is not a JSON object is an
// error.
func ParseWebhookEvent(body []byte) (*WebhookEvent, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, fmt.Errorf("%w: a delivery is a JSON object", edapp.ErrInvalidInput)
	}
	ev := new(WebhookEvent)
	if _, err := edapp.Unmarshal(body, ev); err != nil {
		return nil, fmt.Errorf("%w: %v", edapp.ErrInvalidInput, err)
	}
	return ev, nil
}

// NewWebhookHandler returns an http.Handler that receives SafetyCulture's
// deliveries: it checks each one's signature with secret, decodes it with
// ParseWebhookEvent, and passes it to fn with the request's context. It
// is package webhook's Handler, with its options (WithMaxBodyBytes,
// WithReadTimeout, WithMaxInFlight, WithLogger) and its answers: 405 to a
// method but POST, 413 to a body over the bound, 408 to one read too
// slowly, 503 when too many are in flight or fn returns
// webhook.ErrUnavailable, 500 when fn fails or panics (so SafetyCulture
// delivers again), 200 when fn returns nil; and 401 to a delivery whose
// signature is bad, 400 to a body that is not an envelope. fn never sees
// a refused delivery. An empty secret or a nil fn is an error.
//
// A delivery's signature can only be checked once its body is read, so
// the bodies cost memory before a sender is known: the handler reads at
// most [DefaultWebhookBodyBytes] of one (SafetyCulture's deliveries carry
// only a part of the record; webhook.WithMaxBodyBytes changes it) and at
// most webhook.DefaultMaxReading bodies at once (webhook.WithMaxReading).
func NewWebhookHandler(secret string, fn func(context.Context, *WebhookEvent) error, opts ...webhook.Option) (http.Handler, error) {
	if secret == "" || fn == nil {
		return nil, fmt.Errorf("%w: safetyculture.NewWebhookHandler needs a secret and a function", edapp.ErrInvalidInput)
	}
	parse := func(h http.Header, body []byte) (*WebhookEvent, int, error) {
		if err := VerifySignature(body, h.Get(SignatureHeader), secret); err != nil {
			return nil, http.StatusUnauthorized, err
		}
		ev, err := ParseWebhookEvent(body)
		if err != nil {
			return nil, http.StatusBadRequest, err
		}
		return ev, http.StatusOK, nil
	}
	opts = append([]webhook.Option{webhook.WithMaxBodyBytes(DefaultWebhookBodyBytes)}, opts...) // a later one wins
	h, err := webhook.NewHandlerFunc(parse, fn, opts...)
	if err != nil {
		return nil, err // not a nil *webhook.Handler in a non-nil http.Handler
	}
	return h, nil
}

// DefaultWebhookBodyBytes is the largest delivery body
// [NewWebhookHandler] reads unless webhook.WithMaxBodyBytes says
// otherwise: a larger one gets 413.
const DefaultWebhookBodyBytes = 64 << 10
