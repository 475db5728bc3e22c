package export

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
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
// not start as if its window were empty. Files and Database are
// BudgetKeepers: the state file, and the table edapp_export_budget.
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

// SavedBudget returns the admissions the state file holds.
func (f *Files) SavedBudget(context.Context) ([]time.Time, error) {
	return slices.Clone(f.st.Budget), nil
}

// SaveBudget writes the admissions into the state file.
func (f *Files) SaveBudget(_ context.Context, admissions []time.Time) error {
	f.st.Budget = admissions
	return f.st.save(f.dir)
}

// SavedBudget returns the admissions edapp_export_budget holds for the
// source.
func (x *Database) SavedBudget(ctx context.Context) ([]time.Time, error) {
	release, err := x.hold()
	if err != nil {
		return nil, err
	}
	defer release()
	var raw sql.NullString
	err = x.conn.QueryRowContext(ctx, x.q(`SELECT admissions FROM edapp_export_budget WHERE source = ?`), x.source).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !raw.Valid) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ts []time.Time
	if err := json.Unmarshal([]byte(raw.String), &ts); err != nil {
		return nil, fmt.Errorf("export: edapp_export_budget: %w", err)
	}
	return ts, nil
}

// SaveBudget writes the admissions into the source's row of
// edapp_export_budget.
func (x *Database) SaveBudget(ctx context.Context, admissions []time.Time) error {
	release, err := x.hold()
	if err != nil {
		return err
	}
	defer release()
	b, err := json.Marshal(admissions)
	if err != nil {
		return err
	}
	return x.retry(ctx, func() error {
		_, err := x.conn.ExecContext(ctx, x.q(`INSERT INTO edapp_export_budget (source, admissions, saved_at) VALUES (?, ?, ?)
ON CONFLICT (source) DO UPDATE SET admissions = excluded.admissions, saved_at = excluded.saved_at`), x.source, string(b), x.timeArg(time.Now()))
		return err
	})
}

var (
	_ BudgetKeeper = (*Files)(nil)
	_ BudgetKeeper = (*Database)(nil)
)
