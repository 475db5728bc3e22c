package safetyculture

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func deliver(h http.Handler, method, body, sig string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "/hooks", strings.NewReader(body))
	if sig != "" {
		r.Header.Set("x-safetyculture-signature", sig)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

func TestNewWebhookHandlerAnswers(t *testing.T) {
	t.Parallel()
	body := fixture(t, "webhook_delivery.json")
	var got []*WebhookEvent
	h, err := NewWebhookHandler(testSecret, func(_ context.Context, ev *WebhookEvent) error {
		switch ev.Resource.ID {
		case "boom":
			panic("fn failed")
		case "busy":
			return webhook.ErrUnavailable
		case "fail":
			return errors.New("no")
		}
		got = append(got, ev)
		return nil
	}, webhook.WithMaxBodyBytes(2048))
	require.NoError(t, err)

	assert.Equal(t, 200, deliver(h, "POST", body, sign(body, testSecret)).Code)
	require.Len(t, got, 1)
	ev := got[0]
	assert.Equal(t, "3.0.0", ev.Version)
	assert.Equal(t, edapp.EventName("TRIGGER_EVENT_TRAINING_COURSE_COMPLETED"), ev.Name())
	assert.Equal(t, "user_0a1b2c3d4e5f60718293a4b5c6d7e8f9", ev.Event.TriggeredBy.User)
	assert.Equal(t, "TRAINING_COURSE", ev.Resource.Type)
	assert.JSONEq(t, `{"details":{"score":92}}`, string(ev.Data))
	assert.NotEmpty(t, ev.Key())

	other := func(id string) string { return strings.Replace(body, "5f1c2a9e8b7d6c5a4b3e2d1f", id, 1) }
	big := `{"pad":"` + strings.Repeat("x", 4096) + `"}`
	for name, tc := range map[string]struct {
		method, body, sig string
		code              int
	}{
		"bad signature": {"POST", body, sign(body, "other"), 401},
		"no signature":  {"POST", body, "", 401},
		"not JSON":      {"POST", "[1]", sign("[1]", testSecret), 400},
		"GET":           {"GET", body, sign(body, testSecret), 405},
		"too large":     {"POST", big, sign(big, testSecret), 413},
		"panic":         {"POST", other("boom"), sign(other("boom"), testSecret), 500},
		"unavailable":   {"POST", other("busy"), sign(other("busy"), testSecret), 503},
		"failure":       {"POST", other("fail"), sign(other("fail"), testSecret), 500},
	} {
		assert.Equal(t, tc.code, deliver(h, tc.method, tc.body, tc.sig).Code, name)
	}
	assert.Len(t, got, 1, "fn never saw a refused delivery")

	_, err = NewWebhookHandler("", func(context.Context, *WebhookEvent) error { return nil })
	assert.ErrorIs(t, err, edapp.ErrInvalidInput)
	_, err = NewWebhookHandler(testSecret, nil)
	assert.ErrorIs(t, err, edapp.ErrInvalidInput)
	_, err = NewWebhookHandler(testSecret, func(context.Context, *WebhookEvent) error { return nil }, webhook.WithMaxBodyBytes(-1))
	assert.ErrorIs(t, err, edapp.ErrInvalidInput)
}

func TestWebhookEventNameIsTheMostSpecificType(t *testing.T) {
	t.Parallel()
	for _, types := range [][]string{
		{"TRIGGER_EVENT_TRAINING_COURSE_COMPLETED"},
		{"TRIGGER_EVENT_TRAINING", "TRIGGER_EVENT_TRAINING_COURSE_COMPLETED"},
		{"TRIGGER_EVENT_TRAINING_COURSE_COMPLETED", "TRIGGER_EVENT_TRAINING"},
	} {
		e := &WebhookEvent{Event: EventInfo{EventTypes: types}}
		if got := e.Name(); got != "TRIGGER_EVENT_TRAINING_COURSE_COMPLETED" {
			t.Errorf("Name of %v: %q", types, got)
		}
	}
	if got := (&WebhookEvent{}).Name(); got != "" {
		t.Errorf("Name without types: %q", got)
	}
}

// Without options, a body over DefaultWebhookBodyBytes is refused unread
// past the bound, whoever sends it; one within it is read.
func TestNewWebhookHandlerBoundsBodiesByDefault(t *testing.T) {
	t.Parallel()
	h, err := NewWebhookHandler(testSecret, func(context.Context, *WebhookEvent) error { return nil })
	require.NoError(t, err)
	big := `{"pad":"` + strings.Repeat("x", DefaultWebhookBodyBytes) + `"}`
	assert.Equal(t, http.StatusRequestEntityTooLarge, deliver(h, "POST", big, sign(big, testSecret)).Code)
	body := fixture(t, "webhook_delivery.json")
	assert.Equal(t, http.StatusOK, deliver(h, "POST", body, sign(body, testSecret)).Code)
	wide, err := NewWebhookHandler(testSecret, func(context.Context, *WebhookEvent) error { return nil }, webhook.WithMaxBodyBytes(1<<20))
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, deliver(wide, "POST", big, "bad").Code, "an option given wins")
}
