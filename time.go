package edapp

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/edapp-go/edapp/internal/core"
)

// Time is a datetime as the service sends it: ISO 8601, usually UTC with
// milliseconds ("2019-03-07T05:10:36.187Z"). Decoding also accepts a space
// instead of the "T" ("2026-11-22 01:35:07.123456"), any number of
// fractional digits or none, a zone written +10:00, +1000 or +10, no zone at
// all (taken as UTC), and a bare date. JSON null and "" give the zero time.
// Encoding writes RFC 3339 with milliseconds in UTC, or null for the zero time.
type Time struct {
	time.Time
}

// timeLayouts are tried in order, after a space between date and time has
// become a "T". Go's parser accepts any number of fractional digits after a
// seconds field, so one layout covers "with and without fractions" for each
// zone form.
var timeLayouts = []string{
	time.RFC3339Nano,                     // 2019-03-07T05:10:36.187Z, +10:00, no fraction
	"2006-01-02T15:04:05.999999999",      // no zone: UTC
	"2006-01-02T15:04:05.999999999Z0700", // +1000
	"2006-01-02T15:04:05.999999999Z07",   // +10
	"2006-01-02",
}

// jsonTimeLayout is what MarshalJSON writes: RFC 3339, milliseconds, UTC.
const jsonTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// ParseTime parses a datetime in any form that [Time] accepts. The empty string
// gives the zero time.
func ParseTime(s string) (Time, error) {
	if s == "" {
		return Time{}, nil
	}
	v := s
	if len(v) > 10 && v[10] == ' ' {
		v = v[:10] + "T" + v[11:] // 2026-11-22 01:35:07: Python's str(datetime)
	}
	for _, layout := range timeLayouts {
		t, err := time.Parse(layout, v)
		if err == nil {
			if y := t.UTC().Year(); y < 0 || y > 9999 {
				// Its UTC form would need a year RFC 3339 cannot write.
				return Time{}, fmt.Errorf("edapp: invalid datetime %q: year outside 0000-9999 in UTC", core.Excerpt(s, 64))
			}
			return Time{t}, nil
		}
	}
	return Time{}, fmt.Errorf("edapp: invalid datetime %q", core.Excerpt(s, 64))
}

// UnmarshalJSON accepts a JSON string in any supported form, "" or null.
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*t = Time{}
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("edapp: invalid datetime %s: not a JSON string", core.Excerpt(string(b), 64))
	}
	// The usual form, RFC 3339, parses straight from the bytes, unescaped
	// and uncopied; anything else takes the path below.
	if t.Time.UnmarshalJSON(b) == nil {
		// Years 0001 to 9998 stay within 0000-9999 in UTC whatever the offset.
		if y := string(b[1:5]); y > "0000" && y < "9999" {
			return nil
		}
		if y := t.UTC().Year(); y >= 0 && y <= 9999 {
			return nil
		}
	}
	s := string(b[1 : len(b)-1])
	if bytes.IndexByte(b[1:len(b)-1], '\\') >= 0 {
		// Rare: an escaped string. Let strconv undo the escapes.
		u, err := strconv.Unquote(string(b))
		if err != nil {
			return fmt.Errorf("edapp: invalid datetime %s", core.Excerpt(string(b), 64))
		}
		s = u
	}
	parsed, err := ParseTime(s)
	if err != nil {
		return err
	}
	*t = parsed
	return nil
}

// MarshalJSON writes RFC 3339 with milliseconds in UTC, or null for the zero time.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	u := t.UTC()
	if !fourDigitYear(u) {
		// RFC 3339 has four-digit years; ParseTime could not read it back.
		return nil, fmt.Errorf("edapp: datetime %v: year outside 0000-9999", t.Time)
	}
	b := make([]byte, 0, len(jsonTimeLayout)+2)
	b = append(b, '"')
	b = appendJSONTime(b, u)
	return append(b, '"'), nil
}

// fourDigitYear reports whether u's year is within 0000-9999.
func fourDigitYear(u time.Time) bool {
	y := u.Year()
	return y >= 0 && y <= 9999
}

// appendJSONTime appends u, in UTC and of a four-digit year, as
// jsonTimeLayout formats it. Package time formats RFC 3339 by a path of
// its own, without reading a layout: that and the milliseconds appended
// here take a third of the time of formatting the layout, which was most
// of what encoding a record's times cost.
func appendJSONTime(b []byte, u time.Time) []byte {
	b = u.AppendFormat(b, time.RFC3339) // seconds, then Z
	ms := u.Nanosecond() / 1e6
	return append(b[:len(b)-1], '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}

// String formats the time as MarshalJSON does, without quotes; "" for zero.
func (t Time) String() string {
	if t.IsZero() {
		return ""
	}
	u := t.UTC()
	if !fourDigitYear(u) {
		return u.Format(jsonTimeLayout)
	}
	return string(appendJSONTime(make([]byte, 0, len(jsonTimeLayout)), u))
}

// Ptr returns a pointer to v. It builds the pointer fields of update params:
//
//	client.Users.Update(ctx, id, edapp.UserUpdateParams{TimeZone: edapp.Ptr("Australia/Sydney")})
func Ptr[T any](v T) *T { return &v }
