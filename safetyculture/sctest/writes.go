package sctest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

// Assignment is one assignee of a course: Type is ASSIGNMENT_TYPE_USER,
// ASSIGNMENT_TYPE_GROUP or ASSIGNMENT_TYPE_SITE.
type Assignment struct {
	Type, ID string
}

// Assignments returns a course's assignees, sorted by type and id.
func (s *Server) Assignments(courseID string) []Assignment {
	out := view(s, func(st *store) []Assignment { return slices.Collect(maps.Keys(st.assignments[courseID])) })
	slices.SortFunc(out, func(a, b Assignment) int { return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.ID, b.ID)) })
	return out
}

// AddAssignment assigns a course to a user, group or site, as the
// course's assignments write does.
func (s Seeding) AddAssignment(courseID string, a Assignment) error {
	return s.write(func(st *store, _ time.Time) error {
		if st.courses.Get(courseID) == nil || !st.assigneeExists(a.Type, a.ID) {
			return fmt.Errorf("%w: course %q or assignee %s %q", ErrNotFound, courseID, a.Type, a.ID)
		}
		st.assign(courseID, []wireAssignment{{a.ID, a.Type, true}}, nil)
		return nil
	})
}

type wireAssignment struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	IsAssigned bool   `json:"isAssigned"`
}

// putAssignments answers PUT /training/courses/v1/{courseId}/assignments:
// it assigns or unassigns users, groups and sites, after the clearAll
// flags, and counts what changed of each kind.
func putAssignments(c *call) (any, error) {
	var body struct {
		Assignments                                  []wireAssignment
		ClearAllUsers, ClearAllGroups, ClearAllSites bool
	}
	if _, err := find(c, c.st.courses.Get, "courseId", "course"); err != nil {
		return nil, err
	} else if err := c.decode(&body); err != nil {
		return nil, err
	}
	for _, a := range body.Assignments {
		if !c.st.assigneeExists(a.Type, a.ID) {
			return nil, badRequest("unknown assignee %s %s", a.Type, a.ID)
		}
	}
	counts := c.st.assign(c.PathValue("courseId"), body.Assignments, map[string]bool{"ASSIGNMENT_TYPE_USER": body.ClearAllUsers,
		"ASSIGNMENT_TYPE_GROUP": body.ClearAllGroups, "ASSIGNMENT_TYPE_SITE": body.ClearAllSites})
	return map[string]int{"usersUpdated": counts["ASSIGNMENT_TYPE_USER"],
		"groupsUpdated": counts["ASSIGNMENT_TYPE_GROUP"], "sitesUpdated": counts["ASSIGNMENT_TYPE_SITE"]}, nil
}

func (st *store) assigneeExists(kind, id string) bool {
	switch kind {
	case "ASSIGNMENT_TYPE_USER":
		return st.users.Get(id) != nil
	case "ASSIGNMENT_TYPE_GROUP":
		return st.groups.Get(id) != nil
	case "ASSIGNMENT_TYPE_SITE":
		return st.sites.Get(id) != nil
	}
	return false
}

// assign clears the kinds clear names, then applies in; it counts the
// changes by kind.
func (st *store) assign(courseID string, in []wireAssignment, clear map[string]bool) map[string]int {
	set := st.assignments[courseID]
	if set == nil {
		set = map[Assignment]bool{}
		st.assignments[courseID] = set
	}
	counts := map[string]int{}
	for a := range set {
		if clear[a.Type] {
			delete(set, a)
			counts[a.Type]++
		}
	}
	for _, in := range in {
		a := Assignment{Type: in.Type, ID: in.ID}
		if set[a] != in.IsAssigned {
			counts[a.Type]++
		}
		if in.IsAssigned {
			set[a] = true
		} else {
			delete(set, a)
		}
	}
	return counts
}

// resetProgress answers POST /training/courseprogress/v1/reset. The body
// is the fake's guess, {"courseId": "...", "userIds": ["..."]}: it
// forgets those users' progress in that course and its lessons.
func resetProgress(c *call) (any, error) {
	var body struct {
		CourseID string   `json:"courseId"`
		UserIDs  []string `json:"userIds"`
	}
	if err := c.decode(&body); err != nil {
		return nil, err
	}
	co := c.st.courses.Get(body.CourseID)
	if co == nil {
		return nil, notFound("course", body.CourseID)
	}
	for _, uid := range body.UserIDs {
		c.st.resetProgress(uid, co)
	}
	return struct{}{}, nil
}

// The webhook shapes are the fake's reading of the service's reference:
// a webhook is {webhook_id, url, trigger_events}; the list answers
// {"webhooks": [...]}; the token reads {"token": "..."}.
type webhook = wireWebhook

// AddWebhook registers a webhook, as POST /webhooks/v1/webhooks does.
func (s Seeding) AddWebhook(rawURL string, events ...string) (string, error) {
	h, err := update(s.server, func(st *store, _ time.Time) (*webhook, error) {
		return st.addWebhook(&webhook{URL: rawURL, TriggerEvents: events})
	})
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return h.WebhookID, nil
}

func (st *store) addWebhook(h *webhook) (*webhook, error) {
	if err := checkWebhook(h); err != nil {
		return nil, err
	}
	h.WebhookID = st.uuid("webhook")
	st.webhooks.Add(h.WebhookID, h)
	return h, nil
}

func checkWebhook(h *webhook) error {
	if u, err := url.Parse(h.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return badRequest("url must be an absolute http or https URL")
	} else if len(h.TriggerEvents) == 0 {
		return badRequest("trigger_events must name at least one event")
	}
	return nil
}

func listWebhooks(c *call) (any, error) {
	return map[string]any{"webhooks": each(c.st.webhooks.All(), func(h *webhook) webhook { return *h })}, nil
}

func createWebhook(c *call) (any, error) {
	var body webhook
	if err := c.decode(&body); err != nil {
		return nil, err
	}
	return c.st.addWebhook(&body)
}

func getWebhook(c *call) (any, error) { return find(c, c.st.webhooks.Get, "webhookId", "webhook") }

func updateWebhook(c *call) (any, error) {
	var body webhook
	h, err := find(c, c.st.webhooks.Get, "webhookId", "webhook")
	if err == nil {
		err = c.decode(&body)
	}
	if err == nil {
		err = checkWebhook(&body)
	}
	if err != nil {
		return nil, err
	}
	h.URL, h.TriggerEvents = body.URL, body.TriggerEvents
	return h, nil
}

func deleteWebhook(c *call) (any, error) {
	h, err := find(c, c.st.webhooks.Get, "webhookId", "webhook")
	if err != nil {
		return nil, err
	}
	c.st.webhooks.Remove(h.WebhookID)
	return struct{}{}, nil
}

// webhookToken answers GET /webhooks/v1/token with the signing secret,
// and POST with a new one.
func webhookToken(c *call) (any, error) {
	if c.Method == http.MethodPost {
		c.st.secret = fakeserver.RandomHex(32)
	}
	return map[string]string{"token": c.st.secret}, nil
}

// outgoing is one delivery to make, worked out under the lock and sent
// after it is released.
type outgoing struct {
	url, event, secret string
	env                wireEnvelope
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
// lesson of it when l is not nil, for each webhook registered for it.
func (st *store) trainingEvent(event string, u *user, c *course, l *lesson, at time.Time) []outgoing {
	var env wireEnvelope
	env.Version = "3.0.0"
	env.Event.DateTriggered = at.UTC().Format(time.RFC3339)
	env.Event.EventTypes = []string{event}
	env.Event.TriggeredBy = map[string]string{"user": u.id, "organization": st.orgID}
	env.Resource = map[string]string{"id": c.ID, "type": "TRAINING_COURSE"}
	env.Data.Details = map[string]string{"course_id": c.ID, "course_external_id": c.ExternalID, "course_title": c.Title,
		"user_id": u.id, "user_email": u.email, "user_external_id": u.externalID, "completed_at": wt(at)}
	if l != nil {
		env.Resource = map[string]string{"id": l.ID, "type": "TRAINING_LESSON"}
		env.Data.Details["lesson_id"], env.Data.Details["lesson_title"] = l.ID, l.Title
	}
	var out []outgoing
	for _, h := range st.webhooks.All() {
		if slices.Contains(h.TriggerEvents, event) {
			env.WebhookID = h.WebhookID
			out = append(out, outgoing{url: h.URL, event: event, secret: st.secret, env: env})
		}
	}
	return out
}

// deliver sends each event, one at a time, each bounded by 5 seconds.
func (s *Server) deliver(events []outgoing) {
	for _, ev := range events {
		d := send(ev)
		s.statsMu.Lock()
		s.deliveries = append(s.deliveries, d)
		s.statsMu.Unlock()
	}
}

func send(ev outgoing) Delivery {
	d := Delivery{WebhookID: ev.env.WebhookID, URL: ev.url, Event: ev.event}
	d.Body, _ = json.Marshal(ev.env)
	mac := hmac.New(sha256.New, []byte(ev.secret))
	mac.Write(d.Body)
	d.Signature = hex.EncodeToString(mac.Sum(nil))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ev.url, bytes.NewReader(d.Body))
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

// Deliveries returns the webhook deliveries made so far, oldest first.
func (s *Server) Deliveries() []Delivery {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	return slices.Clone(s.deliveries)
}
