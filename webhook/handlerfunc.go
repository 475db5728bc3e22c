package webhook

import (
	"context"
	"fmt"
	"net/http"

	"github.com/edapp-go/edapp"
)

// NewHandlerFunc returns a Handler for another service's deliveries: parse
// checks and decodes each body in place of [edapp.ParseEvent] (a signature
// check belongs there), and says what to answer when it fails (a status,
// 401 or 400 say); fn gets each event parse returned, with the request's
// context. Everything else is [NewHandler]'s: its options, bounds, answers
// and panic safety. An event with a Key() string method is logged under
// that key, and under [edapp.EventKey] otherwise; one with a Result() string
// method has what it returns once fn is done logged as the delivery's
// result (the inbox's store says stored or duplicate). A nil parse or fn, or a
// bad option value, is an error wrapping [edapp.ErrInvalidInput].
//
// A parse that fails with a status outside 400-599 answers 400.
func NewHandlerFunc[E edapp.Event](parse func(h http.Header, body []byte) (E, int, error), fn func(context.Context, E) error, opts ...Option) (*Handler, error) {
	if parse == nil || fn == nil {
		return nil, fmt.Errorf("%w: webhook.NewHandlerFunc needs a parse and an event function", edapp.ErrInvalidInput)
	}
	h, err := newHandler(func(ctx context.Context, d *delivery) error {
		ev := d.event.(E) // parse below put it there
		if k, ok := any(ev).(interface{ Key() string }); ok {
			d.key = k.Key()
		}
		err := fn(ctx, ev)
		if r, ok := any(ev).(interface{ Result() string }); ok {
			d.result = r.Result()
		}
		return err
	}, opts)
	if err != nil {
		return nil, err
	}
	h.parse = func(hd http.Header, body []byte) (edapp.Event, int, error) {
		ev, status, err := parse(hd, body)
		if err != nil {
			if status < 400 || status > 599 {
				status = http.StatusBadRequest
			}
			return nil, status, err
		}
		return ev, http.StatusOK, nil
	}
	return h, nil
}
