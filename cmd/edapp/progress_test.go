package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestBarProgress(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	p := newProgress(context.Background(), &out, true)
	tr := p.track("attempts")
	tr.setTotal(10)
	for range 10 {
		tr.add(1, 0)
	}
	tr.add(0, 1500*time.Millisecond)
	tr.parents(3, 5)
	tr.done(nil)
	p.wait()
	got := out.String()
	for _, want := range []string{"attempts", "10 / 10", "rec/s", "waited 1.5s", "3/5 parents"} {
		if !strings.Contains(got, want) {
			t.Errorf("bar output has no %q:\n%q", want, got)
		}
	}
}

func TestLogProgress(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	p := newProgress(context.Background(), &out, false)
	tr := p.track("users")
	tr.setTotal(3)
	tr.add(3, 2*time.Second)
	tr.done(nil)
	tr = p.track("attempts")
	tr.add(5, 0)
	tr.done(errors.New("boom"))
	p.wait()
	got := out.String()
	for _, want := range []string{"users: done, 3/3 records", "waited 2s)", "attempts: stopped after 5 records", "boom"} {
		if !strings.Contains(got, want) {
			t.Errorf("log output has no %q:\n%s", want, got)
		}
	}
}
