package sctest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

// The webhook management shapes are the fake's reading of the service's
// reference: a webhook is {webhook_id, url, trigger_events}; the list
// answers {"webhooks": [...]}; the token reads {"token": "..."}.

type webhook struct {
	id, url string
	events  []string
}

type wireWebhook struct {
	WebhookID     string   `json:"webhook_id"`
	URL           string   `json:"url"`
	TriggerEvents []string `json:"trigger_events"`
}

// wireWebhookBody is the body of a create or an update; triggerEvents is
// read too, as the spelling of a body is not published.
type wireWebhookBody struct {
	URL             string   `json:"url"`
	TriggerEvents   []string `json:"trigger_events"`
	TriggerEventsCC []string `json:"triggerEvents,omitempty"`
}

// events are the body's trigger events, in either spelling.
func (b wireWebhookBody) events() []string {
	if len(b.TriggerEvents) > 0 {
		return b.TriggerEvents
	}
	return b.TriggerEventsCC
}

func (h *webhook) wire() wireWebhook {
	return wireWebhook{WebhookID: h.id, URL: h.url, TriggerEvents: slices.Clone(h.events)}
}

func (b wireWebhookBody) check() string {
	u, err := url.Parse(b.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "url must be an absolute http or https URL"
	}
	if len(b.events()) == 0 {
		return "trigger_events must name at least one event"
	}
	return ""
}

// AddWebhook registers a webhook, as POST /webhooks/v1/webhooks does.
func (s Seeding) AddWebhook(rawURL string, events ...string) (string, error) {
	body := wireWebhookBody{URL: rawURL, TriggerEvents: events}
	if msg := body.check(); msg != "" {
		return "", fmt.Errorf("%w: %s", ErrInvalid, msg)
	}
	var id string
	err := s.write(func(st *store, _ time.Time) error {
		id = uuidOf(st.hexID("webhook", 32))
		st.webhooks.Add(id, &webhook{id: id, url: body.URL, events: body.TriggerEvents})
		return nil
	})
	return id, err
}

func (s api) listWebhooks(w http.ResponseWriter, _ *http.Request) {
	var out []wireWebhook
	s.read(func(st *store, _ time.Time) { out = each(&st.webhooks, (*webhook).wire) })
	writeJSON(w, http.StatusOK, map[string]any{"webhooks": out})
}

func (s api) createWebhook(w http.ResponseWriter, r *http.Request) {
	var body wireWebhookBody
	if !readJSON(w, r, &body) {
		return
	}
	if msg := body.check(); msg != "" {
		writeError(w, http.StatusBadRequest, codeInvalidArgument, msg)
		return
	}
	id, _ := s.AddWebhook(body.URL, body.events()...)
	writeJSON(w, http.StatusOK, wireWebhook{WebhookID: id, URL: body.URL, TriggerEvents: body.events()})
}

func (s api) getWebhook(w http.ResponseWriter, r *http.Request) {
	getOne(s.server, w, r, "webhookId", "webhook", func(st *store, id string) (wireWebhook, bool) {
		h := st.webhooks.Get(id)
		if h == nil {
			return wireWebhook{}, false
		}
		return h.wire(), true
	})
}

func (s api) updateWebhook(w http.ResponseWriter, r *http.Request) {
	var body wireWebhookBody
	if !readJSON(w, r, &body) {
		return
	}
	if msg := body.check(); msg != "" {
		writeError(w, http.StatusBadRequest, codeInvalidArgument, msg)
		return
	}
	id := r.PathValue("webhookId")
	var out *wireWebhook
	_ = s.write(func(st *store, _ time.Time) error {
		if h := st.webhooks.Get(id); h != nil {
			h.url, h.events = body.URL, body.events()
			wh := h.wire()
			out = &wh
		}
		return nil
	})
	if out == nil {
		notFound(w, "webhook", id)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s api) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("webhookId")
	found := false
	_ = s.write(func(st *store, _ time.Time) error {
		if found = st.webhooks.Get(id) != nil; found {
			st.webhooks.Remove(id)
		}
		return nil
	})
	if !found {
		notFound(w, "webhook", id)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{})
}

func (s api) getWebhookToken(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"token": s.WebhookSecret()})
}

// regenerateWebhookToken answers POST /webhooks/v1/token: a new secret.
func (s api) regenerateWebhookToken(w http.ResponseWriter, _ *http.Request) {
	var secret string
	_ = s.write(func(st *store, _ time.Time) error {
		st.secret = fakeserver.RandomHex(32)
		secret = st.secret
		return nil
	})
	writeJSON(w, http.StatusOK, map[string]string{"token": secret})
}

// outgoing is one delivery to make, worked out under the lock and sent
// after it is released.
type outgoing struct {
	url, event string
	env        wireEnvelope
	secret     string
}

// wireEnvelope is SafetyCulture's webhook payload; the data's details of
// a training event are the fake's guess.
type wireEnvelope struct {
	WebhookID string `json:"webhook_id"`
	Version   string `json:"version"`
	Event     struct {
		DateTriggered string            `json:"date_triggered"`
		EventTypes    []string          `json:"event_types"`
		TriggeredBy   map[string]string `json:"triggered_by"`
	} `json:"event"`
	Resource map[string]string `json:"resource"`
	Data     struct {
		Details map[string]string `json:"details"`
	} `json:"data"`
}

// Delivery is a webhook delivery the fake made and how it ended.
type Delivery struct {
	WebhookID, URL, Event string
	Body                  []byte // the raw body, as signed
	Signature             string // x-safetyculture-signature
	Status                int    // 0 when the request failed
	Err                   string
}

// trainingEvent builds a training event about a user's course, or a
// lesson of it when l is not nil.
func (st *store) trainingEvent(event string, u *user, c *course, l *lesson, at time.Time) outgoing {
	var env wireEnvelope
	env.Version = "3.0.0"
	env.Event.DateTriggered = at.UTC().Format(time.RFC3339)
	env.Event.EventTypes = []string{event}
	env.Event.TriggeredBy = map[string]string{"user": u.id, "organization": st.orgID}
	env.Resource = map[string]string{"id": c.id, "type": "TRAINING_COURSE"}
	env.Data.Details = map[string]string{"course_id": c.id, "course_external_id": c.externalID, "course_title": c.title,
		"user_id": u.id, "user_email": u.email, "user_external_id": u.externalID, "completed_at": wt(at)}
	if l != nil {
		env.Resource = map[string]string{"id": l.id, "type": "TRAINING_LESSON"}
		env.Data.Details["lesson_id"], env.Data.Details["lesson_title"] = l.id, l.title
	}
	return outgoing{event: event, env: env, secret: st.secret}
}

// deliver sends each event to every webhook registered for it, one at a
// time, each bounded by 5 seconds.
func (s *Server) deliver(events []outgoing) {
	var targets []outgoing
	s.read(func(st *store, _ time.Time) {
		for _, ev := range events {
			for _, h := range st.webhooks.All() {
				if slices.Contains(h.events, ev.event) {
					t := ev
					t.env.WebhookID, t.url = h.id, h.url
					targets = append(targets, t)
				}
			}
		}
	})
	for _, t := range targets {
		s.deliveries.add(send(t))
	}
}

func send(t outgoing) Delivery {
	d := Delivery{WebhookID: t.env.WebhookID, URL: t.url, Event: t.event}
	body, err := json.Marshal(t.env)
	if err != nil {
		d.Err = err.Error()
		return d
	}
	mac := hmac.New(sha256.New, []byte(t.secret))
	mac.Write(body)
	d.Body, d.Signature = body, hex.EncodeToString(mac.Sum(nil))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		d.Err = err.Error()
		return d
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-safetyculture-signature", d.Signature)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		d.Err = err.Error()
		return d
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	d.Status = resp.StatusCode
	return d
}

type deliveryLog struct {
	mu  sync.Mutex
	all []Delivery
}

func (l *deliveryLog) add(d Delivery) {
	l.mu.Lock()
	l.all = append(l.all, d)
	l.mu.Unlock()
}

// Deliveries returns the webhook deliveries made so far, oldest first.
func (s *Server) Deliveries() []Delivery {
	s.deliveries.mu.Lock()
	defer s.deliveries.mu.Unlock()
	return slices.Clone(s.deliveries.all)
}
