package edapptest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
)

// receiver records the webhook deliveries it gets.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	status int
}

type received struct {
	method string
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{status: http.StatusOK}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{r.Method, r.Header.Clone(), b})
		status := rc.status
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) received() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

func eventName(t *testing.T, b []byte) string {
	var e struct{ EventName string }
	require.NoError(t, json.Unmarshal(b, &e))
	return e.EventName
}

// specEvents is the spec's Events table, written out independently of the
// fake's own table.
var specEvents = map[string][]string{
	"CourseCompletedEvent":                             {"eventName", "userId", "userName", "email", "firstname", "lastname", "courseId", "courseTitle", "timestamp"},
	"LessonCompletedEvent":                             {"eventName", "userId", "userName", "email", "firstname", "lastname", "courseId", "courseTitle", "lessonId", "lessonTitle", "timestamp", "score"},
	"LessonPublishedEvent":                             {"eventName", "userId", "userName", "email", "courseId", "courseTitle", "lessonId", "lessonTitle", "timestamp"},
	"LessonUnpublishedEvent":                           {"eventName", "userId", "userName", "email", "courseId", "courseTitle", "lessonId", "lessonTitle", "timestamp"},
	"CoursePublishedEvent":                             {"eventName", "userId", "userName", "email", "courseId", "courseTitle", "timestamp"},
	"CourseUnPublishedEvent":                           {"eventName", "userId", "userName", "email", "courseId", "courseTitle", "timestamp"},
	"RapidRefreshSessionStartedNotificationEvent":      {"eventName", "userId", "userExternalId", "username", "email", "quizId", "quizTitle", "quizSession", "quizLink", "timestamp"},
	"RapidRefreshRetrySessionStartedNotificationEvent": {"eventName", "userId", "userExternalId", "username", "email", "quizId", "quizTitle", "quizSession", "quizLink", "timestamp"},
	"RapidRefreshSessionReminderNotificationEvent":     {"eventName", "userId", "userExternalId", "username", "email", "quizId", "quizTitle", "quizSession", "quizLink", "timestamp"},
	"CourseReminderWebHookEvent":                       {"eventName", "userId", "userExternalId", "username", "email", "courseId", "courseTitle", "courseLink", "dueDate", "timestamp"},
}

func TestWebhookCreateListDelete(t *testing.T) {
	h := newHarness(t)
	for event, fields := range specEvents {
		r := h.do("POST", "/v2/webhooks", map[string]string{"eventName": event, "webHookUrl": "https://hooks.example.com/" + event})
		require.Equal(t, 200, r.status, string(r.body))
		assert.Equal(t, []string{"id", "eventName", "webHookUrl", "headers", "messageFormat"}, keys(t, r.body))
		var w struct {
			ID            string
			EventName     string
			WebHookURL    string `json:"webHookUrl"`
			Headers       map[string]string
			MessageFormat json.RawMessage
		}
		r.json(t, &w)
		assert.Equal(t, event, w.EventName)
		assert.Nil(t, w.Headers)
		assert.Contains(t, string(r.body), `"headers":null`)
		assert.Equal(t, fields, keys(t, w.MessageFormat), event)
		var mf map[string]string
		require.NoError(t, json.Unmarshal(w.MessageFormat, &mf))
		for _, f := range fields {
			want := "string"
			switch f {
			case "timestamp", "dueDate":
				want = "datetime"
			case "score":
				want = "number"
			}
			assert.Equal(t, want, mf[f], "%s.%s", event, f)
		}
	}

	var w wireWebhook
	r := h.do("POST", "/v2/webhooks", map[string]any{"eventName": "LessonCompletedEvent",
		"webHookUrl": "http://127.0.0.1:9/hook", "headers": map[string]string{"X-Secret": "s3cret"}})
	require.Equal(t, 200, r.status)
	var withHeaders map[string]any
	r.json(t, &withHeaders)
	assert.Equal(t, map[string]any{"X-Secret": "s3cret"}, withHeaders["headers"])
	w.ID = withHeaders["id"].(string)

	var list []map[string]any
	h.get("/v2/webhooks", &list)
	assert.Len(t, list, 11)
	var ok successBody
	h.ok("DELETE", "/v2/webhooks/"+w.ID, nil, &ok)
	assert.True(t, ok.Success)
	h.get("/v2/webhooks", &list)
	assert.Len(t, list, 10)
	assert.Equal(t, 404, h.do("DELETE", "/v2/webhooks/"+w.ID, nil).status)

	for _, body := range []map[string]any{
		{"webHookUrl": "https://x.example.com/"},
		{"eventName": "LessonStartedEvent", "webHookUrl": "https://x.example.com/"},
		{"eventName": "lessoncompletedevent", "webHookUrl": "https://x.example.com/"},
		{"eventName": "LessonCompletedEvent"},
		{"eventName": "LessonCompletedEvent", "webHookUrl": "/relative"},
		{"eventName": "LessonCompletedEvent", "webHookUrl": "ftp://x.example.com/"},
		{"eventName": "LessonCompletedEvent", "webHookUrl": "https://"},
		{"eventName": "LessonCompletedEvent", "webHookUrl": "https://x.example.com/", "headers": []string{"X"}},
		{"eventName": 7, "webHookUrl": "https://x.example.com/"},
	} {
		r := h.do("POST", "/v2/webhooks", body)
		assert.Equal(t, 400, r.status, "%v: %s", body, r.body)
		r.message(t)
	}
}

func TestWebhookDeliveries(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, WithClock(clock.Now))
	rc := newReceiver(t)
	headers := map[string]string{"X-Webhook-Secret": "s3cret", "X-Tenant": "acme"}
	h.ok("POST", "/v2/webhooks", map[string]any{"eventName": "LessonCompletedEvent", "webHookUrl": rc.URL + "/lesson", "headers": headers}, nil)
	h.ok("POST", "/v2/webhooks", map[string]any{"eventName": "CourseCompletedEvent", "webHookUrl": rc.URL + "/course", "headers": headers}, nil)
	h.ok("POST", "/v2/webhooks", map[string]any{"eventName": "CoursePublishedEvent", "webHookUrl": rc.URL + "/published"}, nil)

	g := h.mustGroup("G", "", "")
	c, ls := h.mustCourse(CourseSpec{Title: "Safety", Lessons: lessonSpecs("One", "Two")})
	require.NoError(t, h.AssignCourse(g, c))
	u := h.mustUser(UserSpec{Username: "ann", Email: "ann@example.com", FirstName: "Ann", LastName: "Lee", Groups: []string{g}})

	require.NoError(t, h.CompleteLesson(u, ls[0], 72.5))
	got := rc.received()
	require.Len(t, got, 1, "the first lesson completes no course")
	assert.Equal(t, "POST", got[0].method)
	assert.Equal(t, "application/json", got[0].header.Get("Content-Type"))
	assert.Equal(t, "s3cret", got[0].header.Get("X-Webhook-Secret"))
	assert.Equal(t, "acme", got[0].header.Get("X-Tenant"))
	assert.Equal(t, specEvents["LessonCompletedEvent"], keys(t, got[0].body))
	assert.JSONEq(t, `{"eventName":"LessonCompletedEvent","userId":"`+u+`","userName":"ann","email":"ann@example.com",
		"firstname":"Ann","lastname":"Lee","courseId":"`+c+`","courseTitle":"Safety","lessonId":"`+ls[0]+`",
		"lessonTitle":"One","timestamp":"2024-03-07T05:10:36.187Z","score":72.5}`, string(got[0].body))

	clock.Advance(time.Minute)
	require.NoError(t, h.CompleteLesson(u, ls[1], 90))
	got = rc.received()
	require.Len(t, got, 3)
	assert.Equal(t, "LessonCompletedEvent", eventName(t, got[1].body))
	assert.Equal(t, "CourseCompletedEvent", eventName(t, got[2].body), "the course event follows the last lesson's")
	assert.Equal(t, specEvents["CourseCompletedEvent"], keys(t, got[2].body))
	assert.JSONEq(t, `{"eventName":"CourseCompletedEvent","userId":"`+u+`","userName":"ann","email":"ann@example.com",
		"firstname":"Ann","lastname":"Lee","courseId":"`+c+`","courseTitle":"Safety",
		"timestamp":"2024-03-07T05:11:36.187Z"}`, string(got[2].body))
	assert.Equal(t, "s3cret", got[2].header.Get("X-Webhook-Secret"))

	// A course completes once.
	require.NoError(t, h.CompleteLesson(u, ls[1], 95))
	got = rc.received()
	require.Len(t, got, 4)
	assert.Equal(t, "LessonCompletedEvent", eventName(t, got[3].body))

	ds := h.Deliveries()
	require.Len(t, ds, 4)
	assert.Equal(t, []string{"LessonCompletedEvent", "LessonCompletedEvent", "CourseCompletedEvent", "LessonCompletedEvent"},
		ids(ds, func(d Delivery) string { return string(d.EventName) }))
	for _, d := range ds {
		assert.True(t, d.OK())
		assert.Equal(t, 200, d.StatusCode)
		assert.NoError(t, d.Err)
		assert.Equal(t, "s3cret", d.Header.Get("X-Webhook-Secret"))
		assert.Equal(t, "application/json", d.Header.Get("Content-Type"))
	}
	assert.Equal(t, rc.URL+"/course", ds[2].URL)
	assert.Equal(t, "whk_2", ds[2].WebhookID)
	assert.Equal(t, got[2].body, ds[2].Body)
	assert.Equal(t, clock.Now(), ds[3].Time)

	// Only webhooks of the event get it; opens send nothing.
	_, err := h.OpenLesson(u, ls[0])
	require.NoError(t, err)
	assert.Len(t, rc.received(), 4)
}

func TestWebhookDeliveryFailures(t *testing.T) {
	h := newHarness(t)
	failing := newReceiver(t)
	failing.status = 500
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close()

	for _, u := range []string{failing.URL, goneURL} {
		_, err := h.AddWebhook(WebhookSpec{EventName: edapp.EventLessonCompleted, URL: u})
		require.NoError(t, err)
	}
	_, ls := h.mustCourse(CourseSpec{Title: "C", Lessons: lessonSpecs("L", "M")})
	u := h.mustUser(UserSpec{Username: "u"})
	require.NoError(t, h.CompleteLesson(u, ls[0], 50), "delivery failures are recorded, not returned")

	ds := h.Deliveries()
	require.Len(t, ds, 2)
	assert.Equal(t, 500, ds[0].StatusCode)
	assert.NoError(t, ds[0].Err)
	assert.False(t, ds[0].OK())
	assert.Error(t, ds[1].Err, "refused")
	assert.Equal(t, 0, ds[1].StatusCode)
	assert.False(t, ds[1].OK())
}

func TestWebhookReceiverMayCallBack(t *testing.T) {
	h := newHarness(t)
	var status int
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequest("GET", h.URL+"/v2/analytics/attempts", nil)
		req.Header.Set("Authorization", "Bearer "+h.Token)
		if res, err := http.DefaultClient.Do(req); err == nil {
			status = res.StatusCode
			res.Body.Close()
		}
	}))
	defer cb.Close()
	_, err := h.AddWebhook(WebhookSpec{EventName: edapp.EventLessonCompleted, URL: cb.URL})
	require.NoError(t, err)
	_, ls := h.mustCourse(CourseSpec{Title: "C", Lessons: lessonSpecs("L", "M")})
	u := h.mustUser(UserSpec{Username: "u"})
	require.NoError(t, h.CompleteLesson(u, ls[0], 50))
	assert.Equal(t, 200, status, "no deadlock: deliveries run without the store lock")
}

func TestPublishEvents(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, WithClock(clock.Now))
	rc := newReceiver(t)
	for _, e := range []edapp.EventName{edapp.EventCoursePublished, edapp.EventLessonPublished} {
		_, err := h.AddWebhook(WebhookSpec{EventName: e, URL: rc.URL, Headers: map[string]string{"X-Event": string(e)}})
		require.NoError(t, err)
	}
	g := h.mustGroup("G", "", "")
	child := h.mustGroup("Child", g, "")
	c, _ := h.mustCourse(CourseSpec{Title: "C", Status: "unpublished", Lessons: lessonSpecs("L")})

	// Nobody can reach the course: one delivery with empty user fields.
	require.NoError(t, h.PublishCourse(c))
	got := rc.received()
	require.Len(t, got, 1)
	assert.Equal(t, specEvents["CoursePublishedEvent"], keys(t, got[0].body))
	assert.JSONEq(t, `{"eventName":"CoursePublishedEvent","userId":"","userName":"","email":"","courseId":"`+c+`",
		"courseTitle":"C","timestamp":"2024-03-07T05:10:36.187Z"}`, string(got[0].body))
	assert.Equal(t, string(edapp.EventCoursePublished), got[0].header.Get("X-Event"))

	// One per user who can reach it, down the hierarchy.
	require.NoError(t, h.AssignCourse(g, c))
	a := h.mustUser(UserSpec{Username: "a", Email: "a@example.com", Groups: []string{g}})
	b := h.mustUser(UserSpec{Username: "b", Groups: []string{child}})
	h.mustUser(UserSpec{Username: "outsider"})
	require.NoError(t, h.PublishCourse(c))
	got = rc.received()[1:]
	require.Len(t, got, 2)
	var users []string
	for _, r := range got {
		assert.Equal(t, specEvents["CoursePublishedEvent"], keys(t, r.body))
		var e map[string]any
		require.NoError(t, json.Unmarshal(r.body, &e))
		assert.Equal(t, c, e["courseId"])
		users = append(users, e["userId"].(string))
	}
	assert.Equal(t, []string{a, b}, users)
	var courses page[v2Course]
	h.get("/v2/catalog/courses", &courses)
	assert.Equal(t, "published", courses.Items[0].Status)
}

func TestEmitAndReminder(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, WithClock(clock.Now))
	rc := newReceiver(t)
	for _, e := range []edapp.EventName{edapp.EventRapidRefreshSessionStartedNotification, edapp.EventCourseReminderWebHook} {
		_, err := h.AddWebhook(WebhookSpec{EventName: e, URL: rc.URL})
		require.NoError(t, err)
	}
	u := h.mustUser(UserSpec{Username: "rr", Email: "rr@example.com", ExternalID: "EXT-9"})
	c, _ := h.mustCourse(CourseSpec{Title: "C"})

	require.NoError(t, h.Emit(edapp.EventRapidRefreshSessionStartedNotification, map[string]any{
		"userId": u, "quizId": "q1", "quizTitle": "Daily quiz", "quizSession": "3",
		"quizLink": "https://web.example.com/rr/q1", "extra": 1, // not a field of the event: left out
	}))
	require.NoError(t, h.Emit(edapp.EventRapidRefreshRetrySessionStartedNotification, nil), "no webhook: no delivery, no error")
	require.NoError(t, h.SendCourseReminder(u, c, time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)))

	got := rc.received()
	require.Len(t, got, 2)
	assert.Equal(t, specEvents[string(edapp.EventRapidRefreshSessionStartedNotification)], keys(t, got[0].body))
	assert.JSONEq(t, `{"eventName":"RapidRefreshSessionStartedNotificationEvent","userId":"`+u+`","userExternalId":"EXT-9",
		"username":"rr","email":"rr@example.com","quizId":"q1","quizTitle":"Daily quiz","quizSession":"3",
		"quizLink":"https://web.example.com/rr/q1","timestamp":"2024-03-07T05:10:36.187Z"}`, string(got[0].body))

	assert.Equal(t, specEvents[string(edapp.EventCourseReminderWebHook)], keys(t, got[1].body))
	var e map[string]any
	require.NoError(t, json.Unmarshal(got[1].body, &e))
	assert.Equal(t, "2024-04-01T00:00:00.000Z", e["dueDate"])
	assert.Equal(t, h.URL+"/courses/"+c, e["courseLink"])
	assert.Equal(t, "EXT-9", e["userExternalId"])
}

func TestRedeliver(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t)
	_, err := h.AddWebhook(WebhookSpec{EventName: edapp.EventLessonCompleted, URL: rc.URL, Headers: map[string]string{"X-Secret": "s3"}})
	require.NoError(t, err)
	_, ls := h.mustCourse(CourseSpec{Title: "C", Lessons: lessonSpecs("A", "B")})
	u := h.mustUser(UserSpec{Username: "u"})
	require.NoError(t, h.CompleteLesson(u, ls[0], 90))
	ds := h.Deliveries()
	require.Len(t, ds, 1)
	assert.Equal(t, "dlv_1", ds[0].ID)
	assert.Empty(t, ds[0].RedeliveryOf)

	again, err := h.Redeliver(ds[0].ID)
	require.NoError(t, err)
	assert.Equal(t, "dlv_2", again.ID)
	assert.Equal(t, "dlv_1", again.RedeliveryOf)
	assert.True(t, again.OK())
	third, err := h.Redeliver(again.ID)
	require.NoError(t, err)
	assert.Equal(t, "dlv_1", third.RedeliveryOf, "a redelivery names the first delivery")

	got := rc.received()
	require.Len(t, got, 3)
	for _, r := range got[1:] {
		assert.Equal(t, got[0].body, r.body, "the same event, byte for byte")
		assert.Equal(t, "s3", r.header.Get("X-Secret"))
	}
	_, err = h.Redeliver("dlv_99")
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestWithRedeliveries(t *testing.T) {
	h := newHarness(t, WithRedeliveries(2))
	rc := newReceiver(t)
	_, err := h.AddWebhook(WebhookSpec{EventName: edapp.EventLessonCompleted, URL: rc.URL})
	require.NoError(t, err)
	_, ls := h.mustCourse(CourseSpec{Title: "C", Lessons: lessonSpecs("A", "B")})
	u := h.mustUser(UserSpec{Username: "u"})
	require.NoError(t, h.CompleteLesson(u, ls[0], 90))
	require.NoError(t, h.CompleteLesson(u, ls[1], 80))
	ds := h.Deliveries()
	require.Len(t, ds, 6, "each of two events sent three times")
	assert.Equal(t, []string{"", "dlv_1", "dlv_1", "", "dlv_4", "dlv_4"},
		ids(ds, func(d Delivery) string { return d.RedeliveryOf }))
	got := rc.received()
	require.Len(t, got, 6)
	assert.Equal(t, got[0].body, got[2].body)
	assert.NotEqual(t, got[0].body, got[3].body)
}

func TestEmitTakesEventNames(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t)
	for _, name := range edapp.EventNames() {
		_, err := h.AddWebhook(WebhookSpec{EventName: name, URL: rc.URL})
		require.NoError(t, err)
	}
	for _, name := range edapp.EventNames() {
		require.NoError(t, h.Emit(name, nil), "%s", name)
	}
	ds := h.Deliveries()
	require.Len(t, ds, len(edapp.EventNames()))
	for i, d := range ds {
		assert.Equal(t, edapp.EventNames()[i], d.EventName)
		assert.Equal(t, string(d.EventName), eventName(t, d.Body))
	}
	assert.ErrorIs(t, h.Emit("NoSuchEvent", nil), ErrInvalid)
}
