package sqldest

import (
	"context"
	"encoding/json"
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

// TestAdmissionsJSON: the saved budget's text is json.Marshal's, byte for
// byte, and a time json.Marshal refuses is refused.
func TestAdmissionsJSON(t *testing.T) {
	t.Parallel()
	east := time.FixedZone("", 5*3600+30*60)
	cases := [][]time.Time{
		nil,
		{},
		{time.Time{}},
		{time.Date(2026, 12, 7, 17, 4, 5, 0, time.UTC), time.Date(2026, 12, 7, 17, 4, 5, 120000000, east)},
		{time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.Local)},
		{time.Now(), time.Now().Add(time.Millisecond)},
	}
	for _, ts := range cases {
		want, err := json.Marshal(ts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := admissionsJSON(ts)
		if err != nil || string(got) != string(want) {
			t.Errorf("admissionsJSON(%v) = %s, %v; want %s", ts, got, err, want)
		}
	}
	if got, err := admissionsJSON([]time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}); err == nil {
		t.Errorf("admissionsJSON(year 10000) = %s, want an error", got)
	}
}

func FuzzAdmissionsJSON(f *testing.F) {
	f.Add(int64(0), int64(0), 0)
	f.Add(int64(1796662800), int64(123456789), 3600)
	f.Fuzz(func(t *testing.T, sec, nsec int64, offset int) {
		ts := []time.Time{time.Unix(sec, nsec).In(time.FixedZone("", offset%(24*3600)))}
		want, werr := json.Marshal(ts)
		got, err := admissionsJSON(ts)
		if (werr == nil) != (err == nil) || (err == nil && string(got) != string(want)) {
			t.Fatalf("admissionsJSON(%v) = %s, %v; json.Marshal: %s, %v", ts, got, err, want, werr)
		}
	})
}
