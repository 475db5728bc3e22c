package filedest

import (
	"context"
	"slices"
	"time"

	"github.com/edapp-go/edapp/export"
)

// SavedBudget returns the admissions the state file holds.
func (f *Files) SavedBudget(context.Context) ([]time.Time, error) {
	return slices.Clone(f.st.Budget), nil
}

// SaveBudget writes the admissions into the state file.
func (f *Files) SaveBudget(_ context.Context, admissions []time.Time) error {
	f.st.Budget = admissions
	return f.st.save(f.dir)
}

var _ export.BudgetKeeper = (*Files)(nil)
