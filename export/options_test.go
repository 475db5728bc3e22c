package export

import (
	"errors"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
)

// Every constructor of the export reports the first bad option value as
// an error wrapping edapp.ErrInvalidInput; nothing is clamped.
func TestOptionsReportTheFirstBadValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		o    Options
		ok   bool
	}{
		{"defaults", Options{}, true},
		{"open window off", Options{NoOpenWindow: true}, true},
		{"largest page", Options{PageSize: edapp.MaxPageSize}, true},
		{"negative concurrency", Options{Concurrency: -1}, false},
		{"concurrency over 64", Options{Concurrency: 65}, false},
		{"negative page size", Options{PageSize: -1}, false},
		{"page size over the service's most", Options{PageSize: edapp.MaxPageSize + 1}, false},
		{"negative open window, once a sentinel", Options{OpenWindow: -time.Hour}, false},
		{"negative max age", Options{MaxAge: -time.Second}, false},
		{"the first bad value", Options{Concurrency: -1, PageSize: -1}, false},
	} {
		err := checkOptions(tc.o)
		if tc.ok != (err == nil) || !tc.ok && !errors.Is(err, edapp.ErrInvalidInput) {
			t.Errorf("%s: checkOptions = %v", tc.name, err)
		}
	}

}
