package safetyculture

import (
	"context"
	"errors"
	"github.com/edapp-go/edapp/internal/lenient"
	"net/http"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/core"
	"github.com/edapp-go/edapp/internal/ids"
)

// WebhooksService holds the webhook registrations of the organisation
// (the token's owner must be an Administrator) and their signature secret.
type WebhooksService service

// Webhook is a registration: SafetyCulture POSTs the events named in
// TriggerEvents to URL.
type Webhook struct {
	ID             string          `json:"webhook_id"` // also read as "id"
	URL            string          `json:"url"`
	TriggerEvents  []string        `json:"trigger_events"`
	OrganisationID string          `json:"organisation_id"`
	Extra          edapp.RawFields `json:"-"`
}

func init() {
	lenient.Alias[Webhook](
		lenient.Spelling{Name: "id", Field: "ID"},
		lenient.Spelling{Name: "triggerEvents", Field: "TriggerEvents"},
	)
}

// WebhookCreateParams is the body of Create.
type WebhookCreateParams struct {
	URL           string   `json:"url"`
	TriggerEvents []string `json:"trigger_events"` // TRIGGER_EVENT_TRAINING_COURSE_COMPLETED, ...
}

// WebhookUpdateParams is the body of Update: the webhook's new URL and
// events.
type WebhookUpdateParams struct {
	URL           string   `json:"url"`
	TriggerEvents []string `json:"trigger_events"` // TRIGGER_EVENT_TRAINING_COURSE_COMPLETED, ...
}

// List returns the organisation's webhooks.
//
// SafetyCulture API: GET /webhooks/v1/webhooks
func (s *WebhooksService) List(ctx context.Context, reqOpts ...edapp.RequestOption) ([]Webhook, error) {
	out := listOf[Webhook]{key: "webhooks"}
	err := s.client.get(ctx, ids.Fill(routeWebhooks), nil, &out, reqOpts)
	return out.items, err
}

// Get returns one webhook.
//
// SafetyCulture API: GET /webhooks/v1/webhooks/{webhookId}
func (s *WebhooksService) Get(ctx context.Context, webhookID string, reqOpts ...edapp.RequestOption) (*Webhook, error) {
	return getOne[Webhook](ctx, s.client, routeWebhook, "webhookID", webhookID, "webhook", reqOpts)
}

// Create registers a webhook. A POST is sent once: it is retried only
// when nothing reached the service.
//
// SafetyCulture API: POST /webhooks/v1/webhooks
func (s *WebhooksService) Create(ctx context.Context, params WebhookCreateParams, reqOpts ...edapp.RequestOption) (*Webhook, error) {
	return s.write(ctx, http.MethodPost, ids.Fill(routeWebhooks), params, reqOpts)
}

// Update changes a webhook's URL and events.
//
// SafetyCulture API: PUT /webhooks/v1/webhooks/{webhookId}
func (s *WebhooksService) Update(ctx context.Context, webhookID string, params WebhookUpdateParams, reqOpts ...edapp.RequestOption) (*Webhook, error) {
	if err := ids.Require("webhookID", webhookID); err != nil {
		return nil, err
	}
	return s.write(ctx, http.MethodPut, ids.Fill(routeWebhook, webhookID), params, reqOpts)
}

func (s *WebhooksService) write(ctx context.Context, method string, p ids.Path, params any, reqOpts []edapp.RequestOption) (*Webhook, error) {
	out := oneOf[Webhook]{key: "webhook"}
	_, err := s.client.send(ctx, core.Operation{Method: method, Route: p.Route, Path: p.Path, Body: params}, &out, false, reqOpts)
	if err != nil {
		return nil, err
	}
	return &out.v, nil
}

// Delete removes a webhook.
//
// SafetyCulture API: DELETE /webhooks/v1/webhooks/{webhookId}
func (s *WebhooksService) Delete(ctx context.Context, webhookID string, reqOpts ...edapp.RequestOption) error {
	if err := ids.Require("webhookID", webhookID); err != nil {
		return err
	}
	p := ids.Fill(routeWebhook, webhookID)
	_, err := s.client.send(ctx, core.Operation{Method: http.MethodDelete, Route: p.Route, Path: p.Path}, nil, false, reqOpts)
	return err
}

// Secret returns the signature secret SafetyCulture signs every delivery
// with (read from "token", or "secret"), as an edapp.Secret: it prints as
// [REDACTED] everywhere, and its Value is what VerifySignature and
// NewWebhookHandler take.
//
// SafetyCulture API: GET /webhooks/v1/token
func (s *WebhooksService) Secret(ctx context.Context, reqOpts ...edapp.RequestOption) (edapp.Secret, error) {
	var out struct {
		Token  string `json:"token"`
		Secret string `json:"secret"`
	}
	if err := s.client.get(ctx, ids.Fill(routeWebhookToken), nil, &out, reqOpts); err != nil {
		var de *edapp.DecodeError
		if errors.As(err, &de) {
			de.Body = "" // an answer that did not decode may still hold the secret
		}
		return edapp.Secret{}, err
	}
	if out.Token == "" {
		out.Token = out.Secret
	}
	return edapp.NewSecret(out.Token), nil
}
