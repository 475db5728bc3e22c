package webhook_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/webhook"
)

// A receiver of webhook deliveries. EdApp does not sign deliveries, so the
// receiver checks a shared secret header, which the webhook link carries:
//
//	client.Webhooks.Create(ctx, edapp.WebhookCreateParams{
//		EventName:  edapp.EventLessonCompleted,
//		WebHookURL: "https://example.com/edapp/events",
//		Headers:    map[string]string{"X-Webhook-Secret": secret},
//	})
//
// Here the deliveries are simulated with NewTestDelivery.
func ExampleNewHandler() {
	const secretHeader = "X-Webhook-Secret"
	secret := "correct-horse-battery-staple" // from configuration, in real use

	receiver, err := webhook.NewHandler(func(ctx context.Context, ev edapp.Event) error {
		switch ev := ev.(type) {
		case *edapp.LessonCompletedEvent:
			fmt.Printf("%s %s completed %q with score %g\n", ev.FirstName, ev.LastName, ev.LessonTitle, ev.Score)
		case *edapp.UnknownEvent:
			fmt.Println("not handled yet:", ev.EventName)
		default:
			fmt.Println("ignored:", ev.Name())
		}
		return nil // an error would answer 500, and the sender could retry
	}, webhook.WithSecretHeader(secretHeader, secret))
	if err != nil {
		fmt.Println(err)
		return
	}

	srv := httptest.NewServer(receiver)
	defer srv.Close()

	deliver := func(body []byte, secretValue string) {
		req, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(secretHeader, secretValue)
		resp, err := srv.Client().Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Println(resp.Status)
	}

	completed := &edapp.LessonCompletedEvent{
		UserID:      "5c8094a8a2d7bd0013d3b5a1",
		UserName:    "amelia.chen",
		Email:       "amelia.chen@example.com",
		FirstName:   "Amelia",
		LastName:    "Chen",
		CourseID:    "5f1e2d3c4b5a69788796a5b4",
		CourseTitle: "Workplace Health & Safety Essentials",
		LessonID:    "5f1e2e0a4b5a69788796a5c7",
		LessonTitle: "Manual Handling: Lifting Safely",
		Score:       87.5,
	}
	deliver(webhook.NewTestDelivery(completed), secret)
	deliver(webhook.NewTestDelivery(&edapp.CoursePublishedEvent{CourseID: "6012ab34cd56ef7890a1b2c3"}), secret)
	deliver([]byte(`{"eventName":"CertificateIssuedEvent","userId":"5c8094a8a2d7bd0013d3b5a1"}`), secret)
	deliver(webhook.NewTestDelivery(completed), "a guess")
	deliver([]byte(`{"eventName":`), secret)

	// Output:
	// Amelia Chen completed "Manual Handling: Lifting Safely" with score 87.5
	// 200 OK
	// ignored: CoursePublishedEvent
	// 200 OK
	// not handled yet: CertificateIssuedEvent
	// 200 OK
	// 401 Unauthorized
	// 400 Bad Request
}
