package main

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// childArgsEnv carries the command line of a child process that runs
// "edapp" (this test binary, re-run) instead of the tests.
const childArgsEnv = "EDAPP_TEST_CHILD_ARGS"

func init() {
	args := os.Getenv(childArgsEnv)
	if args == "" {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, strings.Split(args, "\n"), os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// childInbox is "edapp webhooks serve" in a child process, which the test
// can kill and start again on the same database.
type childInbox struct {
	t     *testing.T
	dbURL string
	args  []string
	url   atomic.Pointer[string]
	cmd   *exec.Cmd
	done  chan error // the child's Wait
	log   *syncBuffer
}

func startChildInbox(t *testing.T, dbURL string, args ...string) *childInbox {
	t.Helper()
	c := &childInbox{t: t, dbURL: dbURL, args: args, log: &syncBuffer{}}
	c.start()
	t.Cleanup(func() {
		if c.cmd != nil {
			c.cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

// start runs the child and waits until it listens.
func (c *childInbox) start() {
	c.t.Helper()
	args := append([]string{"webhooks", "serve", "--db", c.dbURL, "--addr", "127.0.0.1:0"}, c.args...)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+strings.Join(args, "\n"), "EDAPP_WEBHOOK_SECRET="+hookHeader+"="+hookSecret)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	addr := make(chan string, 1)
	go c.readLog(bufio.NewScanner(stderr), addr)
	c.cmd, c.done = cmd, make(chan error, 1)
	go func() { c.done <- cmd.Wait() }()
	select {
	case a := <-addr:
		u := "http://" + a
		c.url.Store(&u)
	case err := <-c.done:
		c.cmd = nil
		c.t.Fatalf("serve exited: %v\n%s", err, c.log.String())
	case <-time.After(time.Minute):
		c.t.Fatalf("serve did not start:\n%s", c.log.String())
	}
}

func (c *childInbox) readLog(sc *bufio.Scanner, addr chan<- string) {
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		c.log.Write([]byte(line + "\n"))
		if m := listeningRE.FindStringSubmatch(line); m != nil {
			addr <- m[1]
		}
	}
}

// URL is where the child listens now.
func (c *childInbox) URL() string { return *c.url.Load() }

// kill ends the child with SIGKILL and waits for it.
func (c *childInbox) kill() {
	c.cmd.Process.Kill()
	<-c.done
	c.cmd = nil
}

// terminate sends SIGTERM and returns the child's exit code.
func (c *childInbox) terminate() int {
	c.t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		c.t.Fatal(err)
	}
	var err error
	select {
	case err = <-c.done:
	case <-time.After(time.Minute):
		c.t.Fatal("serve did not stop within a minute of SIGTERM")
	}
	c.cmd = nil
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		c.t.Fatal(err)
	}
	return 0
}

// deliverUntilOK posts body to the child until it answers 2xx, through
// kills and restarts.
func (c *childInbox) deliverUntilOK(ctx context.Context, client *http.Client, body []byte) error {
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL()+"/", strings.NewReader(string(body)))
		if err != nil {
			return err
		}
		req.Header.Set(hookHeader, hookSecret)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				return nil
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return ctx.Err()
}
