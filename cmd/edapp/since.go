package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"time"
)

// weeksDays matches the leading weeks and days of a duration such as
// "2w", "7d" or "1w2d12h"; what follows is a Go duration.
var weeksDays = regexp.MustCompile(`^(?:(\d+)w)?(?:(\d+)d)?`)

// parseDuration reads a Go duration ("36h", "90m") that may start with
// weeks and days ("2w", "7d", "1d12h"), which time.ParseDuration lacks.
func parseDuration(s string) (time.Duration, error) {
	m := weeksDays.FindStringSubmatch(s)
	var d time.Duration
	if rest := s[len(m[0]):]; rest != "" || m[0] == "" {
		var err error
		if d, err = time.ParseDuration(rest); err != nil {
			return 0, err
		}
	}
	if m[0] == "" {
		return d, nil
	}
	return addDays(d, m[1], m[2], s)
}

// addDays adds weeks and days (decimal strings, possibly empty) to d.
func addDays(d time.Duration, weeks, days, s string) (time.Duration, error) {
	var n int64
	for _, part := range []struct {
		digits string
		per    int64
	}{{weeks, 7}, {days, 1}} {
		if part.digits == "" {
			continue
		}
		v, err := strconv.ParseInt(part.digits, 10, 64)
		if err != nil || v > math.MaxInt64/int64(24*time.Hour)/part.per-n {
			return 0, fmt.Errorf("duration %q is too long", s)
		}
		n += v * part.per
	}
	days24 := time.Duration(n) * 24 * time.Hour
	if d > 0 && days24 > math.MaxInt64-d || d < 0 {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	return days24 + d, nil
}
