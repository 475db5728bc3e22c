package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/edapp-go/edapp"
	"github.com/spf13/cobra"
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

// run executes the command line args and returns the process's exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	return runCommand(ctx, newFactory(newIOStreams(stdin, stdout, stderr), env), args)
}

// runCommand executes args with what f hands out and returns the exit
// code: the command's closers run, a budgeted command's summary and
// --stats are written, failed or not, then the error's line and hint.
func runCommand(ctx context.Context, f *factory, args []string) int {
	s := f.IO
	root := newCmdRoot(f)
	root.SetArgs(args)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	cmd, err := root.ExecuteContextC(ctx)
	if serr := s.end(isBudgeted(cmd)); serr != nil && err == nil {
		err = serr
	}
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(s.ErrOut, "edapp: %s\n", reason(err))
	if re := new(rejectedError); errors.As(err, re) {
		return re.code
	}
	if errors.As(err, new(refusedError)) {
		return exitUsage
	}
	if isUsage(err) {
		if cmd != nil {
			fmt.Fprintf(s.ErrOut, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
		return exitUsage
	}
	if h := hint(err, s.service, f.Global, f.Env); h != "" {
		fmt.Fprintf(s.ErrOut, "edapp: %s\n", h)
	}
	return exitError
}

// budgetedAnnotation marks the commands that take the budget flags: they
// end with a line on the requests sent and the time waited.
const budgetedAnnotation = "edapp:budgeted"

func isBudgeted(cmd *cobra.Command) bool {
	return cmd != nil && cmd.Annotations[budgetedAnnotation] == "true"
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
	f.Global.register(root.PersistentFlags())
	root.CompletionOptions.HiddenDefaultCmd = false

	root.AddCommand(newCmdExport(f, nil), newCmdUsers(f), newCmdWebhooks(f), newCmdFake(f, nil), newCmdMigrate(f), newCmdDB(f))
	addLogFormatFlag(f.IO, root, "export", "users sync")
	// The completion commands take their output stream when they are made.
	root.SetOut(f.IO.Out)
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

// newObserver is the client's hook: --stats's counters, and OpenTelemetry
// when OTEL_EXPORTER_OTLP_ENDPOINT is set (its exporters are shut down,
// and so flushed, with the command's closers).
func newObserver(s *ioStreams, env func(string) string, budget edapp.BudgetReporter) (edapp.Observer, error) {
	var obs []edapp.Observer
	if st := s.stats.stats; st != nil {
		obs = append(obs, st.observer())
	}
	if env(otlpEndpointEnv) != "" {
		o, shutdown, err := startTelemetry(context.Background(), budget)
		if err != nil {
			return edapp.Observer{}, fmt.Errorf("OpenTelemetry (%s is set): %w", otlpEndpointEnv, err)
		}
		// First, while the limiter the budget gauge reads is still open.
		s.closers = append([]func() error{func() error {
			if err := shutdown(); err != nil {
				fmt.Fprintf(s.ErrOut, "edapp: warning: OpenTelemetry: %v\n", err)
			}
			return nil
		}}, s.closers...)
		obs = append(obs, o)
	}
	return combineObservers(obs...), nil
}
