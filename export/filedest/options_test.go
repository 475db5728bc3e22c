package filedest

import (
	"errors"
	"testing"

	"github.com/edapp-go/edapp"
)

// Open reports the first bad option value as an error wrapping
// edapp.ErrInvalidInput; nothing is clamped.
func TestOpenReportsTheFirstBadOption(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Open(dir, WithFormat("csv"), WithPartSize(0)); !errors.Is(err, edapp.ErrInvalidInput) {
		t.Errorf("WithPartSize(0): %v", err)
	}
	if f, err := Open(dir, WithFormat("csv"), nil, WithPartSize(1)); err != nil {
		t.Errorf("a nil option is skipped: %v", err)
	} else {
		f.Close()
	}
	if _, err := Open(dir, WithFormat("xml")); !errors.Is(err, edapp.ErrInvalidInput) {
		t.Errorf("format xml: %v", err)
	}
}
