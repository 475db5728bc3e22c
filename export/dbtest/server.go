package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// Server is a PostgreSQL server that the test binary started for one test
// ([NewServer]); [Postgres] uses one the tests share.
type Server struct {
	dir      string // removed on stop
	data     string
	port     int
	password string // the postgres user's over TCP: other local users may reach the port
	pgCtl    string
	asUser   bool   // run the binaries as the postgres user (we are root)
	owner    [2]int // that user's uid and gid

	template struct { // the database MigratedPostgres copies
		once sync.Once
		err  error
	}
}

func (s *Server) url(db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword("postgres", s.password), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)),
		Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// binDir finds initdb and pg_ctl: on PATH, or in a versioned PostgreSQL
// directory (Debian keeps them out of PATH), the newest first.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	var dirs []string
	for _, pat := range []string{"/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin", "/opt/homebrew/opt/postgresql*/bin"} {
		m, _ := filepath.Glob(pat)
		dirs = append(dirs, m...)
	}
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("initdb and pg_ctl not found on PATH or under /usr/lib/postgresql/*/bin")
}

func versionOf(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	s := &Server{pgCtl: filepath.Join(bin, "pg_ctl"), asUser: os.Geteuid() == 0}
	if s.dir, err = os.MkdirTemp("", "edapp-pg-"); err != nil {
		return nil, err
	}
	s.data = filepath.Join(s.dir, "data")
	if err := s.prepare(); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	if err := s.initdb(filepath.Join(bin, "initdb")); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	if err := s.listen(); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	s.watch()
	return s, nil
}

// prepare makes the data directory the postgres user's when we are root:
// PostgreSQL refuses to run as root.
func (s *Server) prepare() error {
	if err := os.Mkdir(s.data, 0o700); err != nil {
		return err
	}
	if !s.asUser {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("running as root, and no postgres user to run PostgreSQL as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chmod(s.dir, 0o755); err != nil {
		return err
	}
	s.owner = [2]int{uid, gid}
	return s.own(s.data)
}

// own gives path to the user the server runs as.
func (s *Server) own(path string) error {
	if !s.asUser {
		return nil
	}
	return os.Chown(path, s.owner[0], s.owner[1])
}

// initdb makes the cluster: its socket, in the data directory only its
// owner can enter, takes anyone who reaches it; a TCP connection must give
// the postgres user's password, a new random one.
func (s *Server) initdb(initdb string) error {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	s.password = hex.EncodeToString(b)
	pwfile := filepath.Join(s.dir, "password")
	if err := os.WriteFile(pwfile, []byte(s.password+"\n"), 0o600); err != nil {
		return err
	}
	defer os.Remove(pwfile)
	if err := s.own(pwfile); err != nil {
		return err
	}
	return s.run(initdb, "-D", s.data, "-U", "postgres", "--pwfile", pwfile, "--auth-local", "trust", "--auth-host", "scram-sha-256", "-E", "UTF8", "--no-sync")
}

// listen starts the server on a free loopback port, trying a few in case
// another process takes the port first.
func (s *Server) listen() error {
	var err error
	for range 5 {
		if s.port, err = freePort(); err != nil {
			return err
		}
		opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -c unix_socket_directories=%s -c fsync=off -c max_wal_size=%dMB -c max_connections=200", s.port, s.data, maxWALMB)
		if err = s.run(s.pgCtl, "-D", s.data, "-o", opts, "-l", filepath.Join(s.data, "log"), "-w", "-t", "60", "start"); err == nil {
			return nil
		}
	}
	return err
}

// run runs the PostgreSQL program name (as the postgres user when we are
// root), and returns its output with its error.
func (s *Server) run(name string, args ...string) error {
	if s.asUser {
		args = append([]string{"-u", "postgres", "--", name}, args...)
		name = "runuser"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err == nil {
		return nil
	}
	if out := strings.TrimSpace(string(out)); out != "" {
		err = fmt.Errorf("%w\n%s", err, out)
	}
	return fmt.Errorf("%s %s: %w", filepath.Base(name), strings.Join(args, " "), err)
}

// watch starts a process that stops the server and removes its directory
// if this test binary dies before it stops the server (a crash, a kill).
func (s *Server) watch() {
	stop := `"$2" -D "$3" -m immediate stop`
	if s.asUser {
		stop = "runuser -u postgres -- " + stop
	}
	script := `while kill -0 "$1" 2>/dev/null; do sleep 1; done; ` + stop + ` >/dev/null 2>&1; rm -rf "$4"`
	cmd := exec.Command("sh", "-c", script, "sh", strconv.Itoa(os.Getpid()), s.pgCtl, s.data, s.dir)
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}

func (s *Server) stop() {
	_ = s.run(s.pgCtl, "-D", s.data, "-m", "fast", "-w", "stop")
	os.RemoveAll(s.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
