package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/edapp-go/edapp"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// Exit codes that scripts can rely on.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// usageError is a mistake in the command line: an unknown flag or command, a
// missing or malformed flag. It exits with exitUsage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// app holds what every command shares: the streams, the environment and the
// global flags.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	env            func(string) string

	token   string
	baseURL string
	verbose bool

	// exportHook is called after each record an export fetches (tests).
	exportHook func(kind string, n int)
	// exportPartSize overrides the records per part (tests).
	exportPartSize int
	// exportPageSize overrides the records per request (tests).
	exportPageSize int
}

// run executes the command line args and returns the process's exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, env: env}
	return a.run(ctx, args)
}

func (a *app) run(ctx context.Context, args []string) int {
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	if isUsage(err) {
		fmt.Fprintf(a.stderr, "edapp: %v\n", err)
		if cmd != nil {
			fmt.Fprintf(a.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
		return exitUsage
	}
	fmt.Fprintf(a.stderr, "edapp: %v\n", err)
	return exitError
}

// isUsage reports whether err is a command-line mistake. Cobra reports some
// of these (unknown commands, missing required flags) as plain errors.
func isUsage(err error) bool {
	var u usageError
	if errors.As(err, &u) {
		return true
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "required flag(s)", "flag needs an argument", "invalid argument", "accepts ", "requires at least"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

func (a *app) rootCommand() *cobra.Command {
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

	root.AddCommand(a.exportCommand(), a.usersCommand(), a.webhooksCommand(), a.fakeCommand())
	return root
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
func (a *app) tokenValue() string {
	if a.token != "" {
		return a.token
	}
	return a.env("EDAPP_API_TOKEN")
}

// client builds an SDK client from the global flags and the environment.
func (a *app) client() (*edapp.Client, error) {
	token := a.tokenValue()
	if token == "" {
		return nil, usagef("no API token: pass --token or set EDAPP_API_TOKEN")
	}
	opts := []edapp.Option{edapp.WithUserAgent("edapp-cli/" + edapp.Version)}
	base := a.baseURL
	if base == "" {
		base = a.env("EDAPP_BASE_URL")
	}
	if base != "" {
		opts = append(opts, edapp.WithBaseURL(base))
	}
	if a.verbose {
		opts = append(opts, edapp.WithLogger(a.logger(slog.LevelDebug)))
	}
	c, err := edapp.NewClient(token, opts...)
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

// logger writes slog text lines to stderr.
func (a *app) logger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
}

// isTerminal reports whether w is a terminal; output to anything else is
// plain (no bars, no colours, machine-readable by default).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
