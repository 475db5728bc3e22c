package main

import (
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{
		"7d":      7 * 24 * time.Hour,
		"36h":     36 * time.Hour,
		"2w":      14 * 24 * time.Hour,
		"1w2d12h": 9*24*time.Hour + 12*time.Hour,
		"0d":      0,
		"90m":     90 * time.Minute,
		"1d30m":   24*time.Hour + 30*time.Minute,
	} {
		if got, err := parseDuration(in); err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "7", "7dd", "2d1w", "-7d", "1d-1h", "99999999999999w", "7days"} {
		if got, err := parseDuration(in); err == nil {
			t.Errorf("parseDuration(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseSinceDays(t *testing.T) {
	t.Parallel()
	now := mustTime(t, "2026-03-10T12:00:00Z")
	for in, want := range map[string]string{
		"7d":  "2026-03-03T12:00:00Z",
		"36h": "2026-03-09T00:00:00Z",
		"2w":  "2026-02-24T12:00:00Z",
	} {
		got, err := parseSince(in, now)
		if err != nil || !got.Equal(mustTime(t, want)) {
			t.Errorf("parseSince(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	if _, err := parseSince("7 days", now); err == nil {
		t.Error(`"7 days" was accepted`)
	}
}
