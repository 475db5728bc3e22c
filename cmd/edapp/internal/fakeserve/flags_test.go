package fakeserve

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseBudget(t *testing.T) {
	for in, want := range map[string]Budget{
		"1400":      {1400, 5 * time.Minute},
		"30/10s":    {30, 10 * time.Second},
		" 1400/5m ": {1400, 5 * time.Minute},
		"0":         {0, 5 * time.Minute},
		"5/1h":      {5, time.Hour},
	} {
		got, err := ParseBudget(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "-1", "x", "30/", "30/0s", "30/-5s", "30/ten", "1.5/5m"} {
		_, err := ParseBudget(bad)
		assert.Error(t, err, bad)
	}
	for _, b := range []Budget{{30, 10 * time.Second}, {1400, 5 * time.Minute}, {5, time.Hour}, {7, 90 * time.Second}} {
		back, err := ParseBudget(b.String())
		require.NoError(t, err, b.String())
		assert.Equal(t, b, back, "String reads back")
	}
	assert.Equal(t, "1400/5m", (&Budget{1400, 5 * time.Minute}).String())
}

func TestFlagsRegister(t *testing.T) {
	var f Flags
	fs := flag.NewFlagSet("fake", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.Register(fs)
	require.NoError(t, fs.Parse(strings.Fields("-seed -users 50 -groups 6 -collections 2 -courses 3 -lessons 4 -attempts 90 -budget 30/10s -latency 5ms -redeliver 1 -token dev")))
	assert.Equal(t, Flags{Addr: "127.0.0.1:8080", Token: "dev", Seed: true,
		Account: fakedata.AccountSpec{Users: 50, Groups: 6, Collections: 2, Courses: 3, Lessons: 4, Attempts: 90},
		Latency: 5 * time.Millisecond, Budget: Budget{30, 10 * time.Second}, Redeliver: 1}, f)
	require.NoError(t, f.Check())
	assert.Len(t, f.Options(), 4, "token, latency, redeliveries and the budget")

	require.Error(t, fs.Parse([]string{"-budget", "-3"}))
	for _, bad := range []Flags{{Account: fakedata.AccountSpec{Groups: -1}}, {Latency: -time.Second}, {Redeliver: -1}, {Token: " "}} {
		assert.Error(t, bad.Check(), "%+v", bad)
	}
	// The options of checked flags are good: the fake starts.
	var none Flags
	require.NoError(t, none.Check())
	edapptest.New(t, none.Options()...)
}
