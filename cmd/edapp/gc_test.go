package main

import "testing"

func TestGCPercent(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GOGC" {
				return v
			}
			return ""
		}
	}
	if p, ok := gcPercent(env("")); !ok || p != 200 {
		t.Errorf("GOGC unset: %d, %v; want 200, true", p, ok)
	}
	for _, v := range []string{"100", "off"} {
		if _, ok := gcPercent(env(v)); ok {
			t.Errorf("GOGC=%s: gcPercent overrides it", v)
		}
	}
}
