package inbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/webhook"
)

// newQueueOnlyStore is a Store whose writer is the test: it has a queue,
// and no database.
func newQueueOnlyStore(timeout time.Duration) *Store {
	return &Store{dialect: SQLite, writeTimeout: timeout, queue: make(chan *putRequest, 4), quit: make(chan struct{})}
}

// putOne puts one lesson completion into s.
func putOne(t *testing.T, s *Store) (bool, error) {
	body := []byte(`{"eventName":"LessonCompletedEvent","userId":"u1","lessonId":"l1"}`)
	ev, err := edapp.ParseEvent(body)
	if err != nil {
		t.Error(err)
		return false, err
	}
	return s.put(context.Background(), edapp.EventKey(ev), ev, body)
}

func TestPutAnswersWithTheCommitOnceTheWriterHasIt(t *testing.T) {
	t.Parallel()
	s := newQueueOnlyStore(20 * time.Millisecond)
	type answer struct {
		stored bool
		err    error
	}
	got := make(chan answer, 1)
	go func() {
		stored, err := putOne(t, s)
		got <- answer{stored, err}
	}()
	batch := s.nextBatch()
	if len(batch) != 1 {
		t.Fatalf("the writer took %d deliveries, want 1", len(batch))
	}
	<-batch[0].ctx.Done() // the delivery's deadline passes mid-transaction
	time.Sleep(10 * time.Millisecond)
	batch[0].done <- putResult{stored: true}
	if a := <-got; a.err != nil || !a.stored {
		t.Fatalf("Put = %v, %v; want the commit's outcome (true, nil), not a 503 for a committed row", a.stored, a.err)
	}
}

func TestPutAbandonedIsLeftOutByTheWriter(t *testing.T) {
	t.Parallel()
	s := newQueueOnlyStore(time.Millisecond)
	_, err := putOne(t, s)
	if !errors.Is(err, webhook.ErrUnavailable) {
		t.Fatalf("Put past its deadline = %v, want webhook.ErrUnavailable", err)
	}
	if batch := s.nextBatch(); len(batch) != 0 {
		t.Fatalf("the writer took %d abandoned deliveries, want none", len(batch))
	}
}
