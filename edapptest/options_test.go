package edapptest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
)

// Every option reports a bad value as the constructor's error wrapping
// edapp.ErrInvalidInput, the first one given; nothing is clamped or
// ignored. Nil (a logger) and zero (latency, redeliveries) are good only
// where the option documents what they mean.
func TestNewServerOptions(t *testing.T) {
	t.Parallel()
	clock := func() time.Time { return time.Unix(0, 0) }
	for _, tc := range []struct {
		name string
		opts []Option
		ok   bool
	}{
		{"no options", nil, true},
		{"a nil option is skipped", []Option{nil}, true},
		{"a token", []Option{WithToken("t0ken")}, true},
		{"empty token", []Option{WithToken("")}, false},
		{"blank token", []Option{WithToken(" ")}, false},
		{"a clock", []Option{WithClock(clock)}, true},
		{"nil clock", []Option{WithClock(nil)}, false},
		{"no latency", []Option{WithLatency(0)}, true},
		{"negative latency", []Option{WithLatency(-time.Millisecond)}, false},
		{"nil logger: silent", []Option{WithLogger(nil)}, true},
		{"a budget", []Option{WithBudget(5, time.Minute)}, true},
		{"zero budget", []Option{WithBudget(0, time.Minute)}, false},
		{"zero budget window", []Option{WithBudget(5, 0)}, false},
		{"no redeliveries", []Option{WithRedeliveries(0)}, true},
		{"negative redeliveries", []Option{WithRedeliveries(-1)}, false},
		{"the first bad value", []Option{WithClock(nil), WithLatency(-1)}, false},
	} {
		s, err := newServer(tc.opts...)
		if tc.ok != (err == nil) || !tc.ok && (s != nil || !errors.Is(err, edapp.ErrInvalidInput)) {
			t.Errorf("%s: newServer = %v, %v", tc.name, s, err)
		}
	}
	if _, err := newServer(WithClock(nil), WithLatency(-1)); err == nil || !strings.Contains(err.Error(), "WithClock") {
		t.Errorf("the first bad value is reported: %v", err)
	}
}

// NewServer returns the option's error and starts nothing; New fails the
// test with it.
func TestConstructorsReportABadOption(t *testing.T) {
	t.Parallel()
	if s, err := NewServer(WithClock(nil)); s != nil || !errors.Is(err, edapp.ErrInvalidInput) {
		t.Errorf("NewServer(WithClock(nil)) = %v, %v; want nil and an ErrInvalidInput", s, err)
	}
	tb := &fatalRecorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		New(tb, WithBudget(0, time.Minute))
	}()
	if !strings.Contains(tb.fatal, "WithBudget") || !strings.Contains(tb.fatal, edapp.ErrInvalidInput.Error()) {
		t.Errorf("New(WithBudget(0, ...)) failed the test with %q", tb.fatal)
	}
}

// fatalRecorder records Fatal's message and stops the caller with a panic,
// as t.Fatal stops a test.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	panic(r)
}
