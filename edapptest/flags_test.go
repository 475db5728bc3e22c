package edapptest

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"io"
	"net"
	"strings"
	"testing"
	"time"

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
		Account: AccountSpec{Users: 50, Groups: 6, Collections: 2, Courses: 3, Lessons: 4, Attempts: 90},
		Latency: 5 * time.Millisecond, Budget: Budget{30, 10 * time.Second}, Redeliver: 1}, f)
	require.NoError(t, f.Check())
	assert.Len(t, f.Options(), 4, "token, latency, redeliveries and the budget")

	require.Error(t, fs.Parse([]string{"-budget", "-3"}))
	for _, bad := range []Flags{{Account: AccountSpec{Groups: -1}}, {Latency: -time.Second}, {Redeliver: -1}} {
		assert.Error(t, bad.Check(), "%+v", bad)
	}
}

// TestFlagsServe: nothing about serving is written before the port is
// bound; then the two lines, and the fake answers with the shape asked.
func TestFlagsServe(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	var out, errOut bytes.Buffer
	f := Flags{Addr: taken.Addr().String(), Seed: true}
	require.Error(t, f.Serve(context.Background(), &out, &errOut), "the port is taken")
	assert.Empty(t, out.String())
	assert.NotContains(t, errOut.String(), "serving")

	f = Flags{Addr: "127.0.0.1:0", Token: "dev", Account: AccountSpec{Users: 12, Groups: 4, Courses: 2, Attempts: 30}}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr lockedBuffer
	done := make(chan error, 1)
	go func() { done <- f.Serve(ctx, pw, &stderr) }()
	rd := bufio.NewReader(pr)
	first, err := rd.ReadString('\n')
	require.NoError(t, err)
	second, err := rd.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "EDAPP_API_TOKEN=dev\n", second)
	base := strings.TrimSpace(strings.TrimPrefix(first, "EDAPP_BASE_URL="))
	require.True(t, strings.HasPrefix(base, "http://127.0.0.1:"), first)
	h := harness{t, &Server{URL: base, Token: "dev"}}
	var groups page[v2Group]
	h.get("/v2/usergroups", &groups)
	assert.Equal(t, 4, groups.TotalCount)
	cancel()
	go io.Copy(io.Discard, rd) //nolint:errcheck // drain until Serve returns
	require.NoError(t, <-done)
	assert.Contains(t, stderr.String(), "serving the fake service on "+base)
	assert.Contains(t, stderr.String(), "stopped")
}
