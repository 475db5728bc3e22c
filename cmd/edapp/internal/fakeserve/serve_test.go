package fakeserve

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServe: nothing about serving is written before the port is
// bound; then the two lines, and the fake answers with the shape asked.
func TestServe(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	var out, errOut bytes.Buffer
	f := Flags{Addr: taken.Addr().String(), Seed: true}
	require.Error(t, f.Serve(context.Background(), &out, &errOut), "the port is taken")
	assert.Empty(t, out.String())
	assert.NotContains(t, errOut.String(), "serving")

	f = Flags{Addr: "127.0.0.1:0", Token: "dev", Seed: true, Account: fakedata.AccountSpec{Users: 12, Groups: 4, Courses: 2, Attempts: 30}}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr bytes.Buffer // read once Serve has returned
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
	c, err := edapp.NewClient("dev", edapp.WithBaseURL(base))
	require.NoError(t, err)
	groups, err := c.UserGroups.List(t.Context(), nil)
	require.NoError(t, err)
	total, _ := groups.Total()
	assert.Equal(t, 4+4, total, "the demo's groups, then the account's")
	res, err := http.Get(base + "/learner/usr_1")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"), "the learner's pages are served")
	cancel()
	go io.Copy(io.Discard, rd) //nolint:errcheck // drain until Serve returns
	require.NoError(t, <-done)
	assert.Contains(t, stderr.String(), "serving the fake service on "+base)
	assert.Contains(t, stderr.String(), "a learner's home: "+base+"/learner/usr_1\n")
	assert.Contains(t, stderr.String(), "stopped")
}
