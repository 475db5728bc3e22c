package webhook

import (
	"context"
	"fmt"
	"net/http"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/bridge"
)

// The bridge lets package safetyculture receive its own envelope with this
// package's Handler, without a public API of its own here.
func init() {
	bridge.NewWebhookHandler = newBridgedHandler
}

func newBridgedHandler(parse bridge.ParseDelivery, receive func(context.Context, any) error, opts any) (http.Handler, error) {
	wo, _ := opts.([]Option)
	h, err := newHandler(func(ctx context.Context, d *delivery) error {
		if k, ok := d.event.(interface{ Key() string }); ok {
			d.key = k.Key()
		}
		return receive(ctx, d.event)
	}, wo)
	if err != nil {
		return nil, err
	}
	h.parse = func(hd http.Header, body []byte) (edapp.Event, int, error) {
		ev, status, err := parse(hd, body)
		if err != nil {
			return nil, status, err
		}
		e, ok := ev.(edapp.Event)
		if !ok {
			return nil, http.StatusInternalServerError, fmt.Errorf("webhook: %T is not an edapp.Event", ev)
		}
		return e, http.StatusOK, nil
	}
	return h, nil
}
