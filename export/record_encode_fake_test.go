package export_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/edappsrc"
	"github.com/edapp-go/edapp/export/scsrc"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// jsonCheckDest fails the test on a record whose JSON differs from the
// legacy encoding's.
type jsonCheckDest struct {
	t       *testing.T
	mu      sync.Mutex
	records int
}

func (d *jsonCheckDest) Resume(context.Context, *export.Kind, export.RunInfo) (export.Plan, error) {
	return export.Plan{}, nil
}
func (d *jsonCheckDest) Begin(context.Context, *export.Kind, export.Plan) error { return nil }
func (d *jsonCheckDest) Write(_ context.Context, b *export.Batch) error {
	for _, r := range b.Records {
		got, err := r.JSON()
		want, wantErr := export.LegacyRecordJSON(r)
		if err != nil || wantErr != nil || !bytes.Equal(got, want) {
			d.t.Errorf("%s: got %s (%v)\nwant %s (%v)", b.Kind.Name, got, err, want, wantErr)
		}
	}
	d.mu.Lock()
	d.records += len(b.Records)
	d.mu.Unlock()
	return nil
}
func (d *jsonCheckDest) End(context.Context, *export.Kind, *export.KindResult, func()) error {
	return nil
}

// TestRecordJSONSameAsLegacyOverTheFakes: every record the fakes'
// accounts give, of both sources, encodes as it did through json.Marshal.
func TestRecordJSONSameAsLegacyOverTheFakes(t *testing.T) {
	t.Parallel()
	account := edapptest.New(t)
	if err := fakedata.SeedAccount(account, fakedata.AccountSpec{Users: 30, Attempts: 300}); err != nil {
		t.Fatal(err)
	}
	demo := edapptest.New(t)
	if _, err := fakedata.SeedDemo(demo); err != nil {
		t.Fatal(err)
	}
	sc := sctest.New(t)
	if _, err := fakedata.SeedMigration(sc, demo); err != nil {
		t.Fatal(err)
	}
	scClient, err := safetyculture.NewClient(sc.Token, edapp.WithBaseURL(sc.URL))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []export.Source{edappsrc.New(account.Client()), edappsrc.New(demo.Client()), scsrc.New(scClient)} {
		d := &jsonCheckDest{t: t}
		if _, err := export.Run(context.Background(), src, export.Options{PageSize: 1000}, d); err != nil {
			t.Fatal(err)
		}
		if d.records == 0 {
			t.Error("no records")
		}
	}
}
