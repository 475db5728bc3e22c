package main

import (
	"context"
	"log/slog"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/scsrc"
	"github.com/edapp-go/edapp/export/sqldest"
	"github.com/edapp-go/edapp/safetyculture"
)

// sourceKindNames lists the kinds of --source.
func sourceKindNames(source string) []string {
	all := func(export.Kind) bool { return true }
	if source == sqldest.SourceSafetyCulture {
		return export.KindNames(scsrc.Kinds(), all)
	}
	return kindNames(all)
}

// newSafetyCultureClient is the SafetyCulture client of --source
// safetyculture: --token or SAFETYCULTURE_API_TOKEN, --base-url or
// SAFETYCULTURE_BASE_URL. Each endpoint keeps its own limit: its class's,
// or classes' for the classes it names, shared through --redis.
func newSafetyCultureClient(f *factory, b *budgetFlags, classes scBudget) (*safetyculture.Client, error) {
	f.IO.service = safetyCultureService
	token := flagOrEnv(f.Global.token, f.Env, "SAFETYCULTURE_API_TOKEN")
	if token == "" {
		return nil, usagef("no SafetyCulture API token: pass --token or set SAFETYCULTURE_API_TOKEN")
	}
	limiterFor, err := scLimiters(f.IO, f.Env, b, token, classes)
	if err != nil {
		return nil, err
	}
	opts := []edapp.Option{edapp.WithUserAgent("edapp-cli/" + edapp.Version), edapp.WithRouteLimiter(limiterFor)}
	if base := flagOrEnv(f.Global.baseURL, f.Env, "SAFETYCULTURE_BASE_URL"); base != "" {
		opts = append(opts, edapp.WithBaseURL(base))
	}
	if f.Global.verbose {
		opts = append(opts, edapp.WithLogger(f.IO.logger(slog.LevelDebug)))
	}
	obs, err := newObserver(f.IO, f.Env, nil) // each endpoint's budget is its own: no one gauge
	if err != nil {
		return nil, err
	}
	opts = append(opts, edapp.WithObserver(obs))
	c, err := safetyculture.NewClient(token, opts...)
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

// safetyCultureExportRun is exportRun for --source safetyculture: the
// same destinations, summary and exit codes, SafetyCulture's kinds.
func safetyCultureExportRun(ctx context.Context, o *exportOptions) error {
	c, err := o.SafetyCultureClient()
	if err != nil {
		return err
	}
	dests, closeDests, err := exportDestinations(ctx, o)
	if err != nil {
		return err
	}
	defer closeDests()
	opts := o.engine
	prog := o.Progress(context.Background(), isTerminal(o.IO.ErrOut))
	opts.Progress = progressAdapter{prog}
	opts.StopOn = fatal
	sum, err := o.RunExport(ctx, scsrc.New(c), opts, dests...)
	return exportDone(o, sum, prog, rebuildIdentities(ctx, dests, err))
}

// rebuildIdentities rebuilds the database's identities after a run that
// ended well (err nil), and returns the run's error or the rebuild's.
func rebuildIdentities(ctx context.Context, dests []export.Destination, err error) error {
	if err != nil {
		return err
	}
	for _, d := range dests {
		if x, ok := d.(*sqldest.Database); ok {
			if err := x.RebuildIdentities(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}
