package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"golang.org/x/term"
)

// ioStreams is a run's streams and the state the run builds up on them, as
// gh's iostreams.IOStreams: the factory hands the one value to every
// command. Beside the streams it keeps what the end of the run reads: the
// closers, --stats's counters, the meters whose summary ends a budgeted
// command, and the service the requests went to, which an error's hint
// names. Notices of waits go above the progress bars while they are drawn.
type ioStreams struct {
	In  io.Reader
	Out io.Writer
	// ErrOut is stderr, its writes serialised: progress lines, wait
	// notices and the SDK's log share it. --log-format replaces it before
	// the command runs.
	ErrOut io.Writer

	// noticeMu guards bars, the progress display notices go above.
	noticeMu sync.Mutex
	bars     io.Writer

	// closers run when the command is done (a Redis client, for one).
	closers []func() error
	// stats is --stats: the run's counters and where they go.
	stats statsFlag
	// meter watches the EdApp client's limiter; endpointMeters those of
	// SafetyCulture's endpoints, one each, when the run built them.
	meter          *waitMeter
	endpointMeters []*waitMeter
	// service is the service the run's requests go to, whose settings
	// its hints name; zero for EdApp.
	service service
}

// newIOStreams is a run's streams, stderr serialised.
func newIOStreams(in io.Reader, out, errOut io.Writer) *ioStreams {
	return &ioStreams{In: in, Out: out, ErrOut: &lockedWriter{w: errOut}}
}

// end runs the closers, prints the budget's summary for a budgeted
// command and writes --stats; it returns the error writing --stats.
func (s *ioStreams) end(budgeted bool) error {
	for _, c := range s.closers {
		_ = c()
	}
	if s.meter != nil && budgeted {
		fmt.Fprintf(s.ErrOut, "edapp: %s\n", s.meter.summary())
	}
	if len(s.endpointMeters) > 0 && budgeted {
		fmt.Fprintf(s.ErrOut, "edapp: %s\n", endpointsSummary(s.endpointMeters))
	}
	return s.stats.write(s.Out)
}

// notice tells the user about a wait: above the bars while they are
// drawn, else as a line on stderr.
func (s *ioStreams) notice(msg string) {
	s.noticeMu.Lock()
	defer s.noticeMu.Unlock()
	if s.bars != nil {
		if _, err := s.bars.Write([]byte(msg + "\n")); err == nil {
			return
		} // the bars are done: a plain line then
	}
	fmt.Fprintf(s.ErrOut, "edapp: %s\n", msg)
}

// showBars makes notices go above bars until the bars are done.
func (s *ioStreams) showBars(bars io.Writer) (done func()) {
	s.noticeMu.Lock()
	s.bars = bars
	s.noticeMu.Unlock()
	return func() {
		s.noticeMu.Lock()
		s.bars = nil
		s.noticeMu.Unlock()
	}
}

// logger writes slog text lines to stderr, or the records of
// --log-format's handler once stderr goes through it.
func (s *ioStreams) logger(level slog.Level) *slog.Logger {
	if h, ok := handler(s.ErrOut); ok {
		return slog.New(h)
	}
	return slog.New(slog.NewTextHandler(s.ErrOut, &slog.HandlerOptions{Level: level}))
}

// isTerminal reports whether w is a terminal; output to anything else is
// plain (no bars, no colours, machine-readable by default).
func isTerminal(w io.Writer) bool {
	if lw, ok := w.(*lockedWriter); ok {
		w = lw.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// lockedWriter serializes writes to stderr, which progress lines, wait
// notices and the SDK's log share.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
