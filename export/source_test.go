package export_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
)

// row is a record of the test source.
type row struct {
	ID     string `json:"id"`
	Parent string `json:"parent"`
}

// family is a source of two kinds with no service behind it: parents, and
// children, which reads the parents' ids (Needs). parentsFail makes the
// parents' walk fail before it shares anything.
type family struct {
	parentsFail bool
	walks       atomic.Int32 // the parents' walks, children's own included
	sharedOK    atomic.Bool  // what children's Shared said
}

func (src *family) Name() string { return "family" }

func (src *family) Kinds() []export.Kind {
	return []export.Kind{
		{Name: "parents", Columns: []string{"id"}, Fetch: src.fetchParents},
		{Name: "children", Columns: []string{"id", "parent"}, PerParent: true, Needs: []string{"parents"}, Fetch: src.fetchChildren},
	}
}

// walkParents is one walk of the parents' list, counted as one request.
func (src *family) walkParents(ctx context.Context, f *export.Fetch, emit bool) ([]string, error) {
	if err := f.Enter(ctx); err != nil {
		return nil, err
	}
	src.walks.Add(1)
	f.Count(export.Answer{Attempts: 1})
	if src.parentsFail {
		return nil, errors.New("the service is down")
	}
	f.Answered()
	ids := []string{"p1", "p2", "p3"}
	for _, id := range ids {
		if emit {
			if err := export.Emit(f, row{ID: id}); err != nil {
				return nil, err
			}
		}
	}
	return ids, nil
}

func (src *family) fetchParents(ctx context.Context, f *export.Fetch) error {
	ids, err := src.walkParents(ctx, f, true)
	if err == nil {
		export.Share(f, ids, true)
	}
	return err
}

func (src *family) fetchChildren(ctx context.Context, f *export.Fetch) error {
	ids, ok, err := export.Shared[[]string](ctx, f, "parents")
	src.sharedOK.Store(ok)
	if err != nil {
		return err
	}
	if !ok {
		if ids, err = src.walkParents(ctx, f, false); err != nil {
			return err
		}
	}
	return f.EachParent(ctx, ids, func(_ context.Context, id string) error {
		return export.Emit(f, row{ID: "c-" + id, Parent: id})
	})
}

// TestRunKindReadsWhatItNeeds: a kind of a caller's own Source reads what
// the kind it needs shared in the run, and lists it itself when that kind
// is not fetched, or failed before it shared it.
func TestRunKindReadsWhatItNeeds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		kinds       []string
		parentsFail bool
		walks       int32
		shared      bool
	}{
		{"both kinds", nil, false, 1, true},
		{"children alone", []string{"children"}, false, 1, false},
		{"the parents fail", nil, true, 2, false},
	} {
		src := &family{parentsFail: tc.parentsFail}
		d := &memDest{records: map[string]int{}}
		_, err := export.Run(context.Background(), src, export.Options{Kinds: tc.kinds}, d)
		if (err != nil) != tc.parentsFail {
			t.Errorf("%s: %v", tc.name, err)
		}
		if src.walks.Load() != tc.walks || src.sharedOK.Load() != tc.shared {
			t.Errorf("%s: %d walks of the parents, shared %v; want %d, %v", tc.name, src.walks.Load(), src.sharedOK.Load(), tc.walks, tc.shared)
		}
		if want := map[bool]int{false: 3, true: 0}[tc.parentsFail]; d.records["children"] != want {
			t.Errorf("%s: %d children, want %d", tc.name, d.records["children"], want)
		}
	}
}

// kindsOnly is a source of the kinds given.
type kindsOnly []export.Kind

func (kindsOnly) Name() string            { return "kinds" }
func (ks kindsOnly) Kinds() []export.Kind { return ks }

// TestRunRefusesAKindItCannotFetch: a kind without Fetch, or a Remirror
// kind without Probe, is refused before anything is fetched or written.
func TestRunRefusesAKindItCannotFetch(t *testing.T) {
	t.Parallel()
	fetch := func(context.Context, *export.Fetch) error { return nil }
	for name, k := range map[string]export.Kind{
		"no Fetch":                 {Name: "a"},
		"a Remirror with no Probe": {Name: "a", Incremental: true, Remirror: true, Fetch: fetch},
	} {
		d := &memDest{records: map[string]int{}}
		if _, err := export.Run(context.Background(), kindsOnly{k}, export.Options{}, d); !errors.Is(err, edapp.ErrInvalidInput) || len(d.ended) > 0 {
			t.Errorf("%s: %v, kinds ended %v", name, err, d.ended)
		}
	}
}
