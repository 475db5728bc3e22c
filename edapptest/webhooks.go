package edapptest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/fakeserver"
)

type eventField struct{ name, typ string }

// eventFields lists each event's payload fields, in the documented order
// and case, with their messageFormat types.
var eventFields = func() map[edapp.EventName][]eventField {
	s := func(names ...string) []eventField {
		out := make([]eventField, 0, len(names))
		for _, n := range names {
			typ := "string"
			switch n {
			case "timestamp", "dueDate":
				typ = "datetime"
			case "score":
				typ = "number"
			}
			out = append(out, eventField{n, typ})
		}
		return out
	}
	rapid := s("eventName", "userId", "userExternalId", "username", "email", "quizId", "quizTitle", "quizSession", "quizLink", "timestamp")
	return map[edapp.EventName][]eventField{
		edapp.EventCourseCompleted:                             s("eventName", "userId", "userName", "email", "firstname", "lastname", "courseId", "courseTitle", "timestamp"),
		edapp.EventLessonCompleted:                             s("eventName", "userId", "userName", "email", "firstname", "lastname", "courseId", "courseTitle", "lessonId", "lessonTitle", "timestamp", "score"),
		edapp.EventLessonPublished:                             s("eventName", "userId", "userName", "email", "courseId", "courseTitle", "lessonId", "lessonTitle", "timestamp"),
		edapp.EventLessonUnpublished:                           s("eventName", "userId", "userName", "email", "courseId", "courseTitle", "lessonId", "lessonTitle", "timestamp"),
		edapp.EventCoursePublished:                             s("eventName", "userId", "userName", "email", "courseId", "courseTitle", "timestamp"),
		edapp.EventCourseUnPublished:                           s("eventName", "userId", "userName", "email", "courseId", "courseTitle", "timestamp"),
		edapp.EventRapidRefreshSessionStartedNotification:      rapid,
		edapp.EventRapidRefreshRetrySessionStartedNotification: rapid,
		edapp.EventRapidRefreshSessionReminderNotification:     rapid,
		edapp.EventCourseReminderWebHook:                       s("eventName", "userId", "userExternalId", "username", "email", "courseId", "courseTitle", "courseLink", "dueDate", "timestamp"),
	}
}()

// orderedJSON is a JSON object that keeps its field order.
type orderedJSON struct {
	keys []string
	vals map[string]any
}

func (o orderedJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// payload builds an event body: the documented fields in order, from vals
// (missing strings are "", a missing number is 0, a missing datetime is
// null), then the extra fields in name order.
func payload(event edapp.EventName, vals, extra map[string]any) []byte {
	o := orderedJSON{vals: map[string]any{}}
	known := map[string]bool{}
	for _, f := range eventFields[event] {
		known[f.name] = true
		v, ok := vals[f.name]
		if !ok {
			v = zeroOf(f.typ)
		}
		o.add(f.name, v)
	}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if !known[k] {
			o.add(k, extra[k])
		}
	}
	b, err := json.Marshal(o)
	if err != nil {
		// Only a value of an unencodable type can get here; keep the
		// delivery and say what went wrong.
		b, _ = json.Marshal(map[string]string{"eventName": string(event), "error": err.Error()})
	}
	return b
}

func (o *orderedJSON) add(k string, v any) {
	if t, isTime := v.(time.Time); isTime {
		v = wt(t)
	}
	o.keys = append(o.keys, k)
	o.vals[k] = v
}

// zeroOf is the value of a missing field of a messageFormat type.
func zeroOf(typ string) any {
	switch typ {
	case "number":
		return 0
	case "datetime":
		return nil
	}
	return ""
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
	name  edapp.EventName
	vals  map[string]any // values of the documented fields; others are ignored
	extra map[string]any // undocumented fields, sent as given
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
	out := make([]Delivery, 0, len(s.deliveries))
	for _, d := range s.deliveries {
		d.Header = d.Header.Clone()
		d.Body = bytes.Clone(d.Body)
		out = append(out, d)
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
			if w.eventName != e.name {
				continue
			}
			if body == nil {
				body = payload(e.name, vals, e.extra)
			}
			h := http.Header{}
			for k, v := range w.headers {
				h.Set(k, v)
			}
			h.Set("Content-Type", "application/json")
			h.Set("User-Agent", "edapptest")
			out = append(out, Delivery{WebhookID: w.ID, EventName: e.name, URL: w.url, Header: h, Body: body})
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

func toWireWebhook(w *webhook) wireWebhook {
	mf := orderedJSON{vals: map[string]any{}}
	for _, f := range eventFields[w.eventName] {
		mf.keys = append(mf.keys, f.name)
		mf.vals[f.name] = f.typ
	}
	return wireWebhook{ID: w.ID, EventName: w.eventName, WebHookURL: w.url, Headers: maps.Clone(w.headers), MessageFormat: mf}
}

func addWebhook(st *store, event edapp.EventName, rawURL string, headers map[string]string) (*webhook, error) {
	if event == "" {
		return nil, invalid("eventName is required")
	}
	if _, ok := eventFields[event]; !ok {
		return nil, invalid("unknown eventName %q (want one of %v)", event, edapp.EventNames())
	}
	if rawURL == "" {
		return nil, invalid("webHookUrl is required")
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, invalid("webHookUrl %q must be an absolute http or https URL", rawURL)
	}
	for k, v := range headers {
		if !validHeaderName(k) || strings.ContainsAny(v, "\r\n\x00") {
			return nil, invalid("invalid header %q", k)
		}
	}
	w := &webhook{ID: st.newID("whk"), eventName: event, url: rawURL}
	if len(headers) > 0 {
		w.headers = maps.Clone(headers)
	}
	st.webhooks.Add(w.ID, w)
	return w, nil
}

func validHeaderName(k string) bool {
	return k != "" && !strings.ContainsFunc(k, func(r rune) bool { return r > 126 || r <= 32 || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) })
}

// v2CreateWebhook takes {"eventName", "webHookUrl", "headers"?}.
var v2CreateWebhook = withBody(func(c *exchange, in struct {
	EventName  edapp.EventName
	WebHookURL string
	Headers    map[string]string
}) (any, error) {
	w, err := addWebhook(c.st, in.EventName, strings.TrimSpace(in.WebHookURL), in.Headers)
	if err != nil {
		return nil, err
	}
	return toWireWebhook(w), nil
})

// v2ListWebhooks answers a bare array. The vendor does not document it.
func v2ListWebhooks(c *exchange) {
	c.json(http.StatusOK, fakeserver.Map(c.st.webhooks.All(), toWireWebhook))
}

// v2DeleteWebhook removes a webhook. The vendor does not document it.
func v2DeleteWebhook(c *exchange) {
	if w := param(c, "id", &c.st.webhooks, "webhook"); w != nil {
		c.st.webhooks.Remove(w.ID)
		c.json(http.StatusOK, successBody{Success: true})
	}
}
