package main

import (
	"context"
	"log/slog"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/scsrc"
	"github.com/edapp-go/edapp/safetyculture"
)

// sourceKindNames lists the kinds of --source.
func sourceKindNames(source string) []string {
	all := func(export.Kind) bool { return true }
	if source == export.SourceSafetyCulture {
		return export.KindNames(scsrc.Kinds(), all)
	}
	return kindNames(all)
}

// safetyCultureClient is the SafetyCulture client of --source
// safetyculture: --token or SAFETYCULTURE_API_TOKEN, --base-url or
// SAFETYCULTURE_BASE_URL. Each endpoint keeps its own limit: its class's,
// or budget's for the classes it names, shared through --redis.
func (fac *factory) safetyCultureClient(budget scBudget) (*safetyculture.Client, error) {
	fac.service = safetyCultureService
	token := fac.flagOrEnv(fac.token, "SAFETYCULTURE_API_TOKEN")
	if token == "" {
		return nil, usagef("no SafetyCulture API token: pass --token or set SAFETYCULTURE_API_TOKEN")
	}
	limiterFor, err := fac.scLimiters(token, budget)
	if err != nil {
		return nil, err
	}
	opts := []edapp.Option{edapp.WithUserAgent("edapp-cli/" + edapp.Version), edapp.WithRouteLimiter(limiterFor)}
	if base := fac.flagOrEnv(fac.baseURL, "SAFETYCULTURE_BASE_URL"); base != "" {
		opts = append(opts, edapp.WithBaseURL(base))
	}
	if fac.verbose {
		opts = append(opts, edapp.WithLogger(fac.logger(slog.LevelDebug)))
	}
	obs, err := fac.observer(nil) // each endpoint's budget is its own: no one gauge
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

// runSafetyCultureExport is runExport for --source safetyculture: the
// same destinations, summary and exit codes, SafetyCulture's kinds.
func (fac *factory) runSafetyCultureExport(ctx context.Context, o *exportOptions) error {
	c, err := fac.safetyCultureClient(o.scBudget)
	if err != nil {
		return err
	}
	dests, closeDests, err := fac.exportDestinations(ctx, o.flags)
	if err != nil {
		return err
	}
	defer closeDests()
	opts := o.engine
	prog := fac.progress(context.Background(), isTerminal(fac.stderr))
	opts.Progress = progressAdapter{prog}
	opts.StopOn = fatal
	sum, err := fac.RunExport(ctx, scsrc.New(c), opts, dests...)
	return fac.exportDone(sum, prog, o.flags.rejectsExitCode, rebuildIdentities(ctx, dests, err))
}

// rebuildIdentities rebuilds the database's identities after a run that
// ended well (err nil), and returns the run's error or the rebuild's.
func rebuildIdentities(ctx context.Context, dests []export.Destination, err error) error {
	if err != nil {
		return err
	}
	for _, d := range dests {
		if x, ok := d.(*export.Database); ok {
			if err := x.RebuildIdentities(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}
