package redislimit

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisServer is a real redis-server on a free loopback port, started by a
// test and stopped when it ends.
type redisServer struct {
	t    *testing.T
	bin  string
	dir  string
	port int
	args []string // extra redis-server arguments
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

// startRedis starts redis-server with the extra arguments args, or skips the
// test when it is not installed (and fails it when CI is set, so CI never
// skips it).
func startRedis(t *testing.T, args ...string) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		const msg = "redis-server is not on PATH: install it (apt-get install redis-server) to run the Redis tests"
		skipMissing(t, msg)
	}
	s := &redisServer{t: t, bin: bin, dir: t.TempDir(), port: freePort(t), args: args}
	s.start()
	t.Cleanup(s.kill)
	return s
}

func (s *redisServer) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// start runs redis-server on s's port and directory and waits until it
// answers. Its dir lets SHUTDOWN SAVE write the data set that a restart
// loads again.
func (s *redisServer) start() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, append([]string{
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--dir", s.dir, "--save", "", "--appendonly", "no",
		"--logfile", filepath.Join(s.dir, "redis.log")}, s.args...)...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	done := make(chan struct{})
	s.done = done
	go func(cmd *exec.Cmd) {
		_ = cmd.Wait()
		close(done)
	}(s.cmd)

	rdb := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1})
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		select {
		case <-done:
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			s.t.Fatalf("redis-server exited at start:\n%s", log)
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server does not answer: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// shutdownSave stops the server with SHUTDOWN SAVE and waits until it has
// exited.
func (s *redisServer) shutdownSave() {
	s.t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1})
	defer rdb.Close()
	// The server closes the connection instead of answering.
	_ = rdb.ShutdownSave(context.Background()).Err()
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.t.Fatal("redis-server did not exit after SHUTDOWN SAVE")
	}
	if _, err := os.Stat(filepath.Join(s.dir, "dump.rdb")); err != nil {
		s.t.Fatalf("SHUTDOWN SAVE wrote no data set: %v", err)
	}
}

// kill stops the server if it still runs.
func (s *redisServer) kill() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Kill()
	<-s.done
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// newClient returns a go-redis client with default options for s.
func newClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// maxInWindow returns the largest number of times that fall in one
// half-open interval [s, s+window), and where that interval starts.
func maxInWindow(times []time.Time, window time.Duration) (int, time.Time) {
	ts := append([]time.Time(nil), times...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	best, at := 0, time.Time{}
	j := 0
	for i := range ts {
		for j < len(ts) && ts[j].Sub(ts[i]) < window {
			j++
		}
		if j-i > best {
			best, at = j-i, ts[i]
		}
	}
	return best, at
}

// checkWindow fails t if any trailing window held more than limit times.
func checkWindow(t *testing.T, what string, times []time.Time, limit int, window time.Duration) {
	t.Helper()
	if n, at := maxInWindow(times, window); n > limit {
		t.Errorf("%s: %d admissions in the window starting %s, limit %d", what, n, at.Format("15:04:05.000000"), limit)
	}
}

// client returns a go-redis client with default options for s.
func (s *redisServer) client(t *testing.T) *redis.Client { return newClient(t, s.addr()) }

// mustNew is New for arguments a test knows to be good.
func mustNew(t *testing.T, rdb redis.UniversalClient, key string, limit int, window time.Duration, opts ...Option) *Limiter {
	t.Helper()
	l, err := New(rdb, key, limit, window, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
