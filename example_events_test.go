package edapp_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/edapp-go/edapp"
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
func ExampleNewWebhookHandler() {
	const secretHeader = "X-Webhook-Secret"
	secret := "correct-horse-battery-staple" // from configuration, in real use

	receiver := edapp.NewWebhookHandler(func(ctx context.Context, ev edapp.Event) error {
		switch ev := ev.(type) {
		case *edapp.LessonCompletedEvent:
			fmt.Printf("%s %s completed %q with score %g\n", ev.FirstName, ev.LastName, ev.LessonTitle, ev.Score)
		case *edapp.UnknownEvent:
			fmt.Println("not handled yet:", ev.EventName)
		default:
			fmt.Println("ignored:", ev.Name())
		}
		return nil // an error would answer 500, and the sender could retry
	}, edapp.WithSecretHeader(secretHeader, secret))

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
	deliver(edapp.NewTestDelivery(completed), secret)
	deliver(edapp.NewTestDelivery(&edapp.CoursePublishedEvent{CourseID: "6012ab34cd56ef7890a1b2c3"}), secret)
	deliver([]byte(`{"eventName":"CertificateIssuedEvent","userId":"5c8094a8a2d7bd0013d3b5a1"}`), secret)
	deliver(edapp.NewTestDelivery(completed), "a guess")
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

// ParseEvent decodes one delivery body, whichever spelling the service used.
func ExampleParseEvent() {
	payload := []byte(`{
		"eventName": "LessonCompletedEvent",
		"userId": "5c8094a8a2d7bd0013d3b5a1",
		"username": "amelia.chen",
		"firstName": "Amelia",
		"score": "92.5",
		"timestamp": "2024-05-14T13:19:02+10:00"
	}`)
	ev, err := edapp.ParseEvent(payload)
	if err != nil {
		fmt.Println(err)
		return
	}
	e := ev.(*edapp.LessonCompletedEvent)
	fmt.Println(e.Name(), e.UserName, e.FirstName, e.Score, e.Timestamp)
	// Output:
	// LessonCompletedEvent amelia.chen Amelia 92.5 2024-05-14T03:19:02.000Z
}
