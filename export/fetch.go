package export

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/edapp-go/edapp"
)

// Fetch is one kind's fetch under way, as a Source's Kind.Fetch sees it:
// where the walk starts, the run's request pool, and where the records
// go. The engine makes it; its methods may be called from several
// goroutines at once.
type Fetch struct {
	r    *runFetch
	kind string
	plan Plan
	s    *stream // nil in a Probe: nothing is emitted
}

// runFetch is what the kinds of one run share: the request pool, what
// each kind hands the others (Share), and the options pages are asked
// with.
type runFetch struct {
	pool        *pool
	board       board
	concurrency int
	pageSize    int
	now         time.Time
}

// Plan is where the walk starts: Plan.From for an incremental kind, and
// Plan.Page for a single list resumed after an interruption.
func (f *Fetch) Plan() Plan { return f.plan }

// PageSize is the records to ask for per request (Options.PageSize).
func (f *Fetch) PageSize() int { return f.r.pageSize }

// Concurrency is the run's requests in flight (Options.Concurrency): the
// size of InFlight, and the pages a walk may ask for at once.
func (f *Fetch) Concurrency() int { return f.r.concurrency }

// Now is the run's start, by the local clock (RunInfo.Now).
func (f *Fetch) Now() time.Time { return f.r.now }

// InFlight is the run's request pool, shared by every kind, parent and
// page: each request holds one of its places while it is sent and
// answered (pass it to edapp.WithInFlight), so the run never has more
// than Concurrency requests in flight, and the walks' pages queue for the
// places together.
func (f *Fetch) InFlight() chan struct{} { return f.r.pool.slots }

// Enter waits until the walk may send: the run's first walk goes at once,
// the others once a request of the run has had an answer (Answered), so a
// token the service refuses, or a host that does not answer, costs one
// request. It fails when ctx ends, or when Options.StopOn ended the run.
func (f *Fetch) Enter(ctx context.Context) error { return f.r.pool.enter(ctx) }

// Answered says a request of the walk had an answer the walk can use:
// the walks waiting in Enter may go.
func (f *Fetch) Answered() { f.r.pool.open() }

// Answer is what the engine counts of one request of a walk, once, when
// its answer arrives (see Fetch.Count).
type Answer struct {
	Attempts int           // the attempts it took: a retry is another attempt
	Waited   time.Duration // the time it waited for the request budget
	Dropped  int           // the odd values the SDK left out of its records
	// Refused is the records the SDK dropped whole from the page, with
	// their bytes as sent (see Batch.Refused).
	Refused []edapp.DroppedRecord
	// Date is when the service answered, by its clock (its Date header);
	// zero when it sent none.
	Date time.Time
	// Total is the service's count of the list's records, when Counted.
	Total   int
	Counted bool
}

// Count counts a request of the walk as it is answered, before its
// records are emitted: for a single list, the page before it is then
// complete. The first answer's Date is the walk's start (Batch.Started).
func (f *Fetch) Count(a Answer) {
	if f.s != nil {
		f.s.onPage(a)
	}
}

// Emit sends one record of the kind to the destinations: v is an SDK
// record struct, or a row struct of the source's own, read by its JSON
// field names. It fails when the fetch was stopped, and in a Probe.
func Emit[T any](f *Fetch, v T) error {
	if f.s == nil {
		return errors.New("export: a probe emits no record")
	}
	return f.s.emit(v)
}

// EachParent runs fn for each parent id, one more at a time than
// Concurrency, and reports the parents done to the kind's progress. The
// first error cancels the others and is returned. Each fn takes its
// requests' places from InFlight, which bounds them: the parent more
// keeps the places busy while a parent's last page is handed on.
func (f *Fetch) EachParent(ctx context.Context, parents []string, fn func(ctx context.Context, id string) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	sem := make(chan struct{}, f.r.concurrency+1)
	f.s.parentDone(0, len(parents))
	for _, id := range parents {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(ctx, id); err != nil {
				once.Do(func() { first = err; cancel(err) })
				return
			}
			f.s.parentDone(1, len(parents))
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// Share hands v, what f's kind learned of its records (the courses' ids),
// to the kinds of the run whose Kind.Needs name it. complete false says
// the walk did not see every record (an error, or a walk resumed in the
// middle): they then list the records themselves. Only the first call
// counts; a kind that ends without one shares nothing.
func Share[T any](f *Fetch, v T, complete bool) { f.r.board.set(f.kind, v, complete) }

// Shared waits for what the kind named shared in this run (Share), when
// the run fetches it and the fetching kind needs it (Kind.Needs). false:
// there is nothing to wait for, or the walk was not complete; the kind
// then lists what it needs itself.
func Shared[T any](ctx context.Context, f *Fetch, kind string) (T, bool, error) {
	var zero T
	v, ok, err := f.r.board.get(ctx, kind)
	if err != nil || !ok {
		return zero, false, err
	}
	t, ok := v.(T)
	return t, ok, nil
}

// board is what the kinds of a run share, a slot per kind another kind
// of the run needs. Its map is fixed when the run starts.
type board map[string]*shared

// newBoard has a slot for each kind of ks that another kind of ks needs.
func newBoard(ks []Kind) board {
	b := board{}
	for _, k := range ks {
		for _, n := range k.Needs {
			for _, p := range ks {
				if p.Name == n && b[n] == nil {
					b[n] = &shared{done: make(chan struct{})}
				}
			}
		}
	}
	return b
}

// shared is a value one kind provides to others of the same run.
type shared struct {
	once sync.Once
	done chan struct{}
	v    any // the providing kind's own type: Shared reads it back
	ok   bool
}

// set provides kind's value; only the first call counts.
func (b board) set(kind string, v any, ok bool) {
	c := b[kind]
	if c == nil {
		return
	}
	c.once.Do(func() {
		c.v, c.ok = v, ok
		close(c.done)
	})
}

// settle tells the kinds waiting on kind that it provides nothing more:
// a kind that failed, or that was not fetched, leaves them to list the
// parents themselves.
func (b board) settle(kind string) { b.set(kind, nil, false) }

// get waits for kind's value; false when there is none to wait for.
func (b board) get(ctx context.Context, kind string) (any, bool, error) {
	c := b[kind]
	if c == nil {
		return nil, false, nil
	}
	select {
	case <-c.done:
		return c.v, c.ok, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}
