package opt

import (
	"errors"
	"testing"
)

type config struct{ a, b int }

type option func(*config) error

// TestApplyStopsAtTheFirstError: options apply in order, a nil one is
// skipped, and the first bad value's error is returned with nothing after
// it applied.
func TestApplyStopsAtTheFirstError(t *testing.T) {
	t.Parallel()
	bad := errors.New("bad")
	var cfg config
	err := Apply(&cfg, []option{
		func(c *config) error { c.a = 1; return nil },
		nil,
		func(*config) error { return bad },
		func(c *config) error { c.b = 2; return nil },
	})
	if !errors.Is(err, bad) || cfg.a != 1 || cfg.b != 0 {
		t.Fatalf("err %v, config %+v; want the first error and nothing after it", err, cfg)
	}
}
