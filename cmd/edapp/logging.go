package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
)

// The long-running commands log through slog with --log-format json: every
// line they write to stderr (progress, waits, warnings, the error that ends
// the run) is a record with a time, the command and the run's id, and a
// progress line the kind it is about. With text (the default) they write
// plain lines, bars on a terminal; elsewhere each line starts with its
// time, since a log file or a journal keeps them for later.

// addLogFormatFlag registers --log-format on the commands of root at the
// given paths. Before such a command runs, it sends stderr through slog.
func addLogFormatFlag(s *ioStreams, root *cobra.Command, paths ...string) {
	for _, p := range paths {
		cmd, _, err := root.Find(strings.Fields(p))
		if err != nil || cmd == root {
			panic("addLogFormatFlag: no command " + p) // a mistake in the command tree, which any test finds
		}
		var format string
		cmd.Flags().StringVar(&format, "log-format", "text", "log format of stderr: text (plain lines with a time when stderr is not a terminal) or json")
		_ = cmd.RegisterFlagCompletionFunc("log-format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
		pre := cmd.PreRunE
		cmd.PreRunE = func(c *cobra.Command, args []string) error {
			if err := logStderr(s, p, format); err != nil {
				return err
			}
			if pre != nil {
				return pre(c, args)
			}
			return nil
		}
	}
}

// logStderr replaces stderr with slog lines for json, and with lines that
// start with their time for text when stderr is not a terminal.
func logStderr(s *ioStreams, command, format string) error {
	var h slog.Handler
	// Debug for the SDK's log, which only --verbose turns on.
	opts := &slog.HandlerOptions{Level: slog.LevelDebug}
	switch format {
	case "text":
		if !isTerminal(s.ErrOut) {
			s.ErrOut = &timedLines{w: s.ErrOut, now: time.Now}
		}
		return nil
	case "json":
		h = slog.NewJSONHandler(s.ErrOut, opts)
	default:
		return usagef("--log-format %q: want text or json", format)
	}
	s.ErrOut = &logLines{log: slog.New(h).With("command", command, "run", newRunID())}
	return nil
}

// newRunID is a random id for the run, which ties its lines together
// among those of other runs.
func newRunID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// logLines is stderr as slog: each line written to it is one record. A
// line "edapp: warning: ..." is a warning; "edapp: " is left out of the
// message.
type logLines struct {
	log *slog.Logger

	mu      sync.Mutex
	pending []byte // a line not ended yet
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, p...)
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		l.line(string(l.pending[:i]))
		l.pending = l.pending[i+1:]
	}
}

func (l *logLines) line(s string, attrs ...any) {
	if strings.TrimSpace(s) == "" {
		return
	}
	msg := strings.TrimPrefix(s, "edapp: ")
	level := slog.LevelInfo
	if rest, ok := strings.CutPrefix(msg, "warning: "); ok {
		msg, level = rest, slog.LevelWarn
	}
	l.log.Log(context.Background(), level, msg, attrs...)
}

// kindLine logs msg about one kind of the export.
func (l *logLines) kindLine(kind, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.line(msg, "kind", kind)
}

// handler is the slog handler behind w when w is stderr sent through slog,
// so that another logger (the SDK's, with --verbose) writes the same lines.
func handler(w io.Writer) (slog.Handler, bool) {
	if l, ok := w.(*logLines); ok {
		return l.log.Handler(), true
	}
	return nil, false
}

// timedLines starts each line written to w with the time, in RFC 3339
// UTC with milliseconds.
type timedLines struct {
	mu      sync.Mutex
	w       io.Writer
	now     func() time.Time
	midLine bool // the last write ended inside a line
}

func (t *timedLines) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b []byte
	for line := range bytes.Lines(p) {
		if !t.midLine {
			b = append(b, t.now().UTC().Format("2006-01-02T15:04:05.000Z07:00 ")...)
		}
		b = append(b, line...)
		t.midLine = line[len(line)-1] != '\n'
	}
	if _, err := t.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}
