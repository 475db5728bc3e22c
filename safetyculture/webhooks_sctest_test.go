package safetyculture

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

const courseCompleted = "TRIGGER_EVENT_TRAINING_COURSE_COMPLETED"

// TestWebhooksCRUDAgainstSctest registers, reads, changes and removes a
// webhook on sctest, and reads the signature secret.
func TestWebhooksCRUDAgainstSctest(t *testing.T) {
	t.Parallel()
	fake := sctest.New(t)
	hooks := clientOf(t, fake).Webhooks
	ctx := testCtx(t)

	created, err := hooks.Create(ctx, WebhookCreateParams{URL: "https://example.com/a", TriggerEvents: []string{courseCompleted}})
	if err != nil || created.ID == "" || created.URL != "https://example.com/a" || len(created.TriggerEvents) != 1 {
		t.Fatalf("Create: %+v, %v", created, err)
	}
	updated, err := hooks.Update(ctx, created.ID, WebhookUpdateParams{URL: "https://example.com/b", TriggerEvents: []string{courseCompleted}})
	if err != nil || updated.ID != created.ID || updated.URL != "https://example.com/b" {
		t.Fatalf("Update: %+v, %v", updated, err)
	}
	got, err := hooks.Get(ctx, created.ID)
	if err != nil || got.URL != "https://example.com/b" {
		t.Fatalf("Get: %+v, %v", got, err)
	}
	list, err := hooks.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != created.ID {
		t.Fatalf("List: %+v, %v", list, err)
	}
	if err := hooks.Delete(ctx, created.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := hooks.Get(ctx, created.ID); !errors.Is(err, edapp.ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
	secret, err := hooks.Secret(ctx)
	if err != nil || secret.Value() != fake.WebhookSecret() {
		t.Errorf("Secret: %v (matches the fake's: %v)", err, secret.Value() == fake.WebhookSecret())
	}
}

// TestSignedDeliveryFromSctest registers a receiver built with
// NewWebhookHandler, has the fake deliver a course completion, and checks
// that the delivery verifies, and that a forged one does not.
func TestSignedDeliveryFromSctest(t *testing.T) {
	t.Parallel()
	fake := sctest.New(t)
	uid, _ := fake.AddUser(sctest.UserSpec{Email: "ana@example.com", FirstName: "Ana"})
	cid, lids, err := fake.AddCourse(sctest.CourseSpec{Title: "Induction", Lessons: []sctest.LessonSpec{{Title: "Welcome"}}})
	must(t, err)
	sc := clientOf(t, fake)
	ctx := testCtx(t)
	secret, err := sc.Webhooks.Secret(ctx)
	must(t, err)

	var mu sync.Mutex
	var received []*WebhookEvent
	h, err := NewWebhookHandler(secret.Value(), func(_ context.Context, ev *WebhookEvent) error {
		mu.Lock()
		defer mu.Unlock()
		received = append(received, ev)
		return nil
	})
	must(t, err)
	receiver := httptest.NewServer(h)
	t.Cleanup(receiver.Close)
	_, err = sc.Webhooks.Create(ctx, WebhookCreateParams{URL: receiver.URL, TriggerEvents: []string{courseCompleted}})
	must(t, err)

	must(t, fake.CompleteLesson(uid, lids[0], 90, time.Time{}))
	deliveries := fake.Deliveries()
	if len(deliveries) != 1 || deliveries[0].Status != http.StatusOK {
		t.Fatalf("deliveries: %+v", deliveries)
	}
	d := deliveries[0]
	if err := VerifySignature(d.Body, d.Signature, secret.Value()); err != nil {
		t.Errorf("VerifySignature of the fake's delivery: %v", err)
	}
	if err := VerifySignature(append(d.Body, ' '), d.Signature, secret.Value()); !errors.Is(err, ErrBadSignature) {
		t.Errorf("VerifySignature of a changed body: %v, want ErrBadSignature", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(received) != 1 || received[0].Resource.ID != cid || received[0].Name() != courseCompleted {
		t.Fatalf("received: %+v", received)
	}
}
