package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

// quickRetry is the default policy's shape with waits too short to matter.
var quickRetry = edapp.WithRetry(edapp.RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: time.Millisecond})

// runWith runs the command line with extra client options.
func runWith(t *testing.T, e env, opts []edapp.Option, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	f := newFactory(newIOStreams(strings.NewReader(""), &out, &errOut), e.get)
	withClientOptions(f, opts...)
	code := runCommand(context.Background(), f, args)
	return result{code, out.String(), errOut.String()}
}

// resetting listens on loopback and resets every connection it accepts,
// counting them: a host that cannot be talked to.
func resetting(t *testing.T) (addr string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted = new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				if sentByTheCLI(c) {
					accepted.Add(1)
				}
				c.(*net.TCPConn).SetLinger(0)
				c.Close()
			}()
		}
	}()
	return ln.Addr().String(), accepted
}

// sentByTheCLI reads the request on c and tells whether the command sent
// it: with the tests running in parallel, a client of another test (a
// Redis pool redialling a server that stopped, say) can reach a port
// this listener reuses.
func sentByTheCLI(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	req, err := http.ReadRequest(bufio.NewReader(c))
	return err == nil && strings.HasPrefix(req.Header.Get("User-Agent"), "edapp-cli/")
}

func TestWrongTokenStopsTheRunAfterOneRequest(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	file := writeFile(t, "users.csv", "externalId,username\nE1,bob\n")
	for _, tc := range []struct {
		name string
		e    env
		args []string
		from string
	}{
		{"export, flag", env{"EDAPP_BASE_URL": srv.URL}, []string{"--token", "wrong", "export", "--out", t.TempDir()}, "--token flag"},
		{"export, environment", env{"EDAPP_BASE_URL": srv.URL, "EDAPP_API_TOKEN": "wrong"}, []string{"export", "--out", t.TempDir()}, "EDAPP_API_TOKEN"},
		{"users sync", env{"EDAPP_BASE_URL": srv.URL, "EDAPP_API_TOKEN": "wrong"}, []string{"users", "sync", "--csv", file, "--apply"}, "EDAPP_API_TOKEN"},
		{"webhooks list", env{"EDAPP_BASE_URL": srv.URL, "EDAPP_API_TOKEN": "wrong"}, []string{"webhooks", "list"}, "EDAPP_API_TOKEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.ResetRequests()
			r := runEnv(t, tc.e, tc.args...)
			wantCode(t, r, exitError)
			if reqs := srv.Requests(); len(reqs) != 1 {
				t.Errorf("%d requests, want 1: %s", len(reqs), requestLines(reqs))
			}
			if !strings.Contains(r.stderr, "check the token") || !strings.Contains(r.stderr, tc.from) {
				t.Errorf("stderr does not say to check the token from %s:\n%s", tc.from, r.stderr)
			}
			noDoublePrefix(t, r)
		})
	}
}

// requestLines lists the method and path of each request, for a message.
func requestLines(reqs []edapptest.Request) string {
	lines := make([]string, len(reqs))
	for i, r := range reqs {
		lines[i] = r.Method + " " + r.Path + "?" + r.RawQuery
	}
	return strings.Join(lines, ", ")
}

func TestUnreachableStopsTheRunAfterTheRetries(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "users.csv", "externalId,username\nE1,bob\n")
	for _, args := range [][]string{
		{"export", "--out", t.TempDir()},
		{"users", "sync", "--csv", file},
		{"webhooks", "list"},
	} {
		addr, accepted := resetting(t)
		r := runWith(t, env{"EDAPP_API_TOKEN": "tok-123456789", "EDAPP_BASE_URL": "http://" + addr}, []edapp.Option{quickRetry}, args...)
		wantCode(t, r, exitError)
		if n := accepted.Load(); n != 3 {
			t.Errorf("%v: %d connections, want 3 (one attempt and two retries)", args, n)
		}
		if !strings.Contains(r.stderr, "could not reach "+addr) || !strings.Contains(r.stderr, "EDAPP_BASE_URL") {
			t.Errorf("%v: stderr does not name the host:\n%s", args, r.stderr)
		}
		noDoublePrefix(t, r)
	}
}

// With a one-character token, a refused connection's error still reads as
// it should, and the token is gone wherever it stands whole.
func TestShortTokenLeavesErrorsReadable(t *testing.T) {
	t.Parallel()
	r := runWith(t, env{}, []edapp.Option{quickRetry}, "--token", "t", "--base-url", "http://127.0.0.1:1", "webhooks", "list")
	wantCode(t, r, exitError)
	for _, want := range []string{"dial tcp 127.0.0.1:1: connect: connection refused", "could not reach 127.0.0.1:1"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	for _, f := range strings.FieldsFunc(r.stderr, func(r rune) bool { return !tokenCharForTest(r) }) {
		if f == "t" {
			t.Errorf("the token stands whole in:\n%s", r.stderr)
		}
	}
	noDoublePrefix(t, r)
}

func tokenCharForTest(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'
}

func noDoublePrefix(t *testing.T, r result) {
	t.Helper()
	if strings.Contains(r.stderr, "edapp: edapp:") || strings.Contains(r.stderr, ": edapp:") || strings.Contains(r.stdout, "edapp: edapp:") {
		t.Errorf("a doubled prefix:\n%s", r.stderr)
	}
}

func TestFatal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&edapp.APIError{StatusCode: 401}, true},
		{fmt.Errorf("listing: %w", &edapp.APIError{StatusCode: 403}), true},
		{&edapp.APIError{StatusCode: 404}, false},
		{&edapp.APIError{StatusCode: 503}, false},
		{fmt.Errorf("edapp: GET /v2/users: %w", &net.DNSError{Err: "no such host", Name: "nohost.invalid", IsNotFound: true}), true},
		{fmt.Errorf("edapp: GET /v2/users: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), true},
		{context.Canceled, false},
		{errors.New("disk full"), false},
	} {
		if got := fatal(tc.err); got != tc.want {
			t.Errorf("fatal(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
