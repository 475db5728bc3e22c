package export

import (
	"context"
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

// TestRunOverlapAtLeastTheSources: each source refuses an overlap below
// its own (EdApp 10 minutes, SafetyCulture 2 h 15 min) before anything
// is fetched or written, and takes a larger one for every incremental
// kind.
func TestRunOverlapAtLeastTheSources(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func(Options) error
		min  time.Duration
	}{
		{"edapp", func(o Options) error { _, err := Run(ctx, nil, o); return err }, Overlap},
		{"safetyculture", func(o Options) error { _, err := RunSafetyCulture(ctx, nil, o); return err }, SafetyCultureOverlap},
	} {
		// No client and no destination: a run past the check fails on
		// them, not on the overlap.
		for _, bad := range []time.Duration{-time.Second, time.Second, tc.min - time.Second} {
			if err := tc.run(Options{Overlap: bad}); !errors.Is(err, edapp.ErrInvalidInput) {
				t.Errorf("%s: overlap %s: %v, want ErrInvalidInput", tc.name, bad, err)
			}
		}
		if err := tc.run(Options{Overlap: tc.min}); errors.Is(err, edapp.ErrInvalidInput) {
			t.Errorf("%s: overlap %s refused: %v", tc.name, tc.min, err)
		}
	}
}
