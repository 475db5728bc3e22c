package export

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/edapp-go/edapp"
)

// Overlap is how far before its cursor an incremental kind is fetched
// again, to catch records the service dated before they became visible:
// EdApp's default and least Options.Overlap.
const Overlap = 10 * time.Minute

// DefaultMirrorAge is how often a Remirror kind is fetched in full when
// Options.MaxAge is 0.
const DefaultMirrorAge = 7 * 24 * time.Hour

// DefaultOpenWindow is how long an open attempt is fetched again, waiting
// for its completion (see Options.OpenWindow).
const DefaultOpenWindow = 7 * 24 * time.Hour

// Options say what an export fetches. The zero value exports every kind
// but the per-user ones, four requests at a time.
type Options struct {
	// Kinds are the names of the kinds to export (see Kinds); empty: all.
	Kinds []string
	// PerUser adds the kinds fetched one request per user.
	PerUser bool
	// Since is where an incremental kind without a cursor starts; zero:
	// from the beginning.
	Since time.Time
	// Full forgets what the destinations hold of the kinds exported, and
	// fetches them from Since again.
	Full bool
	// MaxAge, when above 0, skips a mirrored kind whose last complete
	// fetch, as every destination recorded it, is younger than MaxAge (a
	// catalog an hour old is fine for an hourly job). Incremental kinds
	// always fetch from their cursor; Full fetches everything it names. A
	// Remirror kind (SafetyCulture's course progress) is fetched in full
	// once its last full fetch is MaxAge old, DefaultMirrorAge when 0, so
	// that resets and deletions arrive.
	MaxAge time.Duration
	// Overlap is how far before its cursor an incremental kind is fetched
	// again; 0: the source's, Overlap for EdApp and scsrc.Overlap
	// for SafetyCulture, which are also the least accepted.
	Overlap time.Duration
	// Concurrency is how many requests are in flight for the whole run,
	// across kinds, pages and parents. Default 4, at most 64: against the
	// service's budget four saturate it at any latency under about 0.85 s.
	Concurrency int
	// PageSize is the records asked for per request; 0 is the default and
	// the most, edapp.MaxPageSize. A smaller page commits more often.
	PageSize int
	// OpenWindow: an open record (an attempt not yet completed) is fetched
	// again on each run while it started less than OpenWindow ago, so that
	// its completion lands. 0 is DefaultOpenWindow.
	OpenWindow time.Duration
	// NoOpenWindow turns OpenWindow off: an open record is not fetched
	// again.
	NoOpenWindow bool
	// Progress, when not nil, is told about each kind as it is fetched.
	Progress Progress
	// StopOn, when not nil, is asked about each kind's error: true ends the
	// run there, without trying the kinds left (a token the service
	// refuses, or a host that does not answer, would fail them all).
	StopOn func(error) bool
	// Budget, when not nil, reports what the client's limiter admitted
	// (its *edapp.WindowLimiter): the run saves it into the destinations
	// that keep it (BudgetKeeper) every few seconds while it writes, and
	// when it ends, interrupted or not, for the next run to count.
	Budget Spender
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time

	groupRows int // the records of a group (default groupRows), for tests
}

// Progress receives an export's progress, kind by kind.
type Progress interface {
	Track(kind string) Tracker
}

// Tracker reports on one kind. Its methods are called from one goroutine
// at a time.
type Tracker interface {
	SetTotal(n int)                  // the records expected, from the service's count
	Add(n int, waited time.Duration) // n more records fetched, and time spent waiting for the budget
	Parents(done, total int)         // for a per-parent kind: parents done
	Done(err error)                  // the kind ended; nil: complete
}

// Plan is where the fetch of a kind starts.
type Plan struct {
	// From is the lower date bound of an incremental kind; zero: everything.
	From time.Time
	// Page is the first page of a single-list kind, for a walk resumed
	// after an interruption; 0 or 1: the first.
	Page int
	// Fetched, from Resume, is when the destination recorded the kind's
	// last complete fetch; zero: never (see Options.MaxAge).
	Fetched time.Time
	// Resumed, from Resume, says the destination has the kind's walk
	// under way, begun by an earlier run at From: the fetch goes on in
	// the mode that run chose (a Remirror kind's full or incremental
	// fetch), so that an interruption never changes what the walk keeps.
	Resumed bool
}

// Batch is what a destination writes at once: records of one kind, in the
// order fetched.
type Batch struct {
	Kind    *Kind
	Records []Record
	// Refused is the records the SDK dropped whole from the pages of this
	// batch (it could not decode them at all), with their bytes as sent
	// within edapp.MaxDroppedRecordBytes: a destination that keeps
	// refused records keeps them.
	Refused []edapp.DroppedRecord
	// Pages is the number of pages of the walk (counted from page 1) that
	// are complete once this batch is written, for a single-list kind; a
	// destination that commits it with the records resumes after them.
	// 0 for a per-parent kind.
	Pages int
	// Started is when the walk started, by the service's clock (its Date
	// header) when it sent one.
	Started time.Time
}

// KindResult is the outcome of one kind.
type KindResult struct {
	Kind    string
	Records int // fetched
	// Requests counts the requests the kind sent (a page each, an empty
	// one included), Attempts the attempts they took: a retry is another
	// attempt of the same request.
	Requests int
	Attempts int
	Dropped  int // odd values the SDK left out
	// Rejected counts the records a destination refused and kept apart
	// (the database's rejects table): no usable identity, a key over 2,000
	// bytes, or a row the database refused for good.
	Rejected int
	// VersionsOpened and VersionsClosed count the versions the kind's
	// walk opened and closed in the database's history tables.
	VersionsOpened, VersionsClosed int
	// Started is when the walk started, by the service's clock when it
	// sent one. A destination moves an incremental kind's cursor to it
	// once the kind is complete.
	Started time.Time
	// Future counts the records dated after Started (a clock ahead, or a
	// bad date), the latest at LatestFuture. They are exported; the cursor
	// still moves to Started only, so no later record is skipped.
	Future       int
	LatestFuture time.Time
	// Skipped says the kind was not fetched: its last complete fetch, at
	// Fetched, is younger than Options.MaxAge.
	Skipped bool
	Fetched time.Time
	// Err is nil when the kind was fetched in full and written.
	Err error
	// Notes are short lines from the destinations for the summary.
	Notes []string
}

// A Destination receives an export. The engine calls its methods from one
// goroutine at a time, and for each kind in turn Resume, Begin, Write for
// each batch, then End; the kinds of a run are fetched at the same time,
// so the calls of several kinds interleave, each naming its kind. A
// ParallelDestination takes the Writes of different kinds at once.
type Destination interface {
	// Resume says where the kind's fetch would start for this destination.
	// fresh (Options.Full) asks it to forget what it holds of the kind.
	Resume(ctx context.Context, k *Kind, r RunInfo) (Plan, error)
	// Begin says where the fetch starts: the earliest of the destinations'
	// plans, so possibly earlier than this one's.
	Begin(ctx context.Context, k *Kind, p Plan) error
	// Write stores a batch. Once it returns, the records are durable.
	Write(ctx context.Context, b *Batch) error
	// End ends the kind. r.Err nil: the fetch was complete, and a mirror
	// may drop what it did not see. An End that takes several steps calls
	// yield between them: the calls waiting for the destination (other
	// kinds' writes) then go first, and yield returns once End has the
	// destination again.
	End(ctx context.Context, k *Kind, r *KindResult, yield func()) error
}

// A ParallelDestination takes the Writes of different kinds at once,
// beside its other calls: up to MaxParallelWrites of them, the kinds
// listed first first when more wait. The Writes of one kind still come
// one at a time, in order. MaxParallelWrites of 1 or less: one call at a
// time, as any Destination.
type ParallelDestination interface {
	Destination
	MaxParallelWrites() int
}

// RunInfo is what a destination may need to plan a kind.
type RunInfo struct {
	Fresh      bool          // Options.Full
	Since      time.Time     // Options.Since
	Now        time.Time     // the run's start, by the local clock
	OpenWindow time.Duration // Options.OpenWindow; 0: off
}

// Report is the outcome of a run: each kind's, in order.
type Report struct {
	Kinds []KindResult
}

// ErrLocked is returned when opening a destination while another export
// writes to it.
var ErrLocked = errors.New("export: another export is writing to this database")

// ErrInterrupted is wrapped by Run's error when ctx ended the run; the
// next run resumes.
var ErrInterrupted = errors.New("export interrupted")

// Run exports src's kinds to the destinations. The kinds run at the same
// time, sharing Options.Concurrency requests in flight; a kind that needs
// another's ids (lessons need the courses: Kind.Needs) waits for them. A
// kind that fails does not stop the others. It returns an error when a
// kind failed or ctx ended the run, and the summary of what was done,
// kinds in order.
func Run(ctx context.Context, src Source, opts Options, dests ...Destination) (sum *Report, err error) {
	all := src.Kinds()
	if least := leastOverlap(all); opts.Overlap != 0 && opts.Overlap < least {
		return nil, fmt.Errorf("export: %w: overlap %s: want %s or more for this source (0: %[3]s)", edapp.ErrInvalidInput, opts.Overlap, least)
	}
	ks, err := selectKinds(all, opts)
	if err != nil {
		return nil, err
	}
	if err := checkKinds(ks); err != nil {
		return nil, err
	}
	for i := range ks {
		if ks[i].Incremental && opts.Overlap != 0 {
			ks[i].Overlap = opts.Overlap
		}
	}
	if len(dests) == 0 {
		return nil, errors.New("export: no destination")
	}
	opts = withDefaults(opts)
	e := &engine{opts: opts, dests: serialize(dests, ks)}
	e.run = RunInfo{Fresh: opts.Full, Since: opts.Since, Now: opts.Now().UTC(), OpenWindow: opts.OpenWindow}
	e.f = &runFetch{pool: newPool(opts.Concurrency), board: newBoard(ks), concurrency: opts.Concurrency, pageSize: opts.PageSize, now: e.run.Now}
	defer func() {
		if serr := e.saveBudget(context.WithoutCancel(ctx), true); serr != nil {
			err = errors.Join(err, fmt.Errorf("export: save the budget spent: %w", serr))
		}
	}()
	return e.kinds(ctx, ks)
}

// checkKinds reports the first kind of a source that cannot be fetched:
// one without Fetch, or a Remirror kind without Probe.
func checkKinds(ks []Kind) error {
	for _, k := range ks {
		if k.Fetch == nil || (k.Remirror && k.Probe == nil) {
			return fmt.Errorf("export: %w: kind %s: want a Fetch, and a Probe when Remirror", edapp.ErrInvalidInput, k.Name)
		}
	}
	return nil
}

// leastOverlap is the least Options.Overlap a source's kinds take: the
// largest of its incremental kinds' own (its default).
func leastOverlap(ks []Kind) time.Duration {
	least := Overlap
	for i := range ks {
		if ks[i].Incremental {
			least = max(least, ks[i].overlap())
		}
	}
	return least
}

// kinds runs the kinds at once, and sums up.
func (e *engine) kinds(ctx context.Context, ks []Kind) (*Report, error) {
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	trackers := make([]Tracker, len(ks))
	for i := range ks {
		trackers[i] = e.opts.Progress.Track(ks[i].Name) // in order: the bars keep it
	}
	results := make([]KindResult, len(ks))
	var wg sync.WaitGroup
	for i := range ks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.kind(runCtx, &ks[i], trackers[i])
			results[i] = *r
			if r.Err != nil && e.opts.StopOn != nil && e.opts.StopOn(r.Err) {
				e.f.pool.halt() // before the cancel: no kind it ends can open the gate
				stop(&stopped{ks[i].Name, r.Err})
			}
			if r.Requests > 0 || r.Err != nil {
				e.f.pool.open() // after StopOn: a first walk that failed stops the run before the others start
			}
		}()
	}
	wg.Wait()
	return summarize(ctx, runCtx, results)
}

// stopped is the cause of a run that StopOn ended.
type stopped struct {
	kind string
	err  error
}

func (s *stopped) Error() string { return fmt.Sprintf("export stopped in %s: %v", s.kind, s.err) }
func (s *stopped) Unwrap() error { return s.err }

// summarize is Run's outcome: interrupted (ctx ended), stopped (StopOn),
// some kinds failed, or all complete.
func summarize(ctx, runCtx context.Context, results []KindResult) (*Report, error) {
	sum := &Report{Kinds: results}
	var failed, open []string
	var errs []error
	for _, r := range results {
		switch {
		case r.Err == nil:
		case errors.Is(r.Err, context.Canceled) && runCtx.Err() != nil:
			open = append(open, r.Kind) // ended by ctx or StopOn, not failed
		default:
			failed = append(failed, fmt.Sprintf("%s: %v", r.Kind, r.Err))
			errs = append(errs, r.Err)
		}
	}
	if ctx.Err() != nil {
		return sum, fmt.Errorf("%w in %s; run it again to resume: %w", ErrInterrupted, strings.Join(open, ", "), context.Cause(ctx))
	}
	var st *stopped
	if errors.As(context.Cause(runCtx), &st) {
		return sum, st
	}
	if len(failed) > 0 {
		msg := fmt.Sprintf("%d kind(s) failed; the others are complete:\n  %s", len(failed), strings.Join(failed, "\n  "))
		return sum, kindsError{msg, errs}
	}
	return sum, nil
}

func withDefaults(o Options) Options {
	if o.Concurrency == 0 {
		o.Concurrency = edapp.DefaultPageConcurrency
	}
	if o.PageSize == 0 {
		o.PageSize = edapp.MaxPageSize
	}
	switch {
	case o.NoOpenWindow:
		o.OpenWindow = 0
	case o.OpenWindow == 0:
		o.OpenWindow = DefaultOpenWindow
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Progress == nil {
		o.Progress = noProgress{}
	}
	return o
}

// checkOptions reports the first bad value of o, wrapping
// edapp.ErrInvalidInput; nothing is clamped.
func checkOptions(o Options) error {
	switch {
	case o.Concurrency < 0 || o.Concurrency > 64:
		return fmt.Errorf("export: %w: concurrency %d: want 1 to 64", edapp.ErrInvalidInput, o.Concurrency)
	case o.PageSize < 0 || o.PageSize > edapp.MaxPageSize:
		return fmt.Errorf("export: %w: page size %d: want 1 to %d", edapp.ErrInvalidInput, o.PageSize, edapp.MaxPageSize)
	case o.OpenWindow < 0:
		return fmt.Errorf("export: %w: open window %s: want 0 or more (NoOpenWindow turns it off)", edapp.ErrInvalidInput, o.OpenWindow)
	case o.MaxAge < 0:
		return fmt.Errorf("export: %w: max age %s: want 0 or more", edapp.ErrInvalidInput, o.MaxAge)
	}
	return nil
}

// selectKinds checks the options and returns the kinds to run, in order.
func selectKinds(kinds []Kind, o Options) ([]Kind, error) {
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	for _, name := range o.Kinds {
		if !slices.ContainsFunc(kinds, func(k Kind) bool { return k.Name == name }) {
			return nil, fmt.Errorf("export: unknown kind %q: want some of %s", name, strings.Join(namesOf(kinds, func(Kind) bool { return true }), ","))
		}
	}
	var out []Kind
	for _, k := range kinds {
		if len(o.Kinds) > 0 && !slices.Contains(o.Kinds, k.Name) {
			continue
		}
		if k.PerUser && !o.PerUser {
			if len(o.Kinds) > 0 {
				return nil, fmt.Errorf("export: kind %s needs PerUser", k.Name)
			}
			continue
		}
		out = append(out, k)
	}
	return out, nil
}

// KindNames lists the names of the kinds that filter accepts, in order.
func KindNames(kinds []Kind, filter func(Kind) bool) []string { return namesOf(kinds, filter) }

func namesOf(kinds []Kind, filter func(Kind) bool) []string {
	var out []string
	for _, k := range kinds {
		if filter(k) {
			out = append(out, k.Name)
		}
	}
	return out
}

type noProgress struct{}

func (noProgress) Track(string) Tracker { return noTracker{} }

type noTracker struct{}

func (noTracker) SetTotal(int)           {}
func (noTracker) Add(int, time.Duration) {}
func (noTracker) Parents(int, int)       {}
func (noTracker) Done(error)             {}

// kindsError is the error of the kinds that failed: errors.Is and As see
// each kind's error.
type kindsError struct {
	msg  string
	errs []error
}

func (e kindsError) Error() string   { return e.msg }
func (e kindsError) Unwrap() []error { return e.errs }
