package edapp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

// Link an event to a receiving URL. The answer's MessageFormat tells the
// type of each field that deliveries will carry.
func ExampleWebhooksService_Create() {
	srv, err := edapptest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()

	wh, err := client.Webhooks.Create(context.Background(), edapp.WebhookCreateParams{
		EventName:  edapp.EventLessonCompleted,
		WebHookURL: "https://hooks.example.com/edapp/events",
		Headers:    map[string]string{"X-Webhook-Secret": "correct-horse-battery-staple"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(wh.EventName, wh.WebHookURL)
	fmt.Println("score is a", wh.MessageFormat["score"])

	// A name that is not one of the ten is refused before any request.
	_, err = client.Webhooks.Create(context.Background(), edapp.WebhookCreateParams{
		EventName: "UserCreatedEvent", WebHookURL: "https://hooks.example.com/edapp/events",
	})
	fmt.Println(err)
	// Output:
	// LessonCompletedEvent https://hooks.example.com/edapp/events
	// score is a number
	// edapp: invalid input: event name "UserCreatedEvent" is not one of the ten webhook event names
}
