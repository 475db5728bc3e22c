package sqldest

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestDatabaseSaveBudget: the database keeps the budget spent in
// edapp_export_budget, to the nanosecond, on SQLite and PostgreSQL; a
// second save replaces the first, and a new database holds none.
func TestDatabaseSaveBudget(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, dialect := openTestDB(t, url)
		dest, err := OpenDatabase(ctx, db, dialect)
		if err != nil {
			t.Fatal(err)
		}
		defer dest.Close()
		if got, err := dest.SavedBudget(ctx); err != nil || len(got) != 0 {
			t.Fatalf("a new database: %v, %v", got, err)
		}
		at := time.Date(2026, 11, 24, 10, 0, 0, 123456789, time.UTC)
		for _, want := range [][]time.Time{{at, at.Add(time.Microsecond)}, {at.Add(time.Second)}} {
			if err := dest.SaveBudget(ctx, want); err != nil {
				t.Fatal(err)
			}
			got, err := dest.SavedBudget(ctx)
			if err != nil || !slices.EqualFunc(got, want, time.Time.Equal) {
				t.Errorf("saved %v, read back %v, %v", want, got, err)
			}
		}
	})
}
