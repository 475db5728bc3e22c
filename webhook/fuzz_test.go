package webhook_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/webhook"
)

// FuzzHandler checks that the handler never panics, answers each delivery
// with the status its rules give, calls fn exactly for the accepted ones
// with the event edapp.ParseEvent gives, and never echoes the secret.
func FuzzHandler(f *testing.F) {
	const maxBody = 2048
	for _, name := range eventFixtures(f) {
		p := readEventFixture(f, name)
		f.Add(uint8(0), testSecret, p)
		f.Add(uint8(4), testSecret, p) // length unknown
	}
	for _, s := range []string{``, `{}`, `[]`, `null`, `{"eventName":null}`, `{"eventName":"X"}`,
		`{"eventName":"CoursePublishedEvent"}`, `{"eventName":"LessonCompletedEvent","score":"x"}`} {
		f.Add(uint8(0), testSecret, []byte(s))
	}
	f.Add(uint8(1), testSecret, readEventFixture(f, "LessonCompletedEvent.json"))
	f.Add(uint8(0), "wrong", readEventFixture(f, "LessonCompletedEvent.json"))
	f.Add(uint8(8), testSecret, readEventFixture(f, "LessonCompletedEvent.json"))
	f.Add(uint8(0), testSecret, bytes.Repeat([]byte("a"), maxBody+1))

	methods := []string{http.MethodPost, http.MethodGet, http.MethodPut, "post"}
	fnErr := errors.New("store unavailable")
	f.Fuzz(func(t *testing.T, mode uint8, secret string, body []byte) {
		var calls []edapp.Event
		h := newHandler(t, func(ctx context.Context, ev edapp.Event) error {
			calls = append(calls, ev)
			if ev.Name() == edapp.EventCoursePublished {
				return fnErr
			}
			return nil
		}, webhook.WithSecretHeader(testSecretHeader, testSecret), webhook.WithMaxBodyBytes(maxBody))

		method := methods[int(mode&3)]
		req := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(body))
		req.Method = method
		if mode&4 != 0 {
			req.ContentLength = -1
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		if mode&8 == 0 {
			req.Header[testSecretHeader] = []string{secret}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)

		want, parsed := expectedAnswer(method, mode&8 == 0 && secret == testSecret, body, maxBody)
		if w.Code != want {
			t.Fatalf("status %d, want %d", w.Code, want)
		}
		checkCalls(t, calls, parsed, w.Code)
		if strings.Contains(w.Body.String(), testSecret) {
			t.Fatal("response contains the secret")
		}
	})
}

// expectedAnswer is the status the handler's rules give a delivery, and
// the event fn must get (nil: fn is not called).
func expectedAnswer(method string, authorized bool, body []byte, maxBody int) (int, edapp.Event) {
	switch {
	case method != http.MethodPost:
		return http.StatusMethodNotAllowed, nil
	case !authorized:
		return http.StatusUnauthorized, nil
	case len(body) > maxBody:
		return http.StatusRequestEntityTooLarge, nil
	}
	ev, err := edapp.ParseEvent(body)
	switch {
	case err != nil:
		return http.StatusBadRequest, nil
	case ev.Name() == edapp.EventCoursePublished:
		return http.StatusInternalServerError, ev
	}
	return http.StatusOK, ev
}

func checkCalls(t *testing.T, calls []edapp.Event, parsed edapp.Event, status int) {
	t.Helper()
	if parsed == nil {
		if len(calls) != 0 {
			t.Fatalf("fn called for a rejected delivery (%d)", status)
		}
		return
	}
	if len(calls) != 1 {
		t.Fatalf("fn called %d times", len(calls))
	}
	if !reflect.DeepEqual(calls[0], parsed) {
		t.Fatalf("fn got %#v, ParseEvent gives %#v", calls[0], parsed)
	}
}
