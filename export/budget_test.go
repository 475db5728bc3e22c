package export_test

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/edappsrc"
	"github.com/edapp-go/edapp/export/filedest"
)

// countingSpender reports one admission more each time it is asked.
type countingSpender struct{ n atomic.Int64 }

func (s *countingSpender) Admissions() []time.Time {
	n := s.n.Add(1)
	return []time.Time{time.Date(2026, 11, 24, 10, 0, 0, int(n), time.UTC)}
}

// filesFixture holds 60 attempts made just now (filedest's test fixture).
func filesFixture(t *testing.T) *edapptest.Server {
	t.Helper()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	demo, err := fakedata.SeedDemo(srv)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		id, err := srv.AddUser(edapptest.UserSpec{Username: "learner" + strconv.Itoa(i)})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range demo.LessonIDs[0][:3] {
			if err := srv.CompleteLesson(id, l, 80); err != nil {
				t.Fatal(err)
			}
		}
	}
	return srv
}

// savingFiles counts the saves of the budget.
type savingFiles struct {
	*filedest.Files
	saves int
}

func (f *savingFiles) SaveBudget(ctx context.Context, ts []time.Time) error {
	f.saves++
	return f.Files.SaveBudget(ctx, ts)
}

// TestRunSavesTheBudget: a run saves what its limiter admitted while it
// writes (so that a process killed outright loses only the last seconds'
// worth) and again when it ends, interrupted or not; the next run reads
// it back with SavedBudget.
func TestRunSavesTheBudget(t *testing.T) {
	t.Parallel()
	srv := filesFixture(t)
	dir := t.TempDir()
	f, err := filedest.Open(dir, filedest.WithFormat("csv"))
	if err != nil {
		t.Fatal(err)
	}
	dest := &savingFiles{Files: f}
	var clock atomic.Int64 // each reading is 1 s after the last
	now := func() time.Time { return time.Unix(clock.Add(1), 0) }
	spender := &countingSpender{}
	_, err = export.Run(context.Background(), edappsrc.New(srv.Client()), export.Options{Kinds: []string{"attempts"}, PageSize: 5, Concurrency: 1, Budget: spender, Now: now}.WithGroupRows(5), dest)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if dest.saves < 3 {
		t.Errorf("%d saves of the budget in a run of 12 batches: want some while it writes, and one at its end", dest.saves)
	}
	f, err = filedest.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := export.SavedBudget(context.Background(), f, f) // one destination twice: counted once
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 11, 24, 10, 0, 0, int(spender.n.Load()), time.UTC)
	if len(got) != 1 || !got[0].Equal(want) {
		t.Errorf("saved %v, want [%v] (the last admissions)", got, want)
	}

	// An interrupted run saves too.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := spender.n.Load()
	_, err = export.Run(ctx, edappsrc.New(srv.Client()), export.Options{Kinds: []string{"attempts"}, Budget: spender}, f)
	if !errors.Is(err, export.ErrInterrupted) || spender.n.Load() != before+1 {
		t.Errorf("interrupted run: %v, %d saves", err, spender.n.Load()-before)
	}
}

// stubKeeper is a BudgetKeeper that holds what it is given.
type stubKeeper struct {
	export.Destination
	saved []time.Time
}

func (k *stubKeeper) SavedBudget(context.Context) ([]time.Time, error) { return k.saved, nil }
func (k *stubKeeper) SaveBudget(context.Context, []time.Time) error    { return nil }

// TestSavedBudget merges what the destinations saved, sorted, each time
// once, and leaves out a zero time (a state changed by hand), which
// edapp.WithAdmissions would refuse.
func TestSavedBudget(t *testing.T) {
	t.Parallel()
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	a := &stubKeeper{saved: []time.Time{at(3), {}, at(1)}}
	b := &stubKeeper{saved: []time.Time{at(2), at(1).UTC()}}
	got, err := export.SavedBudget(context.Background(), a, b)
	if err != nil || len(got) != 3 || !got[0].Equal(at(1)) || !got[1].Equal(at(2)) || !got[2].Equal(at(3)) {
		t.Errorf("SavedBudget = %v, %v", got, err)
	}
}
