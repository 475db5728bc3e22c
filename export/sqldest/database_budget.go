package sqldest

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/edapp-go/edapp/export"
)

// SavedBudget returns the admissions edapp_export_budget holds for the
// source.
func (x *Database) SavedBudget(ctx context.Context) ([]time.Time, error) {
	release, err := x.own.hold()
	if err != nil {
		return nil, err
	}
	defer release()
	var raw sql.NullString
	err = x.own.conn.QueryRowContext(ctx, rebind(x.d, `SELECT admissions FROM edapp_export_budget WHERE source = ?`), x.source).Scan(&raw)
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
	release, err := x.own.hold()
	if err != nil {
		return err
	}
	defer release()
	b, err := admissionsJSON(admissions)
	if err != nil {
		return err
	}
	return x.own.retry(ctx, func(bool) error {
		_, err := x.own.conn.ExecContext(ctx, rebind(x.d, `INSERT INTO edapp_export_budget (source, admissions, saved_at) VALUES (?, ?, ?)
ON CONFLICT (source) DO UPDATE SET admissions = excluded.admissions, saved_at = excluded.saved_at`), x.source, string(b), timeArg(x.d, time.Now()))
		return err
	})
}

var _ export.BudgetKeeper = (*Database)(nil)

// admissionsJSON is json.Marshal(admissions), byte for byte, without its
// reflection: a saved budget holds every admission of the window, and
// marshalling them one by one was a share of a re-run's CPU.
func admissionsJSON(admissions []time.Time) ([]byte, error) {
	if admissions == nil {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 2+len(admissions)*len(`"2006-01-02T15:04:05.999999999Z07:00",`))
	b = append(b, '[')
	for i, t := range admissions {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		var err error
		if b, err = t.AppendText(b); err != nil { // a year outside 0–9999, as MarshalJSON
			return nil, fmt.Errorf("export: a budget admission: %w", err)
		}
		b = append(b, '"')
	}
	return append(b, ']'), nil
}
