package edapp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func FuzzTime(f *testing.F) {
	for _, s := range []string{
		`"2019-03-07T05:10:36.187Z"`, `"2019-03-07T05:10:36"`, `"2019-03-07T15:10:36+10:00"`,
		`null`, `""`, `"2019-03-07"`, `"\u0032019-03-07"`, `12`,
		`"\/"`,                               // valid JSON, but an escape strconv refuses
		`"a` + strings.Repeat("é", 40) + `"`, // the error's excerpt cuts on a rune boundary
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var tm Time
		if err := json.Unmarshal(data, &tm); err != nil {
			return
		}
		// Whatever was accepted marshals and reads back to the same instant
		// (to the millisecond, which is what goes out).
		b, err := json.Marshal(tm)
		if err != nil {
			if tm.Year() < 0 || tm.Year() > 9999 {
				return // outside RFC 3339's years
			}
			t.Fatalf("marshal %v: %v", tm, err)
		}
		var back Time
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("round trip of %s: %v", b, err)
		}
		if !back.Equal(tm.Truncate(time.Millisecond)) && !tm.IsZero() {
			t.Fatalf("round trip changed %v to %v", tm.Time, back.Time)
		}
	})
}

// FuzzAppendJSONTime: appendJSONTime writes what jsonTimeLayout does, for
// every instant of a four-digit year, in every zone.
func FuzzAppendJSONTime(f *testing.F) {
	f.Add(int64(1551935436), int64(187654321), 0)
	f.Add(int64(-62135596800), int64(0), 36000)         // year 1
	f.Add(int64(253402300799), int64(999999999), -3600) // 9999-12-31T23:59:59.999
	f.Add(int64(253402300800), int64(0), 0)             // year 10000
	f.Add(int64(-62167219201), int64(5), 60)            // year -1
	f.Fuzz(func(t *testing.T, sec, nsec int64, offset int) {
		tm := time.Unix(sec, nsec).In(time.FixedZone("", offset%86400))
		u := tm.UTC()
		if !fourDigitYear(u) {
			return // MarshalJSON refuses it; String uses the layout
		}
		want := u.Format(jsonTimeLayout)
		if got := string(appendJSONTime([]byte("x"), u)); got != "x"+want {
			t.Fatalf("appendJSONTime(%v) = %q, want %q", tm, got, "x"+want)
		}
	})
}
