package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/edapp-go/edapp"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// Exit codes that scripts can rely on.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
	// exitRejected: the run finished, but a database refused some records,
	// which it kept in its rejects table (by default: see
	// --rejects-exit-code).
	exitRejected = 3
)

// rejectedError ends a run that finished with rejected records; the run
// exits with code.
type rejectedError struct{ n, code int }

func (e rejectedError) Error() string {
	return fmt.Sprintf("finished, with %d rejected record(s): the database keeps them in its rejects table", e.n)
}

// usageError is a mistake in the command line: an unknown flag or command, a
// missing or malformed flag. It exits with exitUsage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// refusedError is an input that cannot be used as it is (a database that
// does not exist, or one no export of this version wrote): it exits with
// exitUsage, without the usage hint.
type refusedError struct{ err error }

func (e refusedError) Error() string { return e.err.Error() }
func (e refusedError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// app holds what every command of a run shares: the streams, the
// environment, the global flags and the state the run builds up.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	env            func(string) string

	token   string
	baseURL string
	verbose bool
	// endpointMeters watch the limiters of SafetyCulture's endpoints, one
	// each, when the run built them.
	endpointMeters []*waitMeter
	// service is the service the run's requests go to, whose settings
	// its hints name; zero for EdApp.
	service service
	// budget holds the budget flags of the commands that take them.
	budget budgetFlags
	// noticeMu guards bars, the progress display notices go above.
	noticeMu sync.Mutex
	bars     interface{ Write([]byte) (int, error) }
	// budgeted are the commands that take the budget flags; they end with
	// a line on the requests sent and the time waited.
	budgeted map[*cobra.Command]bool

	// closers run when the command is done (a Redis client, for one).
	closers []func() error
	// statsOut is --stats: the run's counters and where they go.
	statsOut statsFlag
}

// run executes the command line args and returns the process's exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, env: env}
	return newFactory(a).run(ctx, args)
}

func (f *factory) run(ctx context.Context, args []string) int {
	a := f.app
	a.stderr = &lockedWriter{w: a.stderr}
	root := newCmdRoot(f)
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	cmd, err := root.ExecuteContextC(ctx)
	for _, c := range a.closers {
		_ = c()
	}
	if f.api != nil && a.budgeted[cmd] {
		fmt.Fprintf(a.stderr, "edapp: %s\n", f.api.meter.summary())
	}
	if len(a.endpointMeters) > 0 && a.budgeted[cmd] {
		fmt.Fprintf(a.stderr, "edapp: %s\n", endpointsSummary(a.endpointMeters))
	}
	if serr := a.statsOut.write(a.stdout); serr != nil && err == nil {
		err = serr
	}
	if err == nil {
		return exitOK
	}
	if re := new(rejectedError); errors.As(err, re) {
		fmt.Fprintf(a.stderr, "edapp: %s\n", reason(err))
		return re.code
	}
	if errors.As(err, new(refusedError)) {
		fmt.Fprintf(a.stderr, "edapp: %s\n", reason(err))
		return exitUsage
	}
	if isUsage(err) {
		fmt.Fprintf(a.stderr, "edapp: %s\n", reason(err))
		if cmd != nil {
			fmt.Fprintf(a.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
		return exitUsage
	}
	fmt.Fprintf(a.stderr, "edapp: %s\n", reason(err))
	if h := a.hint(err); h != "" {
		fmt.Fprintf(a.stderr, "edapp: %s\n", h)
	}
	return exitError
}

// isUsage reports whether err is a command-line mistake. Every path that
// reports one returns a usageError: the commands' Args validators and
// their own checks of their flags (required ones included), and cobra's
// flag parsing through SetFlagErrorFunc.
func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

func newCmdRoot(f *factory) *cobra.Command {
	a := f.app
	root := &cobra.Command{
		Use:   "edapp",
		Short: "Work with an EdApp (SafetyCulture Training) account from the command line",
		Long: `edapp works with an EdApp (SafetyCulture Training) account through its REST API.

The API token comes from --token or the EDAPP_API_TOKEN environment variable,
the base URL from --base-url or EDAPP_BASE_URL. The token never appears in
any output.

Exit codes: 0 success, 1 error, 2 bad usage (unknown command or flag, a
missing or malformed flag).`,
		Example: `  export EDAPP_API_TOKEN=...
  edapp export --out ./export
  edapp users sync --csv users.csv
  edapp webhooks list`,
		Version:       versionLine(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&a.token, "token", "", "API token (default: $EDAPP_API_TOKEN)")
	pf.StringVar(&a.baseURL, "base-url", "", "API base URL (default: $EDAPP_BASE_URL or "+edapp.DefaultBaseURL+")")
	pf.BoolVarP(&a.verbose, "verbose", "v", false, "log every request (the SDK's debug log) to stderr")
	root.CompletionOptions.HiddenDefaultCmd = false

	root.AddCommand(newCmdExport(f, nil), newCmdUsers(f), newCmdWebhooks(f), newCmdFake(f, nil), newCmdMigrate(f), newCmdDB(f))
	a.addLogFormatFlag(root, "export", "users sync")
	// The completion commands take their output stream when they are made.
	root.SetOut(a.stdout)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	usageArgs(root)
	return root
}

// usageArgs makes the argument errors of cmd and its subcommands usage
// errors. The CLI's own validators return them already; cobra's help and
// completion commands use cobra's, whose errors are plain. A command that
// only holds subcommands is made to run (printing its help), as cobra
// checks the arguments of runnable commands only.
func usageArgs(cmd *cobra.Command) {
	if !cmd.Runnable() && cmd.HasSubCommands() {
		cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
	if v := cmd.Args; v != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			err := v(c, args)
			if err != nil && !isUsage(err) {
				return usageError{err}
			}
			return err
		}
	}
	for _, sub := range cmd.Commands() {
		usageArgs(sub)
	}
}

// noArgs refuses positional arguments as a usage error; on a command with
// subcommands it names the unknown one.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasSubCommands() {
		return usagef("unknown command %q for %q", args[0], cmd.CommandPath())
	}
	return usagef("%q takes no arguments", cmd.CommandPath())
}

// groupCommand is a command that only holds subcommands.
func groupCommand(use, short, example string) *cobra.Command {
	return &cobra.Command{
		Use:     use,
		Short:   short,
		Example: example,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
}

// tokenValue is the API token from --token or EDAPP_API_TOKEN.
func (a *app) tokenValue() string { return a.flagOrEnv(a.token, "EDAPP_API_TOKEN") }

// flagOrEnv is a flag's value, or the environment variable name's when the
// flag was not given.
func (a *app) flagOrEnv(flagValue, name string) string {
	if flagValue != "" {
		return flagValue
	}
	return a.env(name)
}

// observer is the client's hook: --stats's counters, and OpenTelemetry
// when OTEL_EXPORTER_OTLP_ENDPOINT is set (its exporters are shut down,
// and so flushed, with the command's closers).
func (a *app) observer(budget edapp.BudgetReporter) (edapp.Observer, error) {
	var obs []edapp.Observer
	if s := a.statsOut.stats; s != nil {
		obs = append(obs, s.observer())
	}
	if a.env(otlpEndpointEnv) != "" {
		o, shutdown, err := startTelemetry(context.Background(), budget)
		if err != nil {
			return edapp.Observer{}, fmt.Errorf("OpenTelemetry (%s is set): %w", otlpEndpointEnv, err)
		}
		// First, while the limiter the budget gauge reads is still open.
		a.closers = append([]func() error{func() error {
			if err := shutdown(); err != nil {
				fmt.Fprintf(a.stderr, "edapp: warning: OpenTelemetry: %v\n", err)
			}
			return nil
		}}, a.closers...)
		obs = append(obs, o)
	}
	return combineObservers(obs...), nil
}

// logger writes slog text lines to stderr, or the records of
// --log-format's handler once stderr goes through it.
func (a *app) logger(level slog.Level) *slog.Logger {
	if h, ok := handler(a.stderr); ok {
		return slog.New(h)
	}
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
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

// notice tells the user about a wait: above the bars while they are
// drawn, else as a line on stderr.
func (a *app) notice(msg string) {
	a.noticeMu.Lock()
	defer a.noticeMu.Unlock()
	if a.bars != nil {
		if _, err := a.bars.Write([]byte(msg + "\n")); err == nil {
			return
		} // the bars are done: a plain line then
	}
	fmt.Fprintf(a.stderr, "edapp: %s\n", msg)
}
