package main

import (
	"context"
	"database/sql"
	"io"
	"log/slog"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
)

// factory hands each command what it builds on, as gh's cmdutil.Factory
// does: the run (its streams, its environment and the global, budget and
// stats flags, through the embedded app) and constructors for the API
// client, the export's destinations, the export engine and the progress
// display. A command is made by newCmdX(f, runF): with runF nil it runs;
// a test passes a runF to see what the flags parsed to, or replaces a
// constructor to change what the command builds.
type factory struct {
	*app

	// NewClient is the SDK's client constructor; client calls it with the
	// options the flags give.
	NewClient func(token string, opts ...edapp.Option) (*edapp.Client, error)
	// OpenDatabase takes a database for an export.
	OpenDatabase func(ctx context.Context, db *sql.DB, d export.Dialect, opts ...export.DatabaseOption) (*export.Database, error)
	// OpenFiles takes a directory for an export.
	OpenFiles func(dir, format string, fresh bool, opts ...export.FilesOption) (*export.Files, error)
	// RunExport is the export engine, for either source.
	RunExport func(ctx context.Context, src export.Source, opts export.Options, dests ...export.Destination) (*export.Summary, error)
	// NewProgress reports a run's progress on w: bars, or log lines.
	NewProgress func(ctx context.Context, w io.Writer, bars bool) progress

	// api is the run's client once client has built it.
	api *apiClient
}

// newFactory is the factory of a run, with the production constructors.
func newFactory(a *app) *factory {
	return &factory{
		app:          a,
		NewClient:    edapp.NewClient,
		OpenDatabase: export.OpenDatabase,
		OpenFiles:    export.OpenFiles,
		RunExport:    export.Run,
		NewProgress:  newProgress,
	}
}

// apiClient is an SDK client and the meter on its limiter, which counts
// the requests sent and the time waited for the run's summary.
type apiClient struct {
	*edapp.Client
	meter *waitMeter
}

// client returns the run's one API client, built on the first call from
// the global and budget flags and the environment.
func (f *factory) client() (*edapp.Client, error) {
	if f.api == nil {
		api, err := f.newAPIClient()
		if err != nil {
			return nil, err
		}
		f.api = api
	}
	return f.api.Client, nil
}

func (f *factory) newAPIClient() (*apiClient, error) {
	token := f.tokenValue()
	if token == "" {
		return nil, usagef("no API token: pass --token or set EDAPP_API_TOKEN")
	}
	opts := []edapp.Option{edapp.WithUserAgent("edapp-cli/" + edapp.Version)}
	if base := f.flagOrEnv(f.baseURL, "EDAPP_BASE_URL"); base != "" {
		opts = append(opts, edapp.WithBaseURL(base))
	}
	if f.verbose {
		opts = append(opts, edapp.WithLogger(f.logger(slog.LevelDebug)))
	}
	l, err := f.limiter(token)
	if err != nil {
		return nil, err
	}
	meter := newWaitMeter(l, f.notice)
	if !isTerminal(f.stderr) {
		meter.remind = remindEvery // a log has no bar that shows a wait going on
	}
	opts = append(opts, edapp.WithLimiter(meter))
	obs, err := f.observer(meter.budgetReporter())
	if err != nil {
		return nil, err
	}
	opts = append(opts, edapp.WithObserver(obs))
	c, err := f.NewClient(token, opts...)
	if err != nil {
		return nil, usageError{err}
	}
	return &apiClient{Client: c, meter: meter}, nil
}

// spender is the run's limiter when it keeps its own count, for the
// export to save; nil when Redis keeps the count or there is no client.
func (f *factory) spender() export.Spender {
	if f.api == nil {
		return nil
	}
	if l, ok := f.api.meter.inner.(*edapp.WindowLimiter); ok {
		return l
	}
	return nil
}

// progress is NewProgress on stderr; wait notices go above its bars until
// it is done.
func (f *factory) progress(ctx context.Context, bars bool) progress {
	p := f.NewProgress(ctx, f.stderr, bars)
	if bp, ok := p.(*barProgress); ok {
		f.noticeMu.Lock()
		f.bars = bp.p
		f.noticeMu.Unlock()
		bp.done = func() {
			f.noticeMu.Lock()
			f.bars = nil
			f.noticeMu.Unlock()
		}
	}
	return p
}
