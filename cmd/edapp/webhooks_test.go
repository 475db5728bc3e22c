package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/webhook"
)

func TestWebhooksCreateListDelete(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	ids := map[string]string{}

	r := runFake(t, srv, "webhooks", "create", "--event", "LessonCompletedEvent", "--url", "https://example.com/edapp/events",
		"--header", "X-Webhook-Secret=s3cret", "-o", "json")
	wantCode(t, r, exitOK)
	var created []edapp.Webhook
	if err := json.Unmarshal([]byte(r.stdout), &created); err != nil || len(created) != 1 {
		t.Fatalf("create -o json: %v\n%s", err, r.stdout)
	}
	ids["hook1"] = created[0].ID
	r = runFake(t, srv, "webhooks", "create", "--event", "CourseCompletedEvent", "--url", "https://example.com/edapp/courses", "-o", "table")
	wantCode(t, r, exitOK)
	hooks, err := srv.Client().Webhooks.List(context.Background())
	if err != nil || len(hooks) != 2 {
		t.Fatalf("list: %v %v", hooks, err)
	}
	ids["hook2"] = hooks[1].ID
	if strings.Contains(r.stdout, "s3cret") {
		t.Error("a header value is printed")
	}

	r = runFake(t, srv, "webhooks", "list", "-o", "table")
	wantCode(t, r, exitOK)
	golden(t, "webhooks_list.golden", stableIDs(r.stdout, ids))
	if strings.Contains(r.stdout, "s3cret") {
		t.Error("the table shows a header value")
	}

	// Not a terminal: JSON by default.
	r = runFake(t, srv, "webhooks", "list")
	wantCode(t, r, exitOK)
	var listed []edapp.Webhook
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil || len(listed) != 2 {
		t.Fatalf("list default: %v\n%s", err, r.stdout)
	}

	r = runFake(t, srv, "webhooks", "delete", ids["hook1"])
	wantCode(t, r, exitOK)
	hooks, _ = srv.Client().Webhooks.List(context.Background())
	if len(hooks) != 1 || hooks[0].ID != ids["hook2"] {
		t.Errorf("after delete: %+v", hooks)
	}
	r = runFake(t, srv, "webhooks", "delete", "no-such-hook")
	wantCode(t, r, exitError)
}

func TestWebhooksListEmptyJSON(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	r := runFake(t, srv, "webhooks", "list", "-o", "json")
	wantCode(t, r, exitOK)
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("got %q", r.stdout)
	}
}

// receiver is an httptest server running the SDK's webhook handler with a
// secret header.
func receiver(t *testing.T) (*httptest.Server, func() []edapp.Event) {
	t.Helper()
	var (
		mu  sync.Mutex
		got []edapp.Event
	)
	h, err := webhook.NewHandler(func(_ context.Context, ev edapp.Event) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, ev)
		return nil
	}, webhook.WithSecretHeader("X-Webhook-Secret", "s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts, func() []edapp.Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]edapp.Event(nil), got...)
	}
}

func TestSendTestEveryEvent(t *testing.T) {
	t.Parallel()
	ts, events := receiver(t)
	for i, name := range edapp.EventNames() {
		r := runEnv(t, env{}, "webhooks", "send-test", "--url", ts.URL+"/edapp/events", "--event", string(name), "--header", "X-Webhook-Secret=s3cret")
		wantCode(t, r, exitOK)
		if !strings.Contains(r.stdout, "200 OK") {
			t.Errorf("%s: %s", name, r.stdout)
		}
		got := events()
		if len(got) != i+1 {
			t.Fatalf("%s: receiver has %d events", name, len(got))
		}
		ev := got[i]
		if ev.Name() != name {
			t.Errorf("received %s, want %s", ev.Name(), name)
		}
		if _, unknown := ev.(*edapp.UnknownEvent); unknown {
			t.Errorf("%s decoded as unknown", name)
		}
	}
	lc := events()[1].(*edapp.LessonCompletedEvent)
	if lc.UserID == "" || lc.LessonID == "" || lc.Score == 0 || lc.Timestamp.IsZero() {
		t.Errorf("lesson completion is not realistic: %+v", lc)
	}
}

func TestSendTestWrongSecretFails(t *testing.T) {
	t.Parallel()
	ts, events := receiver(t)
	r := runEnv(t, env{}, "webhooks", "send-test", "--url", ts.URL, "--event", "LessonCompletedEvent", "--header", "X-Webhook-Secret=wrong")
	wantCode(t, r, exitError)
	if !strings.Contains(r.stdout, "401") {
		t.Errorf("status not printed: %q", r.stdout)
	}
	r = runEnv(t, env{}, "webhooks", "send-test", "--url", ts.URL, "--event", "LessonCompletedEvent")
	wantCode(t, r, exitError)
	if n := len(events()); n != 0 {
		t.Errorf("%d events accepted without the secret", n)
	}
}

func TestSendTestBadInput(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--url", "not a url", "--event", "LessonCompletedEvent"},
		{"--url", "http://127.0.0.1:1", "--event", "NoSuchEvent"},
		{"--url", "http://127.0.0.1:1", "--event", "LessonCompletedEvent", "--header", "novalue"},
		{"--event", "LessonCompletedEvent"},
	} {
		r := runEnv(t, env{}, append([]string{"webhooks", "send-test"}, args...)...)
		wantCode(t, r, exitUsage)
	}
}

// TestWebhooksMaskHeaderValues checks every command that prints a webhook,
// in every output form: no header value unless --show-secrets.
func TestWebhooksMaskHeaderValues(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	const secret = "s3cret-value-Q9"
	create := []string{"webhooks", "create", "--event", "LessonCompletedEvent", "--url", "https://example.com/e", "--header", "X-Webhook-Secret=" + secret}
	for _, args := range [][]string{
		append(create, "-o", "json"),
		append(create, "-o", "table"),
		{"webhooks", "list", "-o", "json"},
		{"webhooks", "list", "-o", "table"},
		{"webhooks", "list"},
	} {
		r := runFake(t, srv, args...)
		wantCode(t, r, exitOK)
		if strings.Contains(r.stdout+r.stderr, secret) || strings.Contains(r.stdout+r.stderr, "s3cret") {
			t.Errorf("%v prints the header value:\n%s", args, r.stdout)
		}
		if !strings.Contains(r.stdout, "X-Webhook-Secret") || !strings.Contains(r.stdout, masked) {
			t.Errorf("%v does not show the header masked:\n%s", args, r.stdout)
		}
	}
	for _, args := range [][]string{
		{"webhooks", "list", "-o", "json", "--show-secrets"},
		{"webhooks", "list", "-o", "table", "--show-secrets"},
		append(create, "-o", "json", "--show-secrets"),
	} {
		r := runFake(t, srv, args...)
		wantCode(t, r, exitOK)
		if !strings.Contains(r.stdout, secret) {
			t.Errorf("%v hides the header value:\n%s", args, r.stdout)
		}
	}
	r := runFake(t, srv, "webhooks", "create", "--event", "LessonCompletedEvent", "--url", "https://example.com/e", "--header", secret)
	wantCode(t, r, exitUsage)
	if strings.Contains(r.stderr, secret) {
		t.Errorf("a malformed --header is echoed: %s", r.stderr)
	}
}

// A service that echoes the request back in an error never gets the
// header value printed.
func TestWebhooksCreateHidesEchoedHeaderValue(t *testing.T) {
	t.Parallel()
	const secret = "s3cret-value-Q9"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"message":"bad webhook: %s"}`, strings.ReplaceAll(string(body), `"`, `'`))
	}))
	defer echo.Close()
	r := runEnv(t, env{"EDAPP_API_TOKEN": "tok-123456789", "EDAPP_BASE_URL": echo.URL},
		"webhooks", "create", "--event", "LessonCompletedEvent", "--url", "https://example.com/e", "--header", "X-Webhook-Secret="+secret)
	wantCode(t, r, exitError)
	if strings.Contains(r.stderr, secret) || !strings.Contains(r.stderr, "X-Webhook-Secret") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}
