package export

import (
	"context"
	"errors"
	"slices"
	"time"
)

// Spender reports what a client's limiter admitted lately: the start
// times of the requests in its current window. *edapp.WindowLimiter is
// one (see edapp.WindowLimiter.Admissions and edapp.WithAdmissions).
type Spender interface {
	Admissions() []time.Time
}

// BudgetKeeper is a Destination that keeps what runs spent of the request
// budget, so that a run resumed after Ctrl-C, an error or a crash does
// not start as if its window were empty. filedest.Files and
// sqldest.Database are BudgetKeepers: the state file, and the table edapp_export_budget.
type BudgetKeeper interface {
	// SavedBudget returns the start times saved last, in any order; the
	// caller drops those older than its window.
	SavedBudget(ctx context.Context) ([]time.Time, error)
	// SaveBudget replaces them.
	SaveBudget(ctx context.Context, admissions []time.Time) error
}

// budgetSaveEvery is how often a run saves its admissions while batches
// are written. A process killed outright (kill -9, a power cut) loses at
// most what it spent since the last save: about this long, plus the
// requests in flight.
const budgetSaveEvery = 2 * time.Second

// SavedBudget returns what the destinations that keep it (BudgetKeeper)
// saved of the request budget, merged and sorted: what a new run's limiter
// should count (edapp.WithAdmissions). A zero time, which no limiter
// reports, is left out.
func SavedBudget(ctx context.Context, dests ...Destination) ([]time.Time, error) {
	var all []time.Time
	for _, d := range dests {
		if k, ok := d.(BudgetKeeper); ok {
			ts, err := k.SavedBudget(ctx)
			if err != nil {
				return nil, err
			}
			for _, t := range ts {
				if !t.IsZero() {
					all = append(all, t)
				}
			}
		}
	}
	slices.SortFunc(all, time.Time.Compare)
	// Two destinations of one run saved the same times: count them once.
	return slices.CompactFunc(all, time.Time.Equal), nil
}

// saveBudget saves what Options.Budget admitted into every destination
// that keeps it: at most every budgetSaveEvery unless force.
func (e *engine) saveBudget(ctx context.Context, force bool) error {
	if e.opts.Budget == nil {
		return nil
	}
	e.budgetMu.Lock()
	defer e.budgetMu.Unlock()
	now := e.opts.Now()
	if !force && now.Sub(e.budgetSaved) < budgetSaveEvery {
		return nil
	}
	e.budgetSaved = now
	spent := e.opts.Budget.Admissions()
	var errs []error
	for _, d := range e.dests {
		if k, ok := d.(BudgetKeeper); ok {
			errs = append(errs, k.SaveBudget(ctx, spent))
		}
	}
	return errors.Join(errs...)
}
