package main

import (
	"context"
	"database/sql"
	"log/slog"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/filedest"
	"github.com/edapp-go/edapp/export/sqldest"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/spf13/pflag"
)

// factory hands each command what it builds on, as gh's cmdutil.Factory
// does: the run's streams, the environment, the global flags, and
// constructors. It has no methods and keeps no state of its own: a
// command is made by newCmdX(f, runF), which copies what it needs into its
// options; with runF nil it runs, a test passes a runF to see what the
// flags parsed to, or replaces a field before the command is made to
// change what it builds.
type factory struct {
	// IO is the run's streams and the state the run builds up.
	IO *ioStreams
	// Env reads the environment.
	Env func(string) string
	// Global are the root's flags, read once the command line is parsed.
	Global *globalFlags

	// Client builds an EdApp client from the global flags, the budget
	// flags b and the environment; its limiter's meter joins the run's
	// summary.
	Client func(b *budgetFlags) (*apiClient, error)
	// SafetyCultureClient builds the client of --source safetyculture,
	// each endpoint on its class's budget.
	SafetyCultureClient func(b *budgetFlags, classes scBudget) (*safetyculture.Client, error)
	// Progress reports a run's progress on stderr: bars, or log lines;
	// wait notices go above the bars until they are done.
	Progress func(ctx context.Context, bars bool) progress

	// NewClient is the SDK's client constructor, which Client calls with
	// the options the flags give.
	NewClient func(token string, opts ...edapp.Option) (*edapp.Client, error)
	// OpenDatabase takes a database for an export.
	OpenDatabase func(ctx context.Context, db *sql.DB, d sqldest.Dialect, opts ...sqldest.DatabaseOption) (*sqldest.Database, error)
	// OpenFiles takes a directory for an export.
	OpenFiles func(dir string, opts ...filedest.Option) (*filedest.Files, error)
	// RunExport is the export engine, for either source.
	RunExport func(ctx context.Context, src export.Source, opts export.Options, dests ...export.Destination) (*export.Report, error)
}

// newFactory is the factory of a run on s in the environment env, with
// the production constructors.
func newFactory(s *ioStreams, env func(string) string) *factory {
	f := &factory{
		IO:           s,
		Env:          env,
		Global:       &globalFlags{},
		NewClient:    edapp.NewClient,
		OpenDatabase: sqldest.OpenDatabase,
		OpenFiles:    filedest.Open,
		RunExport:    export.Run,
	}
	f.Client = func(b *budgetFlags) (*apiClient, error) { return newAPIClient(f, b) }
	f.SafetyCultureClient = func(b *budgetFlags, classes scBudget) (*safetyculture.Client, error) {
		return newSafetyCultureClient(f, b, classes)
	}
	f.Progress = func(ctx context.Context, bars bool) progress { return streamProgress(ctx, s, bars) }
	return f
}

// globalFlags are the root's persistent flags.
type globalFlags struct {
	token   string
	baseURL string
	verbose bool
}

func (g *globalFlags) register(pf *pflag.FlagSet) {
	pf.StringVar(&g.token, "token", "", "API token (default: $EDAPP_API_TOKEN)")
	pf.StringVar(&g.baseURL, "base-url", "", "API base URL (default: $EDAPP_BASE_URL or "+edapp.DefaultBaseURL+")")
	pf.BoolVarP(&g.verbose, "verbose", "v", false, "log every request (the SDK's debug log) to stderr")
}

// flagOrEnv is a flag's value, or the environment variable name's when the
// flag was not given.
func flagOrEnv(flagValue string, env func(string) string, name string) string {
	if flagValue != "" {
		return flagValue
	}
	return env(name)
}

// apiClient is an SDK client and the meter on its limiter, which counts
// the requests sent and the time waited for the run's summary.
type apiClient struct {
	*edapp.Client
	meter *waitMeter
}

// newAPIClient builds the EdApp client of f's run from the global flags,
// the budget flags b and the environment.
func newAPIClient(f *factory, b *budgetFlags) (*apiClient, error) {
	token := flagOrEnv(f.Global.token, f.Env, "EDAPP_API_TOKEN")
	if token == "" {
		return nil, usagef("no API token: pass --token or set EDAPP_API_TOKEN")
	}
	opts := []edapp.Option{edapp.WithUserAgent("edapp-cli/" + edapp.Version)}
	if base := flagOrEnv(f.Global.baseURL, f.Env, "EDAPP_BASE_URL"); base != "" {
		opts = append(opts, edapp.WithBaseURL(base))
	}
	if f.Global.verbose {
		opts = append(opts, edapp.WithLogger(f.IO.logger(slog.LevelDebug)))
	}
	l, err := newLimiter(f.IO, f.Env, b, token)
	if err != nil {
		return nil, err
	}
	meter := newWaitMeter(l, f.IO.notice)
	if !isTerminal(f.IO.ErrOut) {
		meter.remind = remindEvery // a log has no bar that shows a wait going on
	}
	opts = append(opts, edapp.WithLimiter(meter))
	obs, err := newObserver(f.IO, f.Env, meter.budgetReporter())
	if err != nil {
		return nil, err
	}
	opts = append(opts, edapp.WithObserver(obs))
	c, err := f.NewClient(token, opts...)
	if err != nil {
		return nil, usageError{err}
	}
	f.IO.meter = meter
	return &apiClient{Client: c, meter: meter}, nil
}

// spender is c's limiter when it keeps its own count, for the export to
// save; nil when Redis keeps the count.
func spender(c *apiClient) export.Spender {
	if l, ok := c.meter.inner.(*edapp.WindowLimiter); ok {
		return l
	}
	return nil
}

// streamProgress is newProgress on s's stderr; wait notices go above its
// bars until it is done.
func streamProgress(ctx context.Context, s *ioStreams, bars bool) progress {
	p := newProgress(ctx, s.ErrOut, bars)
	if bp, ok := p.(*barProgress); ok {
		bp.done = s.showBars(bp.p)
	}
	return p
}
