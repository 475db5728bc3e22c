package edapp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimeAcceptsEveryListedForm(t *testing.T) {
	t.Parallel()
	want := time.Date(2019, 3, 7, 5, 10, 36, 187_000_000, time.UTC)
	whole := want.Truncate(time.Second)
	for in, exp := range map[string]time.Time{
		`"2019-03-07T05:10:36.187Z"`:          want,  // the spec's sample: milliseconds, Z
		`"2019-03-07T05:10:36Z"`:              whole, // no fraction
		`"2019-03-07T05:10:36.187"`:           want,  // no zone: UTC
		`"2019-03-07T05:10:36"`:               whole, // neither
		`"2019-03-07T15:10:36.187+10:00"`:     want,  // another zone
		`"2019-03-07T05:10:36.1870000+00:00"`: want,  // .NET-style 7 digits
		`"2019-03-07T15:10:36.187+1000"`:      want,  // zone without colon
		`"2019-03-07 05:10:36.187Z"`:          want,  // space separator
		`"2019-03-07"`:                        time.Date(2019, 3, 7, 0, 0, 0, 0, time.UTC),
		`null`:                                {},
		`""`:                                  {},
	} {
		var got Time
		require.NoError(t, json.Unmarshal([]byte(in), &got), in)
		assert.True(t, exp.Equal(got.Time), "%s: got %v want %v", in, got.Time, exp)
	}
}

func TestTimeRejectsOtherValues(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`"yesterday"`, `"07/03/2019"`, `12345`, `true`, `{}`, `"2019-13-45T00:00:00Z"`} {
		var got Time
		err := json.Unmarshal([]byte(in), &got)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), "invalid datetime", in)
	}
	_, err := ParseTime("not a date")
	assert.ErrorContains(t, err, `"not a date"`, "the error names the value")
}

func TestTimeMarshalsRFC3339MillisUTC(t *testing.T) {
	t.Parallel()
	in := Time{time.Date(2019, 3, 7, 15, 10, 36, 187_654_321, time.FixedZone("AEST", 10*3600))}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.Equal(t, `"2019-03-07T05:10:36.187Z"`, string(b))
	b, err = json.Marshal(Time{})
	require.NoError(t, err)
	assert.Equal(t, `null`, string(b))
	assert.Equal(t, "2019-03-07T05:10:36.187Z", in.String())
	// Beyond RFC 3339's years, String still writes the layout; MarshalJSON refuses.
	far := Time{time.Date(10000, 1, 2, 3, 4, 5, 6e6, time.UTC)}
	assert.Equal(t, "10000-01-02T03:04:05.006Z", far.String())
	_, err = json.Marshal(far)
	assert.Error(t, err)

	var back Time
	require.NoError(t, json.Unmarshal([]byte(`"2019-03-07T05:10:36.187Z"`), &back))
	assert.True(t, back.Equal(in.Truncate(time.Millisecond)))
}

func TestPtr(t *testing.T) {
	t.Parallel()
	p := Ptr("Australia/Sydney")
	assert.Equal(t, "Australia/Sydney", *p)
	assert.Equal(t, 3, *Ptr(3))
}

// The vendor's own client writes Python's str(datetime): a space, no zone,
// microseconds; and offsets as +0000 or +00. Answers may carry them too.
func TestTimeAcceptsPythonForms(t *testing.T) {
	t.Parallel()
	micro := time.Date(2026, 11, 22, 1, 35, 7, 123_456_000, time.UTC)
	whole := micro.Truncate(time.Second)
	for in, exp := range map[string]time.Time{
		`"2026-11-22 01:35:07.123456"`:       micro, // no zone: UTC
		`"2026-11-22 01:35:07"`:              whole,
		`"2026-11-22 01:35:07.123456+0000"`:  micro,
		`"2026-11-22 01:35:07+00"`:           whole,
		`"2026-11-22T01:35:07.123456+00"`:    micro,
		`"2026-11-22T11:35:07.123456+10"`:    micro,
		`"2026-11-22 11:35:07.123456+10:00"`: micro,
		`"2026-11-21 23:35:07-0200"`:         whole,
	} {
		var got Time
		require.NoError(t, json.Unmarshal([]byte(in), &got), in)
		assert.True(t, exp.Equal(got.Time), "%s: got %v want %v", in, got.Time, exp)
	}
	// What goes out stays RFC 3339 in UTC.
	p, err := ParseTime("2026-11-22 11:35:07.123456+10")
	require.NoError(t, err)
	b, err := json.Marshal(p)
	require.NoError(t, err)
	assert.Equal(t, `"2026-11-22T01:35:07.123Z"`, string(b))
	for _, bad := range []string{"2026-11-22  01:35:07", "2026-11-22 01:35:07 +00", "2026-11-22x01:35:07"} {
		_, err := ParseTime(bad)
		assert.Error(t, err, bad)
	}
}

func BenchmarkTimeMarshalJSON(b *testing.B) {
	tm := Time{time.Date(2024, 3, 1, 10, 5, 7, 123456789, time.FixedZone("", 36000))}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tm.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}
