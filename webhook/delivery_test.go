package webhook_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/webhook"
)

// TestNewTestDelivery checks that a delivery decodes to the event it was
// made from, for every fixture.
func TestNewTestDelivery(t *testing.T) {
	t.Parallel()
	for _, file := range eventFixtures(t) {
		t.Run(file, func(t *testing.T) {
			want, err := edapp.ParseEvent(readEventFixture(t, file))
			if err != nil {
				t.Fatal(err)
			}
			body := webhook.NewTestDelivery(want)
			got, err := edapp.ParseEvent(body)
			if err != nil {
				t.Fatalf("ParseEvent(%s): %v", body, err)
			}
			if got.Name() != want.Name() || edapp.EventKey(got) != edapp.EventKey(want) {
				t.Errorf("delivery decodes to another event: %s", body)
			}
			if again := webhook.NewTestDelivery(got); !bytes.Equal(again, body) {
				t.Errorf("second delivery differs:\n%s\n%s", again, body)
			}
		})
	}
	t.Run("unknown event gives its raw payload", func(t *testing.T) {
		raw := []byte(`{"eventName":"X","a":[1]} `)
		got := webhook.NewTestDelivery(&edapp.UnknownEvent{EventName: "X", Raw: raw})
		if !bytes.Equal(got, raw) {
			t.Fatalf("got %s", got)
		}
		got[0] = 'x'
		if raw[0] != '{' {
			t.Fatal("NewTestDelivery shares Raw")
		}
		if got := webhook.NewTestDelivery(&edapp.UnknownEvent{EventName: `Odd"Name`}); string(got) != `{"eventName":"Odd\"Name"}` {
			t.Fatalf("got %s", got)
		}
		if got := webhook.NewTestDelivery(&edapp.UnknownEvent{Raw: []byte("not json")}); string(got) != "not json" {
			t.Fatalf("got %s", got)
		}
	})
	for name, ev := range map[string]edapp.Event{
		"nil":         nil,
		"typed nil":   (*edapp.LessonCompletedEvent)(nil),
		"NaN score":   &edapp.LessonCompletedEvent{Score: math.NaN()},
		"nil unknown": (*edapp.UnknownEvent)(nil),
	} {
		t.Run("panics on "+name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			webhook.NewTestDelivery(ev)
		})
	}
}
