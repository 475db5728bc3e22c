package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/spf13/cobra"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// result is what one run of the command printed.
type result struct {
	code           int
	stdout, stderr string
}

// env is a fake environment.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// runEnv runs the command line in process with the given environment.
func runEnv(t *testing.T, e env, args ...string) result {
	t.Helper()
	return runCtx(t, context.Background(), e, "", args...)
}

func runCtx(t *testing.T, ctx context.Context, e env, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(ctx, args, strings.NewReader(stdin), &out, &errOut, e.get)
	return result{code, out.String(), errOut.String()}
}

// fakeEnv is the environment pointing at srv.
func fakeEnv(srv *edapptest.Server) env {
	return env{"EDAPP_API_TOKEN": srv.Token, "EDAPP_BASE_URL": srv.URL}
}

// runFake runs the command line against srv.
func runFake(t *testing.T, srv *edapptest.Server, args ...string) result {
	t.Helper()
	return runEnv(t, fakeEnv(srv), args...)
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func wantCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"help", []string{"--help"}, exitOK},
		{"no args prints help", nil, exitOK},
		{"unknown command", []string{"frobnicate"}, exitUsage},
		{"unknown subcommand", []string{"webhooks", "frobnicate"}, exitUsage},
		{"unknown flag", []string{"webhooks", "list", "--frob"}, exitUsage},
		{"unknown shorthand", []string{"webhooks", "list", "-z"}, exitUsage},
		{"missing required flag", []string{"users", "sync"}, exitUsage},
		{"missing flag value", []string{"users", "sync", "--csv"}, exitUsage},
		{"bad output format", []string{"webhooks", "list", "-o", "xml"}, exitUsage},
		{"bad event", []string{"webhooks", "create", "--event", "Nope", "--url", "http://x.example"}, exitUsage},
		{"delete needs an id", []string{"webhooks", "delete"}, exitUsage},
		{"stray argument", []string{"webhooks", "list", "extra"}, exitUsage},
		{"missing file is an error", []string{"users", "sync", "--csv", filepath.Join(t.TempDir(), "nope.csv")}, exitError},
		{"ok", []string{"webhooks", "list"}, exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, runFake(t, srv, tc.args...), tc.code)
		})
	}
}

func TestMissingTokenIsUsage(t *testing.T) {
	t.Parallel()
	r := runEnv(t, env{}, "webhooks", "list")
	wantCode(t, r, exitUsage)
	if !strings.Contains(r.stderr, "EDAPP_API_TOKEN") {
		t.Errorf("stderr does not say where the token comes from: %q", r.stderr)
	}
}

func TestWrongTokenIsError(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	r := runEnv(t, env{"EDAPP_BASE_URL": srv.URL}, "-v", "webhooks", "list", "--token", "wrong-token-value")
	wantCode(t, r, exitError)
	noToken(t, "wrong-token-value", r)
}

// TestHelpEverywhere checks that every command has --help with an example.
func TestHelpEverywhere(t *testing.T) {
	t.Parallel()
	root := newCmdRoot(newFactory(newIOStreams(nil, nil, nil), env{}.get))
	var all [][]string
	var rec func(prefix []string, c *cobra.Command)
	rec = func(prefix []string, c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			p := append(append([]string{}, prefix...), sub.Name())
			all = append(all, p)
			rec(p, sub)
		}
	}
	rec(nil, root)
	if len(all) < 8 {
		t.Fatalf("found only %d commands: %v", len(all), all)
	}
	for _, p := range all {
		r := runEnv(t, env{}, append(p, "--help")...)
		wantCode(t, r, exitOK)
		if !strings.Contains(r.stdout, "Examples:") {
			t.Errorf("edapp %s --help has no example:\n%s", strings.Join(p, " "), r.stdout)
		}
	}
}

func TestVerboseLogsRequestsWithoutToken(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	r := runFake(t, srv, "-v", "webhooks", "list", "-o", "json")
	wantCode(t, r, exitOK)
	if !strings.Contains(r.stderr, "/v2/webhooks") {
		t.Errorf("-v did not log the request:\n%s", r.stderr)
	}
	noToken(t, srv.Token, r)
}

// noToken fails if the token shows in anything the command printed.
func noToken(t *testing.T, token string, r result) {
	t.Helper()
	if strings.Contains(r.stdout, token) || strings.Contains(r.stderr, token) {
		t.Errorf("the token appears in the output")
	}
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	r := runEnv(t, env{}, "completion", "bash")
	wantCode(t, r, exitOK)
	if !strings.Contains(r.stdout, "edapp") {
		t.Error("no bash completion script")
	}
}

// TestIsUsage runs each kind of command-line mistake through the command
// tree: each one's error is a usageError (isUsage reads no message text),
// and the command line exits 2 before any request is sent.
func TestIsUsage(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	csv := filepath.Join(t.TempDir(), "users.csv")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"unknown command", []string{"frobnicate"}},
		{"unknown subcommand", []string{"users", "frobnicate"}},
		{"unknown flag", []string{"export", "--frob"}},
		{"unknown shorthand", []string{"webhooks", "list", "-z"}},
		{"missing required flag", []string{"users", "sync"}},
		{"missing required --url", []string{"webhooks", "create", "--event", "LessonCompletedEvent"}},
		{"missing required --event", []string{"webhooks", "send-test", "--url", "http://127.0.0.1:1/"}},
		{"missing flag value", []string{"users", "sync", "--csv"}},
		{"bad flag value", []string{"users", "sync", "--csv", csv, "--max-deletes", "many"}},
		{"bad duration", []string{"export", "--out", t.TempDir(), "--open-window", "soon"}},
		{"extra args", []string{"webhooks", "list", "extra"}},
		{"extra args to the root", []string{"--verbose", "extra"}},
		{"extra args to completion", []string{"completion", "bash", "extra"}},
		{"unknown shell", []string{"completion", "tcsh"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := newCmdRoot(newTestFactory(fakeEnv(srv)))
			root.SetArgs(tc.args)
			root.SetOut(io.Discard)
			root.SetErr(io.Discard)
			_, err := root.ExecuteC()
			var u usageError
			if !errors.As(err, &u) {
				t.Errorf("error %v (%T) is not a usageError", err, err)
			}
			r := runFake(t, srv, tc.args...)
			wantCode(t, r, exitUsage)
			if !strings.Contains(r.stderr, "--help' for usage") {
				t.Errorf("no pointer to --help:\n%s", r.stderr)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
