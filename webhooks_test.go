package edapp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWebhooksCreate(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/webhooks", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodPost, "/v2/webhooks", "",
			`{"eventName":"LessonCompletedEvent","webHookUrl":"https://hooks.example.com/edapp/events"}`)
		serveFixture(t, w, "webhooks/create.json")
	})

	wh, err := client.Webhooks.Create(context.Background(), WebhookCreateParams{
		EventName:  EventLessonCompleted,
		WebHookURL: "https://hooks.example.com/edapp/events",
	})
	require.NoError(t, err)
	assert.Equal(t, &Webhook{
		ID:         "wh-7f3c",
		EventName:  EventLessonCompleted,
		WebHookURL: "https://hooks.example.com/edapp/events",
		MessageFormat: map[string]string{
			"eventName": "string", "userId": "string", "userName": "string", "email": "string",
			"firstname": "string", "lastname": "string", "courseId": "string", "courseTitle": "string",
			"lessonId": "string", "lessonTitle": "string", "timestamp": "datetime", "score": "number",
		},
	}, wh)
	assert.Nil(t, wh.Headers, "headers: null")
}

func TestWebhooksCreateWithHeaders(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/v2/webhooks", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodPost, "/v2/webhooks", "",
			`{"eventName":"RapidRefreshSessionStartedNotificationEvent","webHookUrl":"https://hooks.example.com/edapp/rapid-refresh",`+
				`"headers":{"X-Webhook-Secret":"s3cr3t"}}`)
		serveFixture(t, w, "webhooks/create-webhookid.json")
	})

	wh, err := client.Webhooks.Create(context.Background(), WebhookCreateParams{
		EventName:  EventRapidRefreshSessionStartedNotification,
		WebHookURL: "https://hooks.example.com/edapp/rapid-refresh",
		Headers:    map[string]string{"X-Webhook-Secret": "s3cr3t"},
	})
	require.NoError(t, err)
	assert.Equal(t, "wh-9a1b", wh.ID, "from webhookId")
	assert.Equal(t, EventRapidRefreshSessionStartedNotification, wh.EventName)
	assert.Equal(t, "s3cr3t", wh.Headers["X-Webhook-Secret"], "the value reads as it came")
	assert.NotContains(t, fmt.Sprintf("%v %+v %#v %s %q %x %d", wh, wh, wh, wh.Headers, wh.Headers, wh.Headers, wh.Headers), "s3cr3t")
	assert.Equal(t, "datetime", wh.MessageFormat["timestamp"])
	assert.Len(t, wh.MessageFormat, 10)
}

func TestWebhooksCreateEveryEventName(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	var got []EventName
	mux.HandleFunc("/v2/webhooks", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			EventName EventName `json:"eventName"`
		}
		assert.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		got = append(got, body.EventName)
		_, _ = w.Write([]byte(`{"id":"wh"}`))
	})
	require.Len(t, EventNames(), 10, "the ten documented events")
	for _, name := range EventNames() {
		_, err := client.Webhooks.Create(context.Background(), WebhookCreateParams{EventName: name, WebHookURL: "http://localhost:8080/hook"})
		require.NoError(t, err, name)
	}
	assert.Equal(t, EventNames(), got)
}

func TestWebhooksCreateRefusesBadInput(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	refuseRequests(t, mux)
	const good = "https://hooks.example.com/x"
	tests := []struct {
		name   string
		params WebhookCreateParams
	}{
		{"no event name", WebhookCreateParams{WebHookURL: good}},
		{"unknown event name", WebhookCreateParams{EventName: "UserCreatedEvent", WebHookURL: good}},
		{"event name in another case", WebhookCreateParams{EventName: "lessoncompletedevent", WebHookURL: good}},
		{"event name with a space", WebhookCreateParams{EventName: EventLessonCompleted + " ", WebHookURL: good}},
		{"no URL", WebhookCreateParams{EventName: EventLessonCompleted}},
		{"relative URL", WebhookCreateParams{EventName: EventLessonCompleted, WebHookURL: "/hooks/x"}},
		{"no scheme", WebhookCreateParams{EventName: EventLessonCompleted, WebHookURL: "hooks.example.com/x"}},
		{"other scheme", WebhookCreateParams{EventName: EventLessonCompleted, WebHookURL: "ftp://hooks.example.com/x"}},
		{"mailto", WebhookCreateParams{EventName: EventLessonCompleted, WebHookURL: "mailto:ops@example.com"}},
		{"no host", WebhookCreateParams{EventName: EventLessonCompleted, WebHookURL: "https:///x"}},
		{"not a URL", WebhookCreateParams{EventName: EventLessonCompleted, WebHookURL: "http://[::1"}},
		{"leading space", WebhookCreateParams{EventName: EventLessonCompleted, WebHookURL: " " + good}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := client.Webhooks.Create(context.Background(), tt.params)
			checkRefused(t, err)
		})
	}
}

func TestWebhooksCreateErrorDoesNotRepeatTheURL(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	refuseRequests(t, mux)
	_, err := client.Webhooks.Create(context.Background(), WebhookCreateParams{
		EventName: EventCourseCompleted, WebHookURL: "ftp://user:hunter2@example.com/?key=secret"})
	checkRefused(t, err)
	assert.NotContains(t, err.Error(), "hunter2")
	assert.NotContains(t, err.Error(), "secret")
}

func TestWebhooksList(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, fixture string }{
		{"bare array", "webhooks/list.json"},
		{"envelope", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client, mux := setup(t)
			mux.HandleFunc("/v2/webhooks", func(w http.ResponseWriter, r *http.Request) {
				assertRequest(t, r, http.MethodGet, "/v2/webhooks", "page=1&pageSize=1000", "")
				if tt.fixture != "" {
					serveFixture(t, w, tt.fixture)
					return
				}
				_, _ = w.Write([]byte(`{"totalCount":2,"items":` + string(loadFixture(t, "webhooks/list.json")) + `}`))
			})
			hooks, err := client.Webhooks.List(context.Background())
			require.NoError(t, err)
			assert.Equal(t, []Webhook{
				{
					ID: "wh-7f3c", EventName: EventLessonCompleted, WebHookURL: "https://hooks.example.com/edapp/events",
					MessageFormat: map[string]string{"eventName": "string", "timestamp": "datetime", "score": "number"},
				},
				{
					ID: "wh-9a1b", EventName: EventCourseCompleted, WebHookURL: "https://hooks.example.com/edapp/courses",
					Headers: map[string]string{"X-Webhook-Secret": "s3cr3t"},
				},
			}, hooks)
		})
	}
}

func TestWebhooksDelete(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	answer := `{"success":true}`
	mux.HandleFunc("/v2/webhooks/wh-7f3c", func(w http.ResponseWriter, r *http.Request) {
		assertRequest(t, r, http.MethodDelete, "/v2/webhooks/wh-7f3c", "", "")
		_, _ = w.Write([]byte(answer))
	})
	require.NoError(t, client.Webhooks.Delete(context.Background(), "wh-7f3c"))

	answer = `{"success":false}`
	err := client.Webhooks.Delete(context.Background(), "wh-7f3c")
	require.ErrorIs(t, err, ErrUnsuccessful)

	err = client.Webhooks.Delete(context.Background(), "wh-gone")
	require.ErrorIs(t, err, ErrNotFound)
}

func TestWebhooksEscapesIDs(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	var path string
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { path = r.URL.EscapedPath() })
	require.NoError(t, client.Webhooks.Delete(context.Background(), "wh/1?x"))
	assert.Equal(t, "/v2/webhooks/wh%2F1%3Fx", path)
}

func TestWebhooksEmptyIDsAreRefused(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	refuseRequests(t, mux)
	checkRefused(t, client.Webhooks.Delete(context.Background(), ""))
}

func TestWebhookDecodeVariants(t *testing.T) {
	t.Parallel()
	var w Webhook
	require.NoError(t, decodeAnswer([]byte(`{"id":"a","webhookId":"b"}`), &w))
	assert.Equal(t, "a", w.ID, "id wins")
	w = Webhook{}
	require.NoError(t, decodeAnswer([]byte(`{"webhookId":"b","headers":{}}`), &w))
	assert.Equal(t, Webhook{ID: "b", Headers: map[string]string{}}, w)

	b, err := json.Marshal(Webhook{ID: "a", EventName: EventCourseCompleted, WebHookURL: "https://x"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"id":"a","eventName":"CourseCompletedEvent","webHookUrl":"https://x","headers":null,"messageFormat":null}`, string(b))
}
