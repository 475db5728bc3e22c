package sctest

import (
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
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
		st.assign(courseID, []wireAssignment{{a, true}}, nil)
		return nil
	})
}

// wireAssignment is only decoded, by JSON's case-insensitive names.
type wireAssignment struct {
	Assignment
	IsAssigned bool
}

// putAssignments applies the clearAll flags, then assigns and unassigns,
// and counts what changed of each kind.
func putAssignments(c *call) any {
	var body struct {
		Assignments                                  []wireAssignment
		ClearAllUsers, ClearAllGroups, ClearAllSites bool
	}
	co := find(c, c.st.courses.Get, c.PathValue("courseId"), "course")
	_ = json.Unmarshal(c.body, &body)
	if c.err != nil {
		return nil
	}
	counts := c.st.assign(co.ID, body.Assignments, map[string]bool{"ASSIGNMENT_TYPE_USER": body.ClearAllUsers,
		"ASSIGNMENT_TYPE_GROUP": body.ClearAllGroups, "ASSIGNMENT_TYPE_SITE": body.ClearAllSites})
	return map[string]int{"usersUpdated": counts["ASSIGNMENT_TYPE_USER"],
		"groupsUpdated": counts["ASSIGNMENT_TYPE_GROUP"], "sitesUpdated": counts["ASSIGNMENT_TYPE_SITE"]}
}

func (st *store) assigneeExists(kind, id string) bool {
	return map[string]bool{"ASSIGNMENT_TYPE_USER": st.users.Get(id) != nil,
		"ASSIGNMENT_TYPE_GROUP": st.groups.Get(id) != nil, "ASSIGNMENT_TYPE_SITE": st.sites.Get(id) != nil}[kind]
}

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
		a := in.Assignment
		counts[a.Type] += fakeserver.Btoi(set[a] != in.IsAssigned)
		delete(set, a)
		if in.IsAssigned {
			set[a] = true
		}
	}
	return counts
}

func resetProgress(c *call) any {
	var body struct {
		CourseID string   `json:"courseId"`
		UserIDs  []string `json:"userIds"`
	}
	_ = json.Unmarshal(c.body, &body)
	co := find(c, c.st.courses.Get, body.CourseID, "course")
	for _, uid := range body.UserIDs {
		c.st.resetProgress(uid, co)
	}
	return struct{}{}
}

// The webhook shapes are the fake's reading of the service's reference:
// a webhook is {webhook_id, url, trigger_events}; the list answers
// {"webhooks": [...]}; the token reads {"token": "..."}.
type webhook = wireWebhook

func listWebhooks(c *call) any {
	return map[string]any{"webhooks": fakeserver.Map(c.st.webhooks.All(), deref)}
}

func createWebhook(c *call) any {
	var h webhook
	_ = json.Unmarshal(c.body, &h)
	h.WebhookID = c.st.uuid("webhook")
	c.st.webhooks.Add(h.WebhookID, &h)
	return h
}

func getWebhook(c *call) any { return find(c, c.st.webhooks.Get, c.PathValue("webhookId"), "webhook") }

func updateWebhook(c *call) any {
	h := find(c, c.st.webhooks.Get, c.PathValue("webhookId"), "webhook")
	var body webhook
	if err := json.Unmarshal(c.body, &body); err == nil && c.err == nil {
		h.URL, h.TriggerEvents = body.URL, body.TriggerEvents
	}
	return h
}

func deleteWebhook(c *call) any {
	c.st.webhooks.Remove(find(c, c.st.webhooks.Get, c.PathValue("webhookId"), "webhook").WebhookID)
	return struct{}{}
}

func webhookToken(c *call) any { return map[string]string{"token": c.st.secret} }

// Delivery is a webhook delivery the fake made and how it ended.
type Delivery struct {
	WebhookID, URL, Event string
	Body                  []byte // the raw body, as signed
	Signature             string // x-safetyculture-signature
	Status                int    // 0 when the request failed
	Err                   string
}

// trainingEvent plans a delivery of a training event about a user's
// course, or a lesson of it when l is not nil, to each webhook registered
// for it, signed under the lock and sent after it is released.
func (st *store) trainingEvent(event string, u *user, c *course, l *lesson, at time.Time) []Delivery {
	resource := map[string]string{"id": c.ID, "type": "TRAINING_COURSE"}
	details := map[string]string{"course_id": c.ID, "course_external_id": c.ExternalID, "course_title": c.Title,
		"user_id": u.ID, "user_email": u.Email, "user_external_id": u.externalID, "completed_at": wt(at)}
	if l != nil {
		resource = map[string]string{"id": l.ID, "type": "TRAINING_LESSON"}
		details["lesson_id"], details["lesson_title"] = l.ID, l.Title
	}
	var out []Delivery
	for _, h := range st.webhooks.All() {
		if slices.Contains(h.TriggerEvents, event) {
			body, _ := json.Marshal(map[string]any{"webhook_id": h.WebhookID, "version": "3.0.0", "resource": resource,
				"data": map[string]any{"details": details}, "event": map[string]any{"date_triggered": at.UTC().Format(time.RFC3339),
					"event_types": []string{event}, "triggered_by": map[string]string{"user": u.ID, "organization": st.orgID}}})
			mac := hmac.New(sha256.New, []byte(st.secret))
			mac.Write(body)
			out = append(out, Delivery{WebhookID: h.WebhookID, URL: h.URL, Event: event, Body: body, Signature: hex.EncodeToString(mac.Sum(nil))})
		}
	}
	return out
}

func (s *Server) deliver(ds []Delivery) {
	for _, d := range ds {
		req, err := http.NewRequest(http.MethodPost, d.URL, bytes.NewReader(d.Body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("x-safetyculture-signature", d.Signature)
			var resp *http.Response
			if resp, err = deliveryClient.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
				resp.Body.Close()
				d.Status = resp.StatusCode
			}
		}
		if err != nil {
			d.Err = err.Error()
		}
		s.statsMu.Lock()
		s.deliveries = append(s.deliveries, d)
		s.statsMu.Unlock()
	}
}

var deliveryClient = &http.Client{Timeout: 5 * time.Second}

// Deliveries returns the webhook deliveries made so far, oldest first.
func (s *Server) Deliveries() []Delivery {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	return slices.Clone(s.deliveries)
}
