package sctest_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

func TestPutAssignmentsAndResetProgress(t *testing.T) {
	t.Parallel()
	s, course, users := progressFixture(t)
	gid := must[string](t)(s.AddGroup("", "Drivers"))
	body := map[string]any{"assignments": []map[string]any{
		{"id": users[0], "type": "ASSIGNMENT_TYPE_USER", "isAssigned": true},
		{"id": gid, "type": "ASSIGNMENT_TYPE_GROUP", "isAssigned": true},
	}}
	a := call(t, s, http.MethodPut, "/training/courses/v1/"+course+"/assignments", body)
	if a.status != http.StatusOK || a.body["usersUpdated"] != float64(1) || a.body["groupsUpdated"] != float64(1) || a.body["sitesUpdated"] != float64(0) {
		t.Fatalf("assignments: %d %s", a.status, a.raw)
	}
	if got := s.Assignments(course); len(got) != 2 || got[0] != (sctest.Assignment{Type: "ASSIGNMENT_TYPE_GROUP", ID: gid}) {
		t.Errorf("Assignments = %v", got)
	}
	a = call(t, s, http.MethodPut, "/training/courses/v1/"+course+"/assignments", map[string]any{"clearAllUsers": true})
	if a.body["usersUpdated"] != float64(1) || len(s.Assignments(course)) != 1 {
		t.Errorf("clearAllUsers: %s, left %v", a.raw, s.Assignments(course))
	}
	if a := call(t, s, http.MethodPut, "/training/courses/v1/nope/assignments", body); a.status != http.StatusNotFound {
		t.Errorf("unknown course: %d", a.status)
	}
	a = call(t, s, http.MethodPost, "/training/courseprogress/v1/reset", map[string]any{"courseId": course, "userIds": []string{users[0]}})
	if a.status != http.StatusOK || s.CourseProgressCount(sctest.CompletionAll) != 2 {
		t.Errorf("reset: %d, rows left %d", a.status, s.CourseProgressCount(sctest.CompletionAll))
	}
}

func TestBodyOverTheBoundGets413(t *testing.T) {
	t.Parallel()
	s := sctest.New(t)
	big := map[string]any{"url": "https://example.com/" + strings.Repeat("a", sctest.MaxBodyBytes), "trigger_events": []string{"x"}}
	if a := call(t, s, http.MethodPost, "/webhooks/v1/webhooks", big); a.status != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", a.status)
	}
}

func TestWebhooksCRUDAndSignedDeliveries(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []*http.Request
	var bodies [][]byte
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, b)
		mu.Unlock()
	}))
	t.Cleanup(receiver.Close)
	s, _, users := progressFixture(t)
	created := call(t, s, http.MethodPost, "/webhooks/v1/webhooks", map[string]any{"url": receiver.URL,
		"trigger_events": []string{"TRIGGER_EVENT_TRAINING_COURSE_COMPLETED"}})
	id, _ := created.body["webhook_id"].(string)
	if created.status != http.StatusOK || id == "" {
		t.Fatalf("create: %d %s", created.status, created.raw)
	}
	// users[1] has the first lesson opened; completing both completes the course.
	lessons := get(t, s, "/training/lessons/v1/nope")
	if lessons.status != http.StatusNotFound {
		t.Errorf("unknown lesson: %d", lessons.status)
	}
	courses := get(t, s, "/training/courses/v1").items()
	ls := get(t, s, "/training/courses/v1/"+courses[0]["id"].(string)+"/lessons").body["lessons"].([]any)
	for _, l := range ls {
		noErr(t, s.CompleteLesson(users[1], l.(map[string]any)["id"].(string), 70, time.Time{}))
	}
	if len(got) != 1 {
		t.Fatalf("%d deliveries, want 1 (course completed)", len(got))
	}
	secret := get(t, s, "/webhooks/v1/token").body["token"].(string)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(bodies[0])
	if sig := got[0].Header.Get("x-safetyculture-signature"); sig != hex.EncodeToString(mac.Sum(nil)) {
		t.Errorf("signature %q does not match the body", sig)
	}
	if d := s.Deliveries(); len(d) != 1 || d[0].Status != http.StatusOK || !strings.Contains(string(d[0].Body), `"webhook_id":"`+id+`"`) {
		t.Errorf("Deliveries = %+v", d)
	}
	updated := call(t, s, http.MethodPut, "/webhooks/v1/webhooks/"+id, map[string]any{"url": receiver.URL + "/v2", "trigger_events": []string{"A"}})
	if updated.body["url"] != receiver.URL+"/v2" {
		t.Errorf("update: %s", updated.raw)
	}
	if a := get(t, s, "/webhooks/v1/webhooks"); len(a.body["webhooks"].([]any)) != 1 {
		t.Errorf("list: %s", a.raw)
	}
	if a := call(t, s, http.MethodDelete, "/webhooks/v1/webhooks/"+id, nil); a.status != http.StatusOK {
		t.Errorf("delete: %d", a.status)
	}
	if a := get(t, s, "/webhooks/v1/webhooks/"+id); a.status != http.StatusNotFound {
		t.Errorf("get after delete: %d", a.status)
	}
}

func TestCatalogueReads(t *testing.T) {
	t.Parallel()
	s, course, _ := progressFixture(t)
	must[string](t)(s.AddCollection("Safety", "All of it", []string{course}))
	pid := must[string](t)(s.AddPath("Start here", true, []string{course}))
	rid := must[string](t)(s.AddRapidRefresh("Quick quiz", course, true))
	cols := get(t, s, "/training/collections/v1").items()
	if len(cols) != 1 || cols[0]["courseCount"] != float64(1) {
		t.Fatalf("collections = %v", cols)
	}
	if got := get(t, s, "/training/collections/v1/"+cols[0]["id"].(string)+"/courses").items(); len(got) != 1 || got[0]["id"] != course {
		t.Errorf("collection courses = %v", got)
	}
	if got := get(t, s, "/training/paths/v1/"+pid); got.body["isPublished"] != true || len(got.body["courses"].([]any)) != 1 {
		t.Errorf("path = %s", got.raw)
	}
	if got := get(t, s, "/training/rapid-refresh/v1/"+rid); got.body["courseId"] != course {
		t.Errorf("rapid refresh = %s", got.raw)
	}
	for p, want := range map[string]float64{"/training/paths/v1": 1, "/training/rapid-refresh/v1": 1, "/training/individualleaderboards/v1": 0} {
		if a := get(t, s, p); a.body["totalCount"] != want {
			t.Errorf("%s: %s", p, a.raw)
		}
	}
	for _, p := range []string{"/training/paths/v1/x", "/training/rapid-refresh/v1/x", "/training/individualleaderboards/v1/rankings?leaderboardId=x", "/training/collections/v1/x/courses"} {
		if a := get(t, s, p); a.status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, a.status)
		}
	}
}
