package safetyculture

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWebhooksService(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	hook := `{"webhook_id":"w1","url":"https://hooks.example.com/sc","trigger_events":["TRIGGER_EVENT_TRAINING_COURSE_COMPLETED"],"organisation_id":"o1"}`
	w.handle("GET /webhooks/v1/webhooks", 200, `{"webhooks":[`+hook+`,{"id":"w2","triggerEvents":["TRIGGER_EVENT_TRAINING_LESSON_COMPLETED"]}]}`)
	w.handle("GET /webhooks/v1/webhooks/{id}", 200, `{"webhook":`+hook+`}`)
	var bodies []string
	echo := func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, r.Method+" "+string(b))
		rw.Write([]byte(`{"webhook":` + hook + `}`))
	}
	w.mux.HandleFunc("POST /webhooks/v1/webhooks", echo)
	w.mux.HandleFunc("PUT /webhooks/v1/webhooks/{id}", echo)
	w.handle("DELETE /webhooks/v1/webhooks/{id}", 200, `{}`)
	w.handle("GET /webhooks/v1/token", 200, `{"token":"whsec-42"}`)
	c := w.client(t)

	hooks, err := c.Webhooks.List(ctx)
	require.NoError(t, err)
	require.Len(t, hooks, 2)
	assert.Equal(t, "w2", hooks[1].ID, `"id" is read too`)
	assert.Equal(t, []string{"TRIGGER_EVENT_TRAINING_LESSON_COMPLETED"}, hooks[1].TriggerEvents)
	got, err := c.Webhooks.Get(ctx, "w1")
	require.NoError(t, err)
	assert.Equal(t, "https://hooks.example.com/sc", got.URL)
	params := WebhookCreateParams{URL: "https://hooks.example.com/sc", TriggerEvents: []string{"TRIGGER_EVENT_TRAINING_COURSE_COMPLETED"}}
	_, err = c.Webhooks.Create(ctx, params)
	require.NoError(t, err)
	_, err = c.Webhooks.Update(ctx, "w1", WebhookUpdateParams(params))
	require.NoError(t, err)
	assert.Equal(t, []string{
		`POST {"url":"https://hooks.example.com/sc","trigger_events":["TRIGGER_EVENT_TRAINING_COURSE_COMPLETED"]}`,
		`PUT {"url":"https://hooks.example.com/sc","trigger_events":["TRIGGER_EVENT_TRAINING_COURSE_COMPLETED"]}`,
	}, bodies)
	require.NoError(t, c.Webhooks.Delete(ctx, "w1"))
	secret, err := c.Webhooks.Secret(ctx)
	require.NoError(t, err)
	assert.Equal(t, "whsec-42", secret.Value())
	for _, s := range []string{fmt.Sprint(secret), fmt.Sprintf("%+v", secret), fmt.Sprintf("%#v", secret)} {
		assert.NotContains(t, s, "whsec-42")
	}
	assert.Error(t, c.Webhooks.Delete(ctx, ""))
}

func TestWebhooksSecretKeepsAnOddAnswerOutOfTheError(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /webhooks/v1/token", 200, `{"token":"whsec-42"`)
	_, err := w.client(t).Webhooks.Secret(ctx)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "whsec-42")
}
