package edapptest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
)

// eventPayload is an event's body: vals, the event's fields (a missing
// one is its zero), decoded into the SDK's struct for the event and
// encoded again, so that a payload has the fields of the SDK's event
// types, in their order.
func eventPayload(name edapp.EventName, vals map[string]any) []byte {
	b, err := json.Marshal(vals)
	var ev edapp.Event
	if err == nil {
		ev, err = edapp.ParseEvent(b)
	}
	if err == nil {
		b, err = json.Marshal(ev)
	}
	if err != nil {
		// Only a value of the wrong type can get here; keep the delivery
		// and say what went wrong.
		b, _ = json.Marshal(map[string]string{"eventName": string(name), "error": err.Error()})
	}
	return b
}

// messageFormat lists an event's fields with their types, in the order
// of the SDK's struct for the event.
func messageFormat(name edapp.EventName) json.RawMessage {
	ev, _ := edapp.ParseEvent([]byte(`{"eventName":` + strconv.Quote(string(name)) + `}`))
	b := []byte(`{"eventName":"string"`)
	t := reflect.TypeOf(ev).Elem()
	for i := range t.NumField() {
		typ := map[reflect.Type]string{reflect.TypeFor[edapp.Time](): "datetime", reflect.TypeFor[float64](): "number"}[t.Field(i).Type]
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		b = fmt.Appendf(b, ",%q:%q", tag, cmp.Or(typ, "string"))
	}
	return append(b, '}')
}

// userFields are the user fields of an event, in every spelling the
// events use. payload picks the ones the event has.
func userFields(u *user) map[string]any {
	if u == nil {
		return map[string]any{}
	}
	return map[string]any{
		"userId": u.ID, "userName": u.Name, "username": u.Name, "email": u.Email,
		"firstname": u.FirstName, "lastname": u.LastName, "userExternalId": u.ExternalID,
	}
}

// outEvent is an event waiting for delivery.
type outEvent struct {
	name edapp.EventName
	vals map[string]any // values of the event's fields; others are ignored
}

// Delivery is one webhook delivery the fake made.
type Delivery struct {
	// ID names the delivery for Redeliver: "dlv_1", "dlv_2"...
	ID string
	// RedeliveryOf is the ID of the first delivery when this one sends
	// the same event again (WithRedeliveries, Redeliver); "" otherwise.
	RedeliveryOf string
	WebhookID    string
	EventName    edapp.EventName
	URL          string
	// Header holds the headers sent: Content-Type, User-Agent and the
	// headers given when the webhook was created.
	Header http.Header
	Body   []byte // the JSON payload
	// StatusCode is the receiver's answer, 0 when the request failed.
	StatusCode int
	// Err is the transport error, nil when the receiver answered.
	Err  error
	Time time.Time // server clock
}

// OK reports whether the receiver answered with a 2xx status.
func (d Delivery) OK() bool { return d.Err == nil && d.StatusCode >= 200 && d.StatusCode < 300 }

// Deliveries returns a copy of every webhook delivery made so far, oldest
// first.
func (s *Server) Deliveries() []Delivery {
	s.meta.Lock()
	defer s.meta.Unlock()
	out := slices.Clone(s.deliveries)
	for i, d := range out {
		out[i].Header, out[i].Body = d.Header.Clone(), bytes.Clone(d.Body)
	}
	return out
}

func (s *Server) plan(now time.Time, events []outEvent) []Delivery {
	var out []Delivery
	for _, e := range events {
		vals := map[string]any{"eventName": e.name, "timestamp": now}
		maps.Copy(vals, e.vals)
		var body []byte
		for _, w := range s.st.webhooks.All() {
			if w.EventName != e.name {
				continue
			}
			if body == nil {
				body = eventPayload(e.name, vals)
			}
			h := http.Header{}
			for k, v := range w.Headers {
				h.Set(k, v)
			}
			h.Set("Content-Type", "application/json")
			h.Set("User-Agent", "edapptest")
			out = append(out, Delivery{WebhookID: w.ID, EventName: e.name, URL: w.WebHookURL, Header: h, Body: body})
		}
	}
	return out
}

// deliver posts each payload in turn, and again as many times as
// WithRedeliveries asks. It must run without s.mu: a receiver may call
// back into the fake.
func (s *Server) deliver(ds []Delivery) {
	for _, d := range ds {
		first := s.send(d, "")
		for range s.cfg.redeliveries {
			s.send(d, first.ID)
		}
	}
}

func (s *Server) send(d Delivery, redeliveryOf string) Delivery {
	d.RedeliveryOf, d.Time = redeliveryOf, s.Now()
	d.StatusCode, d.Err = s.post(d)
	s.meta.Lock()
	s.deliverySeq++
	d.ID = "dlv_" + strconv.Itoa(s.deliverySeq)
	s.deliveries = append(s.deliveries, d)
	s.meta.Unlock()
	s.core.Log.Info("edapptest webhook delivery", "id", d.ID, "event", d.EventName, "url", d.URL,
		"status", d.StatusCode, "error", d.Err)
	return d
}

// Redeliver sends the delivery with this ID again, with the same body and
// headers to the same URL (even when the webhook is gone), as a service that
// delivers at least once may.
func (s *Server) Redeliver(id string) (Delivery, error) {
	s.meta.Lock()
	i := slices.IndexFunc(s.deliveries, func(d Delivery) bool { return d.ID == id })
	var d Delivery
	if i >= 0 {
		d = s.deliveries[i]
	}
	s.meta.Unlock()
	if i < 0 {
		return Delivery{}, notFound("delivery %q not found", id)
	}
	out := s.send(d, cmp.Or(d.RedeliveryOf, d.ID))
	out.Header, out.Body = out.Header.Clone(), bytes.Clone(out.Body)
	return out, nil
}

func (s *Server) post(d Delivery) (int, error) {
	req, err := http.NewRequest(http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return 0, err
	}
	req.Header = d.Header.Clone()
	resp, err := s.httpClient.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// emit plans under the lock, then delivers without it.
func (s *Server) emit(fn func(st *store, now time.Time) ([]outEvent, error)) error {
	ps, err := func() ([]Delivery, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.st.version++
		now := s.Now()
		events, err := fn(s.st, now)
		return s.plan(now, events), err
	}()
	s.deliver(ps)
	return err
}

func addWebhook(st *store, event edapp.EventName, rawURL string, headers map[string]string) (*wireWebhook, error) {
	if event == "" {
		return nil, invalid("eventName is required")
	}
	if !slices.Contains(edapp.EventNames(), event) {
		return nil, invalid("unknown eventName %q (want one of %v)", event, edapp.EventNames())
	}
	if rawURL == "" {
		return nil, invalid("webHookUrl is required")
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, invalid("webHookUrl %q must be an absolute http or https URL", rawURL)
	}
	w := &wireWebhook{ID: st.newID("whk"), EventName: event, WebHookURL: rawURL, MessageFormat: messageFormat(event)}
	if len(headers) > 0 {
		w.Headers = maps.Clone(headers)
	}
	st.webhooks.Add(w.ID, w)
	return w, nil
}

var v2CreateWebhook = withBody(func(c *exchange, in struct {
	EventName  edapp.EventName
	WebHookURL string
	Headers    map[string]string
}) (any, error) {
	return addWebhook(c.st, in.EventName, strings.TrimSpace(in.WebHookURL), in.Headers)
})

// v2ListWebhooks answers a bare array. The vendor does not document it.
func v2ListWebhooks(c *exchange) {
	c.json(http.StatusOK, c.st.webhooks.All())
}

// v2DeleteWebhook removes a webhook. The vendor does not document it.
func v2DeleteWebhook(c *exchange) {
	if w := param(c, "id", &c.st.webhooks, "webhook"); w != nil {
		c.st.webhooks.Remove(w.ID)
		c.json(http.StatusOK, successBody{Success: true})
	}
}
