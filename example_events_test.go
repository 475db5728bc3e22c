package edapp_test

import (
	"fmt"

	"github.com/edapp-go/edapp"
)

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
