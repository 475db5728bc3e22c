package webhook

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/edapp-go/edapp"
)

// NewTestDelivery returns a delivery body for ev, as the service would send
// it to a webhook URL, eventName included. For an *[edapp.UnknownEvent] it
// returns a copy of Raw as it is (valid JSON or not, so that tests can also
// send bodies a receiver must reject), or {"eventName": ...} when Raw is
// empty. It is meant for tests of receivers:
//
//	body := webhook.NewTestDelivery(&edapp.LessonCompletedEvent{UserID: "u1", Score: 90})
//	req := httptest.NewRequest(http.MethodPost, "/edapp/events", bytes.NewReader(body))
//
// Like httptest.NewRequest, it panics on input it cannot use: a nil event or
// one that does not encode (a NaN score).
func NewTestDelivery(ev edapp.Event) []byte {
	if u, ok := ev.(*edapp.UnknownEvent); ok && u != nil {
		if len(u.Raw) > 0 {
			return bytes.Clone(u.Raw)
		}
		b, _ := json.Marshal(struct {
			EventName edapp.EventName `json:"eventName"`
		}{u.EventName}) // a string always encodes
		return b
	}
	b, err := json.Marshal(ev)
	if err == nil && string(b) == "null" {
		err = errors.New("nil event")
	}
	if err != nil {
		panic("webhook: NewTestDelivery: " + err.Error())
	}
	return b
}
