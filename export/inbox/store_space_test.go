package inbox

import (
	"errors"
	"testing"

	"github.com/edapp-go/edapp/webhook"
)

type fullError struct{}

func (fullError) Error() string { return "database or disk is full" }
func (fullError) Code() int     { return 13 }

func TestOutOfSpaceIsUnavailable(t *testing.T) {
	t.Parallel()
	if !errors.Is(outOfSpace(fullError{}), webhook.ErrUnavailable) {
		t.Error("a database out of room is not webhook.ErrUnavailable")
	}
}
