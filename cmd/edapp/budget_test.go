package main

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/redislimit"
	"github.com/redis/go-redis/v9"
)

// startRedis runs a real redis-server on a free loopback port in a temp
// dir, stopped when the test ends, and returns its URL. Without the binary
// the test skips, except under CI=true, where it fails. extra are more
// arguments to redis-server (a requirepass makes the URL lack it).
func startRedis(t *testing.T, extra ...string) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		const msg = "redis-server is not on PATH: install it (apt-get install redis-server) to run the Redis tests"
		skipMissing(t, msg)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "no", "--logfile", filepath.Join(dir, "redis.log")}
	cmd := exec.Command(bin, append(args, extra...)...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := "redis://127.0.0.1:" + strconv.Itoa(port)
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), MaxRetries: -1})
	defer rdb.Close()
	for i := 0; ; i++ {
		if err := rdb.Ping(context.Background()).Err(); err == nil || redis.IsAuthError(err) {
			return url
		}
		if i == 100 {
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			t.Fatalf("redis-server does not answer:\n%s", log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Two exports on one token, each needing more than half the budget, share
// it through Redis: the fake, enforcing the same budget, answers no 429.
func TestExportsShareTheBudgetThroughRedis(t *testing.T) {
	t.Parallel()
	redisURL := startRedis(t)
	srv := edapptest.New(t, edapptest.WithBudget(24, 10*time.Second))
	t.Cleanup(srv.Close)
	if _, err := fakedata.SeedDemo(srv); err != nil {
		t.Fatal(err)
	}
	// About 15 requests each: together, over the budget of 24.
	kinds := "users,groups,group_members,group_children,collections,collection_courses,courses,lessons,course_statistics,lesson_statistics,attempts,course_progress,survey_questions,survey_answers"
	var wg sync.WaitGroup
	results := make([]result, 2)
	dirs := []string{t.TempDir(), t.TempDir()}
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runEnv(t, fakeEnv(srv), "export", "--out", dirs[i], "--kinds", kinds,
				"--redis", redisURL, "--budget", "24/10s")
		}()
	}
	wg.Wait()
	for i, r := range results {
		wantCode(t, r, exitOK)
		// Redis keeps the budget: the state keeps none.
		if b, _ := os.ReadFile(filepath.Join(dirs[i], ".edapp-export.json")); strings.Contains(string(b), `"budget"`) {
			t.Errorf("a budget saved with --redis:\n%s", b)
		}
	}
	var n int
	for _, req := range srv.Requests() {
		if strings.HasPrefix(req.Path, "/v2/") {
			n++
		}
		if req.Status == http.StatusTooManyRequests {
			t.Errorf("429 for %s %s", req.Method, req.Path)
		}
	}
	if n <= 24 {
		t.Fatalf("the exports sent %d requests, not enough to test the budget", n)
	}

	// The budget's keys are KeyForToken's, and never hold the token.
	opts, _ := redis.ParseURL(redisURL)
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	keys, err := rdb.Keys(context.Background(), "*").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("keys: %v %v", keys, err)
	}
	for _, k := range keys {
		if !strings.Contains(k, redislimit.KeyForToken(srv.Token)) || strings.Contains(k, srv.Token) {
			t.Errorf("key %q", k)
		}
	}
}

func TestBudgetFlags(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	for _, args := range [][]string{
		{"--budget", "30"},
		{"--budget", "0/10s"},
		{"--budget", "30/0s"},
		{"--budget", "x/10s"},
		{"--bulk-share", "-0.1"},
		{"--bulk-share", "NaN"},
		{"--bulk-share", "1.5"},
		{"--redis", "http://user:hunter2@example.com"},
	} {
		r := runFake(t, srv, append([]string{"export", "--out", t.TempDir(), "--kinds", "users"}, args...)...)
		wantCode(t, r, exitUsage)
		if !strings.Contains(r.stderr, args[0]) || strings.Contains(r.stderr, "hunter2") {
			t.Errorf("%v: %s", args, r.stderr)
		}
	}
	// users sync takes the same flags.
	file := writeFile(t, "users.csv", "externalId,username\nE1,bob\n")
	r := runFake(t, srv, "users", "sync", "--csv", file, "--budget", "30/0s")
	wantCode(t, r, exitUsage)
	r = runFake(t, srv, "users", "sync", "--csv", file, "--budget", "30/10s", "--bulk-share", "0.5")
	wantCode(t, r, exitOK)
	for in, want := range map[string]string{"1400/5m": "1400 5m0s", "30/10s": "30 10s", "100/1d": "100 24h0m0s"} {
		limit, window, err := parseBudget(in)
		if err != nil || strconv.Itoa(limit)+" "+window.String() != want {
			t.Errorf("parseBudget(%q) = %d, %v, %v", in, limit, window, err)
		}
	}
}

// A Redis that cannot serve the budget fails the run at its first PING,
// with the likely cause, before any request reaches the service: above all
// a plain Redis addressed as rediss://, which once stalled for minutes.
func TestCheckedRedisNamesTheLikelyCause(t *testing.T) {
	t.Parallel()
	plain := strings.TrimPrefix(startRedis(t), "redis://")
	locked := strings.TrimPrefix(startRedis(t, "--requirepass", "s3cret-pw"), "redis://")
	closed := "127.0.0.1:" + freeLoopbackPort(t)
	for _, tc := range []struct{ url, cause string }{
		{"rediss://" + plain, "is the server a plain Redis, which wants redis://?"},
		{"redis://" + closed, "nothing listens there"},
		{"redis://:hunter2@" + locked, "user or password is wrong or missing"},
		{"redis://" + locked, "user or password is wrong or missing"},
	} {
		t.Run(tc.cause, func(t *testing.T) {
			t.Parallel()
			srv := edapptest.New(t)
			t.Cleanup(srv.Close)
			r := runFake(t, srv, "export", "--out", t.TempDir(), "--kinds", "users", "--redis", tc.url)
			wantCode(t, r, exitError)
			if !strings.Contains(r.stderr, "does not answer a PING") || !strings.Contains(r.stderr, tc.cause) || strings.Contains(r.stderr, "hunter2") {
				t.Errorf("stderr:\n%s", r.stderr)
			}
			for _, req := range srv.Requests() {
				if strings.HasPrefix(req.Path, "/v2/") {
					t.Errorf("%s %s reached the service", req.Method, req.Path)
				}
			}
		})
	}
}
