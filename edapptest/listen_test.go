package edapptest

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListenAndServe(t *testing.T) {
	srv := NewServer()
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ListenAndServe(ctx, "127.0.0.1:0", pw) }()

	lines := bufio.NewScanner(pr)
	require.True(t, lines.Scan())
	base, ok := strings.CutPrefix(lines.Text(), "EDAPP_BASE_URL=")
	require.True(t, ok, lines.Text())
	require.True(t, lines.Scan())
	assert.Equal(t, "EDAPP_API_TOKEN="+srv.Token, lines.Text())

	req, _ := http.NewRequest(http.MethodGet, base+"/v2/users", nil)
	req.Header.Set("Authorization", "Bearer "+srv.Token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("ListenAndServe did not stop")
	}
}
