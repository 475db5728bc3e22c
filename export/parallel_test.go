package export_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/edappsrc"
)

// parallelDest is a caller's own ParallelDestination: its first Write
// waits for a second one to come (another kind's) before it returns, and
// its End yields between two steps.
type parallelDest struct {
	mu       sync.Mutex
	inFlight int
	most     int
	second   chan struct{} // closed when two Writes run at once
	yields   int
	ended    []string
}

func (d *parallelDest) MaxParallelWrites() int { return 2 }

func (d *parallelDest) Resume(context.Context, *export.Kind, export.RunInfo) (export.Plan, error) {
	return export.Plan{}, nil
}

func (d *parallelDest) Begin(context.Context, *export.Kind, export.Plan) error { return nil }

func (d *parallelDest) Write(context.Context, *export.Batch) error {
	d.mu.Lock()
	d.inFlight++
	if d.inFlight == 2 && d.most < 2 {
		close(d.second)
	}
	d.most = max(d.most, d.inFlight)
	first := d.most == 1
	d.mu.Unlock()
	if first {
		select { // a serial destination would never see the second
		case <-d.second:
		case <-time.After(5 * time.Second):
		}
	}
	d.mu.Lock()
	d.inFlight--
	d.mu.Unlock()
	return nil
}

func (d *parallelDest) End(_ context.Context, k *export.Kind, _ *export.KindResult, yield func()) error {
	yield() // the calls waiting go first; End has the destination again after
	d.mu.Lock()
	defer d.mu.Unlock()
	d.yields++
	d.ended = append(d.ended, k.Name)
	return nil
}

var _ export.ParallelDestination = (*parallelDest)(nil)

// TestRunParallelDestination: a caller's own ParallelDestination takes
// the writes of two kinds at once, and its End may yield its turn.
func TestRunParallelDestination(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	if _, err := fakedata.SeedDemo(srv); err != nil {
		t.Fatal(err)
	}
	d := &parallelDest{second: make(chan struct{})}
	kinds := []string{"users", "groups", "courses", "attempts"}
	if _, err := export.Run(context.Background(), edappsrc.New(srv.Client()), export.Options{Kinds: kinds}, d); err != nil {
		t.Fatal(err)
	}
	if d.most < 2 {
		t.Errorf("at most %d writes at once, want two kinds' together", d.most)
	}
	if len(d.ended) != len(kinds) || d.yields != len(kinds) {
		t.Errorf("ended %v, yielded %d times", d.ended, d.yields)
	}
}
