package edapp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/lenient"
)

// WebhooksService covers the v2 webhook operations (/v2/webhooks).
//
// A webhook links one event name to one receiving URL; every occurrence of
// that event then produces one delivery to the URL, with a body shaped like
// the link's MessageFormat (see Event, and the webhook package for receiving). The vendor
// does not document how deliveries are made (method, headers, retries,
// signing): custom Headers are the only known way to authenticate them.
type WebhooksService service

// Webhook is the link between an event name and a receiving URL, as POST
// /v2/webhooks answers it. The SDK's decoding accepts the id as "id" or
// "webhookId" (the vendor's documentation uses both); encoding writes "id".
type Webhook struct {
	ID         string    `json:"id"`
	EventName  EventName `json:"eventName"`
	WebHookURL string    `json:"webHookUrl"`
	// Headers are sent with each delivery, when set. Inferred: the vendor
	// shows them only as null; the SDK reads a JSON object of strings.
	// Their values print as [REDACTED] (see WebhookHeaders).
	Headers WebhookHeaders `json:"headers"`
	// MessageFormat is the shape of the data delivered to WebHookURL: each
	// event field with its type name ("string", "datetime", "number").
	MessageFormat map[string]string `json:"messageFormat"`
	Extra         RawFields         `json:"-"`
}

// The other spelling of Webhook's id lives in the decoder's table, so the
// record carries only its documented fields.
func init() {
	lenient.Alias[Webhook](lenient.Spelling{Name: "webhookId", Field: "ID"})
}

// WebhookCreateParams is the body of Webhooks.Create: {"eventName",
// "webHookUrl"}, both required, and "headers" only when Headers holds any.
// Inferred: the vendor does not document headers on create; the answer's
// headers field suggests them.
type WebhookCreateParams struct {
	// EventName is one of the ten event names (see EventNames).
	EventName EventName `json:"eventName"`
	// WebHookURL receives the event data; it must be an absolute http or
	// https URL.
	WebHookURL string `json:"webHookUrl"`
	// Headers to send with each delivery, for example a shared secret that
	// the receiver checks (see webhook.WithSecretHeader). Their values
	// print as [REDACTED] (see WebhookHeaders); Create sends them in full.
	Headers WebhookHeaders `json:"headers,omitempty"`
}

// webhookCreateBody is what Create sends: the params with the header
// values in full, which WebhookCreateParams' own encoding redacts.
type webhookCreateBody struct {
	EventName  EventName         `json:"eventName"`
	WebHookURL string            `json:"webHookUrl"`
	Headers    map[string]string `json:"headers,omitempty"`
}

// WebhookHeaders are the headers a webhook link sends with each delivery.
// Their values usually carry the shared secret a receiver checks, so every
// fmt verb, log/slog, encoding/json and any user of encoding.TextMarshaler
// see each value as [REDACTED] (the names stay). Read a value by its name,
// as of any map: h["X-Webhook-Secret"]. A map[string]string literal
// assigns to it.
type WebhookHeaders map[string]string

// masked returns the headers with every value replaced by [REDACTED].
func (h WebhookHeaders) masked() map[string]string {
	if h == nil {
		return nil
	}
	m := make(map[string]string, len(h))
	for k := range h {
		m[k] = redacted
	}
	return m
}

// String returns the names with their values [REDACTED].
func (h WebhookHeaders) String() string { return fmt.Sprint(h.masked()) }

// GoString keeps %#v from printing the values.
func (h WebhookHeaders) GoString() string {
	return "edapp.WebhookHeaders" + strings.TrimPrefix(fmt.Sprintf("%#v", h.masked()), "map[string]string")
}

// Format prints String for every verb (%#v as GoString).
func (h WebhookHeaders) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, h.GoString())
		return
	}
	_, _ = io.WriteString(f, h.String())
}

// LogValue keeps log/slog from printing the values.
func (h WebhookHeaders) LogValue() slog.Value { return slog.AnyValue(h.masked()) }

// MarshalJSON encodes the names with their values "[REDACTED]".
func (h WebhookHeaders) MarshalJSON() ([]byte, error) { return json.Marshal(h.masked()) }

// MarshalText encodes String, for encoding/xml and other text encoders.
func (h WebhookHeaders) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// Create links an event to a receiving URL: POST /v2/webhooks. It refuses
// with [ErrInvalidInput], before any request, an event name that is not one
// of the ten and a URL that is not an absolute http or https URL. The
// answer is the new link, with its MessageFormat.
//
// EdApp API: POST /v2/webhooks
func (s *WebhooksService) Create(ctx context.Context, params WebhookCreateParams, reqOpts ...RequestOption) (*Webhook, error) {
	if !slices.Contains(EventNames(), params.EventName) {
		return nil, fmt.Errorf("%w: event name %q is not one of the ten webhook event names", ErrInvalidInput, params.EventName)
	}
	if u, err := url.Parse(params.WebHookURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The URL is not repeated: it may carry a secret.
		return nil, fmt.Errorf("%w: the webhook URL must be an absolute http or https URL", ErrInvalidInput)
	}
	w := new(Webhook)
	body := webhookCreateBody{EventName: params.EventName, WebHookURL: params.WebHookURL, Headers: params.Headers}
	if err := s.client.doForRecord(ctx, http.MethodPost, ids.Fill("/v2/webhooks"), body, w, reqOpts); err != nil {
		return nil, err
	}
	return w, nil
}

// List lists the account's webhooks: GET /v2/webhooks. Inferred: the vendor
// does not document this operation; outside integrations call it and get a
// bare array. The paged envelope is
// accepted too, and then every page is read.
//
// EdApp API: GET /v2/webhooks
func (s *WebhooksService) List(ctx context.Context, reqOpts ...RequestOption) ([]Webhook, error) {
	return listAll[Webhook](ctx, s.client, ids.Fill("/v2/webhooks"), reqOpts)
}

// Delete removes a webhook: DELETE /v2/webhooks/{webhookId}. Inferred: the
// vendor does not document this operation; outside integrations call it. An answer of {"success": false} is an error
// matching [ErrUnsuccessful].
//
// EdApp API: DELETE /v2/webhooks/{webhookId}
func (s *WebhooksService) Delete(ctx context.Context, webhookID string, reqOpts ...RequestOption) error {
	if err := ids.Require("webhookID", webhookID); err != nil {
		return err
	}
	return s.client.checked(ctx, http.MethodDelete, ids.Fill("/v2/webhooks/{webhookId}", webhookID), nil, reqOpts)
}
