package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/webhook"
)

// TestNewHandlerRefusesBadOptions: every bad value is an error of the
// constructor, none a default or a clamp.
func TestNewHandlerRefusesBadOptions(t *testing.T) {
	t.Parallel()
	fn := func(context.Context, edapp.Event) error { return nil }
	for name, opt := range map[string]webhook.Option{
		"empty secret value":     webhook.WithSecretHeader("X-Webhook-Secret", ""),
		"empty secret name":      webhook.WithSecretHeader("", "s3cret"),
		"secret name with space": webhook.WithSecretHeader("X Webhook", "s3cret"),
		"secret name with colon": webhook.WithSecretHeader("X-Webhook:", "s3cret"),
		"zero body size":         webhook.WithMaxBodyBytes(0),
		"negative body size":     webhook.WithMaxBodyBytes(-1),
		"zero read timeout":      webhook.WithReadTimeout(0),
		"negative read timeout":  webhook.WithReadTimeout(-time.Second),
		"zero in flight":         webhook.WithMaxInFlight(0),
		"negative in flight":     webhook.WithMaxInFlight(-3),
	} {
		t.Run(name, func(t *testing.T) {
			h, err := webhook.NewHandler(fn, opt)
			if h != nil || !errors.Is(err, edapp.ErrInvalidInput) {
				t.Fatalf("NewHandler = %v, %v; want an ErrInvalidInput", h, err)
			}
			if s := fmt.Sprint(err); strings.Contains(s, "s3cret") {
				t.Errorf("error shows the secret: %s", s)
			}
		})
	}
	if _, err := webhook.NewHandler(nil); !errors.Is(err, edapp.ErrInvalidInput) {
		t.Errorf("nil fn: %v", err)
	}
	if _, err := webhook.NewHandler(fn, nil); err != nil {
		t.Errorf("a nil option is ignored: %v", err)
	}
	if _, err := webhook.NewHandler(fn, webhook.WithLogger(nil)); err != nil {
		t.Errorf("WithLogger(nil) means silent, as edapp.WithLogger(nil): %v", err)
	}
}
