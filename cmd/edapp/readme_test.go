package main

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/dbtest"
)

// readmeCommand is one `edapp ...` command line of a ```sh block of the
// README, continuation lines joined.
type readmeCommand struct {
	line int    // first line in the README
	text string // as written, without the trailing comment's newline
}

// readmeNotRun lists the README's edapp lines the test does not run, with
// the reason. Keep it short: every other edapp line runs as written.
var readmeNotRun = map[string]string{}

// readmeSub replaces text of a README command that cannot run as written on
// a test machine, before the line is split into words.
type readmeSub struct {
	old string
	new func(t *testing.T) string
	why string
}

// readmeSubs are the only changes made to the README's commands. Besides
// them, the fake's base URL and token come from EDAPP_BASE_URL and
// EDAPP_API_TOKEN, as a user sets them, and hr.csv and users.csv are
// written first.
func readmeSubs(fx *readmeFixture) []readmeSub {
	return []readmeSub{
		{"$(openssl rand -hex 32)", fixed("5f2b8c0e9d4a7b3c1e6f0a9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b"),
			"a fixed secret: the test is deterministic and needs no openssl"},
		{"redis://redis:6379/0", func(*testing.T) string { return fx.redisURL },
			"the host redis is an example; the test starts a real redis-server"},
		{"postgres://edapp@db.example.com:5432/edapp", func(t *testing.T) string { return dbtest.Postgres(t) },
			"the server is an example; the test creates a database on a real PostgreSQL (or skips that line)"},
		{"--out ./export --budget 30/10s", fixed("--out ./export --budget 30/1s"),
			"the same flag with a 1s window: the run needs more than 30 requests, and a 10s window would make the test wait 10s"},
		{"127.0.0.1:8080", fixed("127.0.0.1:0"), "port 8080 may be taken on a test machine"},
		{"http://localhost:8080/edapp/events", func(*testing.T) string { return fx.receiver + "/edapp/events" },
			"a receiver the test runs, answering 204"},
		{"webhooks delete 42", func(t *testing.T) string {
			if fx.lastWebhookID == "" {
				t.Fatal("no webhook created before the README's delete")
			}
			return "webhooks delete " + fx.lastWebhookID
		},
			"42 is an example id; the fake's ids differ: the id the README's create made"},
	}
}

func fixed(s string) func(*testing.T) string { return func(*testing.T) string { return s } }

// readmeFixture is what the README's commands run against.
type readmeFixture struct {
	srv           *edapptest.Server
	env           env               // exported variables
	vars          map[string]string // shell variables (SECRET=...)
	redisURL      string
	receiver      string
	lastWebhookID string
}

// readmeCSV lists the demo account's managed users and one new one, so a
// sync with --delete-missing deletes nobody and passes every limit.
const readmeCSV = "externalId,username\nEMP-001,alice\nEMP-002,bob\nEMP-003,carol\nEMP-004,dave\nEMP-100,erin\n"

// docPages are the pages whose commands run and whose links resolve:
// the README and every page under docs/, relative to this directory.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, pages...)
}

func TestReadmeCommands(t *testing.T) {
	if raceEnabled {
		// It runs the commands one after another, alone (t.Chdir): the
		// detector would find nothing here that the other tests do not
		// run concurrently, and it would hold the suite for the whole sequence.
		t.Skip("the README's commands run without -race, in the README's test command")
	}
	if len(readmeNotRun) > 3 {
		t.Errorf("%d README commands are not run; keep the list at 3 or fewer", len(readmeNotRun))
	}
	srv := edapptest.New(t)
	if _, err := fakedata.SeedDemo(srv); err != nil {
		t.Fatal(err)
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	redisURL := ""
	if _, err := exec.LookPath("redis-server"); err == nil || os.Getenv("CI") == "true" {
		redisURL = startRedis(t)
	}
	ran := 0
	for _, page := range docPages(t) {
		abs, err := filepath.Abs(page)
		if err != nil {
			t.Fatal(err)
		}
		// Each page starts from the user's environment and an empty
		// directory: what one page exports does not reach the next.
		fx := &readmeFixture{srv: srv, env: fakeEnv(srv), vars: map[string]string{}, redisURL: redisURL, receiver: receiver.URL}
		t.Run(filepath.Base(page), func(t *testing.T) { ran += fx.runPage(t, abs) })
	}
	if ran < 20 {
		t.Errorf("ran %d edapp commands of the README and docs/; the extractor has lost some", ran)
	}
}

// runPage runs the commands of the page at path, in a directory of its
// own, and returns how many edapp commands it ran.
func (fx *readmeFixture) runPage(t *testing.T, path string) int {
	cmds := readmeCommands(t, path)
	t.Chdir(t.TempDir())
	for _, name := range []string{"hr.csv", "users.csv"} {
		if err := os.WriteFile(name, []byte(readmeCSV), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	subs := readmeSubs(fx)
	ran := 0
	for _, c := range cmds {
		if why, ok := readmeNotRun[c.text]; ok {
			t.Logf("line %d not run (%s): %s", c.line, why, c.text)
			continue
		}
		if !edappLine(c.text) {
			fx.shellLine(t, c)
			continue
		}
		ran++
		t.Run("line"+strconv.Itoa(c.line), func(t *testing.T) { fx.runCommand(t, c, subs) })
	}
	if b, err := os.ReadFile("fake.env"); err == nil && !strings.HasPrefix(string(b), "EDAPP_BASE_URL=http://127.0.0.1:") {
		t.Errorf("fake.env holds %q, want EDAPP_BASE_URL=... first", b)
	}
	return ran
}

// edappLine says whether text runs edapp, after any NAME=VALUE prefixes.
func edappLine(text string) bool {
	words, _ := shellWords(text, func(string) string { return "" })
	for _, w := range words {
		if !strings.Contains(w, "=") {
			return w == "edapp"
		}
	}
	return false
}

// shellLine carries out a line that is not an edapp command but sets what
// the next ones use: `export NAME=VALUE` or `NAME=VALUE`.
func (fx *readmeFixture) shellLine(t *testing.T, c readmeCommand) {
	t.Helper()
	text := c.text
	for _, s := range readmeSubs(fx) {
		if strings.Contains(text, s.old) {
			text = strings.ReplaceAll(text, s.old, s.new(t))
		}
	}
	words, err := shellWords(text, fx.lookup)
	if err != nil {
		t.Fatalf("README line %d: %v", c.line, err)
	}
	exported := len(words) > 0 && words[0] == "export"
	if exported {
		words = words[1:]
	}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		switch {
		case !ok:
			return // not an assignment (go, git): not the CLI's
		case exported && k == "EDAPP_REDIS_URL" && fx.redisURL == "":
			t.Logf("README line %d: no redis-server, the next commands run without Redis", c.line)
		case exported:
			fx.env[k] = v
		default:
			fx.vars[k] = v
		}
	}
}

func (fx *readmeFixture) lookup(k string) string {
	if v, ok := fx.vars[k]; ok {
		return v
	}
	return fx.env[k]
}

// runCommand runs one README command in process and wants exit 0.
func (fx *readmeFixture) runCommand(t *testing.T, c readmeCommand, subs []readmeSub) {
	text := c.text
	for _, s := range subs {
		if strings.Contains(text, s.old) {
			text = strings.ReplaceAll(text, s.old, s.new(t))
			t.Logf("%q replaced: %s", s.old, s.why)
		}
	}
	words, err := shellWords(text, fx.lookup)
	if err != nil {
		t.Fatalf("README line %d: %v", c.line, err)
	}
	e, args, stdoutFile := fx.commandEnv(words)
	var r result
	if longRunning(args) {
		r = runServer(t, e, addrFlag(args))
	} else {
		r = runEnv(t, e, args...)
	}
	if r.code != exitOK {
		t.Fatalf("README line %d: %s\nexit code %d\nstdout:\n%s\nstderr:\n%s", c.line, c.text, r.code, r.stdout, r.stderr)
	}
	if stdoutFile != "" {
		if err := os.WriteFile(stdoutFile, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if m := regexp.MustCompile(`"id":\s*"([^"]+)"`).FindStringSubmatch(r.stdout); m != nil && slices.Contains(args, "create") {
		fx.lastWebhookID = m[1]
	}
}

// commandEnv splits words into NAME=VALUE prefixes (the command's own
// environment), the CLI's arguments, and a `> FILE` redirect; a trailing &
// is dropped, as servers run in the background anyway.
func (fx *readmeFixture) commandEnv(words []string) (env, []string, string) {
	e := env{}
	for k, v := range fx.env {
		e[k] = v
	}
	for len(words) > 0 && words[0] != "edapp" {
		k, v, _ := strings.Cut(words[0], "=")
		e[k] = v
		words = words[1:]
	}
	args := words[1:]
	if len(args) > 0 && args[len(args)-1] == "&" {
		args = args[:len(args)-1]
	}
	var file string
	if i := slices.Index(args, ">"); i >= 0 && i+1 < len(args) {
		file = args[i+1]
		args = slices.Delete(args, i, i+2)
	}
	return e, args, file
}

// longRunning says whether args start a server that runs until interrupted.
func longRunning(args []string) bool {
	return len(args) > 0 && args[0] == "fake" ||
		len(args) > 1 && args[0] == "webhooks" && args[1] == "serve"
}

// addrFlag gives a server without --addr a free port: its default,
// 127.0.0.1:8080, may be taken on a test machine.
func addrFlag(args []string) []string {
	if slices.Contains(args, "--addr") {
		return args
	}
	return append(slices.Clone(args), "--addr", "127.0.0.1:0")
}

// runServer starts a server, interrupts it once it says it serves, and
// returns how it ended.
func runServer(t *testing.T, e env, args []string) result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, strings.NewReader(""), &out, &errOut, e.get) }()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	hang := time.NewTimer(time.Minute) // a guard against a hang, not a measure
	defer hang.Stop()
	for !strings.Contains(errOut.String(), "serving the fake service on") &&
		!strings.Contains(errOut.String(), "edapp webhooks serve: listening") {
		select {
		case code := <-done:
			return result{code, out.String(), errOut.String()}
		case <-hang.C:
			t.Fatalf("edapp %s did not serve in a minute:\n%s", strings.Join(args, " "), errOut.String())
		case <-tick.C:
		}
	}
	cancel()
	code := <-done
	return result{code, out.String(), errOut.String()}
}

// readmeCommands returns the command lines of the ```sh blocks of the
// README at path: continuations joined, comment lines dropped except
// "# or: COMMAND", which is run too.
func readmeCommands(t *testing.T, path string) []readmeCommand {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []readmeCommand
	var cur *readmeCommand
	inSh := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			inSh = line == "```sh"
			continue
		case !inSh:
			continue
		}
		if cur != nil {
			cur.text += " " + strings.TrimSpace(line)
		} else {
			s := strings.TrimSpace(line)
			if rest, ok := strings.CutPrefix(s, "# or: "); ok {
				s = rest
			}
			if s == "" || strings.HasPrefix(s, "#") {
				continue
			}
			cmds = append(cmds, readmeCommand{line: n, text: s})
			cur = &cmds[len(cmds)-1]
		}
		if t, ok := strings.CutSuffix(cur.text, "\\"); ok {
			cur.text = strings.TrimSpace(t)
		} else {
			cur = nil
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

// shellWords splits a command line into words as sh does for the README's
// lines: blanks separate words, single quotes keep everything, double
// quotes and $NAME expand variables, a backslash escapes the next
// character, and a word starting with # starts a comment.
func shellWords(s string, lookup func(string) string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord, quote := false, rune(0)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case quote == '\'' && c != '\'', quote == '"' && c != '"' && c != '$':
			w.WriteRune(c)
		case c == quote:
			quote = 0
		case c == '$':
			j := i + 1
			for j < len(rs) && (rs[j] == '_' || 'A' <= rs[j] && rs[j] <= 'Z' || 'a' <= rs[j] && rs[j] <= 'z' || '0' <= rs[j] && rs[j] <= '9') {
				j++
			}
			w.WriteString(lookup(string(rs[i+1 : j])))
			inWord, i = true, j-1
		case quote != 0:
			w.WriteRune(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(rs):
			i++
			w.WriteRune(rs[i])
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words, nil
		default:
			w.WriteRune(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unterminated quote")
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

func TestShellWords(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"SECRET": "s3"}
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`edapp export --db 'postgres://u:p@h/x?a=b' # a comment`, []string{"edapp", "export", "--db", "postgres://u:p@h/x?a=b"}},
		{`A=1 edapp x --h "K=$SECRET" k=$SECRET`, []string{"A=1", "edapp", "x", "--h", "K=s3", "k=s3"}},
		{`a\ b '' "it's" 'a#b' c#d`, []string{"a b", "", "it's", "a#b", "c#d"}},
		{`'$SECRET'`, []string{"$SECRET"}},
	} {
		got, err := shellWords(tc.in, func(k string) string { return vars[k] })
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := shellWords(`"open`, func(string) string { return "" }); err == nil {
		t.Error("an unterminated quote: no error")
	}
}
