package export_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/edappsrc"
	"github.com/edapp-go/edapp/export/scsrc"
)

// memDest is a destination that keeps what it is given.
type memDest struct {
	records map[string]int
	ended   []string
}

func (m *memDest) Resume(context.Context, *export.Kind, export.RunInfo) (export.Plan, error) {
	return export.Plan{}, nil
}
func (m *memDest) Begin(context.Context, *export.Kind, export.Plan) error { return nil }
func (m *memDest) Write(_ context.Context, b *export.Batch) error {
	m.records[b.Kind.Name] += len(b.Records)
	return nil
}
func (m *memDest) End(_ context.Context, k *export.Kind, r *export.KindResult, _ func()) error {
	m.ended = append(m.ended, k.Name)
	return nil
}

// TestRunStopOn: a kind's error that StopOn accepts ends the run, and is
// its error: the first walk goes alone until its first answer, so the run
// sends one request. Without it, every kind is tried.
func TestRunStopOn(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	c, err := edapp.NewClient("wrong-token", edapp.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	unauthorized := func(err error) bool {
		var api *edapp.APIError
		return errors.As(err, &api) && api.StatusCode == http.StatusUnauthorized
	}
	d := &memDest{records: map[string]int{}}
	_, err = export.Run(context.Background(), edappsrc.New(c), export.Options{StopOn: unauthorized}, d)
	if err == nil || !strings.Contains(err.Error(), "export stopped in ") || !unauthorized(err) {
		t.Errorf("with StopOn: %v, kinds ended %v", err, d.ended)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("with StopOn: %d requests, want the first walk's one", n)
	}
	d = &memDest{records: map[string]int{}}
	_, err = export.Run(context.Background(), edappsrc.New(c), export.Options{Kinds: []string{"users", "groups"}}, d)
	if err == nil || len(d.ended) != 2 {
		t.Errorf("without StopOn: %v, kinds ended %v", err, d.ended)
	}
}

// TestRunMemoryDestination: every kind's records reach a destination of
// the caller's, as the fake counts them.
func TestRunMemoryDestination(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	if err := fakedata.SeedAccount(srv, fakedata.AccountSpec{Users: 30, Attempts: 2500}); err != nil {
		t.Fatal(err)
	}
	d := &memDest{records: map[string]int{}}
	sum, err := export.Run(context.Background(), edappsrc.New(srv.Client()), export.Options{PageSize: 1000, Now: time.Now}, d)
	if err != nil {
		t.Fatal(err)
	}
	if d.records["attempts"] != 2500 || d.records["users"] != 30 || len(sum.Kinds) != len(export.KindNames(edappsrc.Kinds(), func(k export.Kind) bool { return !k.PerUser })) {
		t.Errorf("records %v, %d kinds", d.records, len(sum.Kinds))
	}
}

// TestRunCountsAnEmptyPage: a kind whose only request came back empty
// sent one request, and says so.
func TestRunCountsAnEmptyPage(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	d := &memDest{records: map[string]int{}}
	sum, err := export.Run(context.Background(), edappsrc.New(srv.Client()), export.Options{Kinds: []string{"collections", "course_progress"}}, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Kinds {
		if r.Records != 0 || r.Requests != 1 || r.Attempts != 1 {
			t.Errorf("%s: %d records, %d requests, %d attempts; want 0, 1, 1", r.Kind, r.Records, r.Requests, r.Attempts)
		}
	}
}

// TestKindFromContext: an Observer sees the kind of each call.
func TestKindFromContext(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	if _, err := fakedata.SeedDemo(srv); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	byKind := map[string]int{}
	obs := edapp.Observer{Attempt: func(ctx context.Context, e edapp.AttemptEvent) {
		k, ok := export.KindFromContext(ctx)
		if !ok {
			k = "(none)"
		}
		mu.Lock()
		byKind[k]++
		mu.Unlock()
	}}
	c, err := edapp.NewClient(srv.Token, edapp.WithBaseURL(srv.URL), edapp.WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := export.Run(context.Background(), edappsrc.New(c), export.Options{Kinds: []string{"users", "groups", "group_children", "lessons"}}, &memDest{records: map[string]int{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Kinds {
		if byKind[r.Kind] != r.Attempts || r.Attempts == 0 {
			t.Errorf("%s: the observer saw %d attempts, the summary %d", r.Kind, byKind[r.Kind], r.Attempts)
		}
	}
	if byKind["(none)"] != 0 {
		t.Errorf("%d attempts without a kind", byKind["(none)"])
	}
}

// TestRunOverlapAtLeastTheSources: each source refuses an overlap below
// its own (EdApp 10 minutes, SafetyCulture 2 h 15 min) before anything
// is fetched or written, and takes a larger one for every incremental
// kind.
func TestRunOverlapAtLeastTheSources(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		src  export.Source
		min  time.Duration
	}{
		{"edapp", edappsrc.New(nil), export.Overlap},
		{"safetyculture", scsrc.New(nil), scsrc.Overlap},
	} {
		// No client and no destination: a run past the check fails on
		// them, not on the overlap.
		for _, bad := range []time.Duration{-time.Second, time.Second, tc.min - time.Second} {
			if _, err := export.Run(ctx, tc.src, export.Options{Overlap: bad}); !errors.Is(err, edapp.ErrInvalidInput) {
				t.Errorf("%s: overlap %s: %v, want ErrInvalidInput", tc.name, bad, err)
			}
		}
		if _, err := export.Run(ctx, tc.src, export.Options{Overlap: tc.min}); errors.Is(err, edapp.ErrInvalidInput) {
			t.Errorf("%s: overlap %s refused: %v", tc.name, tc.min, err)
		}
	}
}
