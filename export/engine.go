package export

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/edapp-go/edapp"
)

// batchSize is the most records a batch holds; a page of a single-list
// kind is one batch.
const batchSize = edapp.MaxPageSize

// batchesAhead is how many batches may wait for the destinations while the
// next pages are fetched: writing overlaps fetching, in bounded memory.
const batchesAhead = 4

type engine struct {
	opts  Options
	dests []Destination
	f     *runFetch
	run   RunInfo

	budgetMu    sync.Mutex // the kinds' writers save the budget at once
	budgetSaved time.Time  // when saveBudget last saved
}

// kind fetches one kind into every destination.
func (e *engine) kind(ctx context.Context, k *Kind, t Tracker) *KindResult {
	defer e.f.board.settle(k.Name)
	ctx = withKind(ctx, k.Name)
	r := &KindResult{Kind: k.Name}
	p, err := e.plan(ctx, k)
	if p.note != "" {
		r.Notes = append(r.Notes, p.note)
	}
	if p.waited > 0 {
		t.Add(0, p.waited)
	}
	if err != nil || p.skip {
		r.Err, r.Skipped, r.Fetched = err, p.skip, p.Fetched
		t.Done(err)
		return r
	}
	fctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s := newStream(fctx, k, p.Plan, t, e.opts.Now)
	done := make(chan error, 1)
	go func() { done <- e.write(fctx, s.out, cancel) }()
	err = k.Fetch(fctx, &Fetch{r: e.f, kind: k.Name, plan: p.Plan, s: s})
	s.finish(err == nil)
	werr := <-done
	r.Records, r.Requests, r.Attempts, r.Dropped, r.Started = s.records, s.requests, s.attempts, s.dropped, s.startTime()
	r.Future, r.LatestFuture = s.future, s.latestFuture
	r.Err = err
	if werr != nil {
		r.Err = werr // the fetch then only saw the cancellation
	}
	for _, d := range e.dests {
		// End records the outcome even when ctx ended the run: it only
		// finishes what the batches started.
		if err := d.End(context.WithoutCancel(ctx), k, r, func() {}); err != nil && r.Err == nil {
			r.Err = err
		}
	}
	t.Done(r.Err)
	return r
}

// planned is a kind's plan, or a kind fresh enough to skip.
type planned struct {
	Plan
	skip   bool
	note   string        // for the summary: why a Remirror kind walks as it does
	waited time.Duration // the probe's wait for the budget, if it probed
}

// plan asks every destination where it would start, tells them where the
// fetch starts: the earliest From, and a resumed page only when all agree.
// A mirrored kind every destination fetched less than MaxAge ago, with no
// walk to resume, is skipped. A Remirror kind's walk that every
// destination resumes goes on in its mode; else the run chooses one.
func (e *engine) plan(ctx context.Context, k *Kind) (planned, error) {
	p, err := e.resume(ctx, k)
	if err != nil {
		return planned{}, err
	}
	if !k.Incremental && e.opts.MaxAge > 0 && !e.run.Fresh && p.Page == 1 && !p.Resumed && !p.Fetched.IsZero() && e.run.Now.Sub(p.Fetched) < e.opts.MaxAge {
		return planned{Plan: p, skip: true}, nil
	}
	if !k.Incremental {
		p.From = time.Time{}
	}
	var note string
	var waited time.Duration
	switch {
	case k.Remirror && p.Resumed:
		note = resumedNote(p)
	case k.Remirror:
		full, why, w, err := e.fullWalk(ctx, k, p)
		waited = w
		if err != nil {
			return planned{waited: waited}, err
		}
		if full && !p.From.IsZero() {
			p.From, p.Page = time.Time{}, 1
		}
		note = why
	}
	if k.PerParent {
		p.Page = 1
	}
	for _, d := range e.dests {
		if err := d.Begin(ctx, k, p); err != nil {
			return planned{waited: waited}, err
		}
	}
	return planned{Plan: p, note: note, waited: waited}, nil
}

// resume is where the destinations together resume the kind: where they
// all stopped when they agree, else its first page from the earliest of
// their cursors.
func (e *engine) resume(ctx context.Context, k *Kind) (Plan, error) {
	var p Plan
	for i, d := range e.dests {
		q, err := d.Resume(ctx, k, e.run)
		if err != nil {
			return Plan{}, err
		}
		q.Page = max(q.Page, 1)
		resumed := p.Resumed && q.Resumed && q.From.Equal(p.From)
		switch {
		case i == 0:
			p = q
		case !q.From.Equal(p.From) || q.Page != p.Page:
			p = Plan{From: earliest(p.From, q.From), Page: 1, Fetched: p.Fetched, Resumed: resumed}
		default:
			p.Resumed = resumed
		}
		if i > 0 {
			p.Fetched = earliest(p.Fetched, q.Fetched)
		}
	}
	return p, nil
}

// fullWalk says whether a Remirror kind is fetched in full this run, and
// why: its last full walk is older than the mirror age (or there was
// none), or the service ignores its filter, which the kind's probe asks
// once per run; waited is the probe's wait for the budget.
func (e *engine) fullWalk(ctx context.Context, k *Kind, p Plan) (full bool, why string, waited time.Duration, err error) {
	age := cmp.Or(e.opts.MaxAge, DefaultMirrorAge)
	if p.Fetched.IsZero() || e.run.Now.Sub(p.Fetched) >= age {
		return true, "fetched in full: no full fetch in the last " + age.String(), 0, nil
	}
	honoured, waited, err := k.Probe(ctx, &Fetch{r: e.f, kind: k.Name, plan: p})
	switch {
	case err != nil:
		return false, "", waited, fmt.Errorf("probe whether the service honours the date filter: %w", err)
	case !honoured:
		return true, "fetched in full: the service ignores the date filter", waited, nil
	}
	return false, "fetched from " + p.From.Format(time.RFC3339), waited, nil
}

// resumedNote is the summary's note of a Remirror kind whose walk under
// way goes on in the mode its run chose.
func resumedNote(p Plan) string {
	if p.From.IsZero() {
		return "fetched in full: a full fetch resumed"
	}
	return "fetched from " + p.From.Format(time.RFC3339) + " (resumed)"
}

// earliest is the earlier of two lower bounds (or fetch times); zero (no
// bound, never fetched) wins.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.IsZero() {
		return time.Time{}
	}
	if b.Before(a) {
		return b
	}
	return a
}

// write hands the groups of batches to the destinations, in order. On a
// failure it stops the fetch and drains the rest.
func (e *engine) write(ctx context.Context, in <-chan *Batch, cancel context.CancelCauseFunc) error {
	var failed error
	for b := range group(in, cmp.Or(e.opts.groupRows, groupRows)) {
		if failed != nil {
			continue
		}
		for _, d := range e.dests {
			// A batch fetched before an interruption is still written.
			if err := d.Write(context.WithoutCancel(ctx), b); err != nil {
				failed = err
				cancel(err)
				break
			}
		}
		if failed == nil {
			if err := e.saveBudget(context.WithoutCancel(ctx), false); err != nil {
				failed = err
				cancel(err)
			}
		}
	}
	return failed
}

// A group is the batches a destination writes, and commits, as one: the
// batches that came while it wrote the group before, up to groupRows
// records. When the writer keeps up with the fetch, each batch is written
// as it comes, and the last is written soon after the fetch ends; when it
// does not, the batches that queue meanwhile commit together, so that the
// writer spends its time on rows rather than on commits. A group holds
// its rows with the pages they complete: an interrupted export loses at
// most the group under way.
const groupRows = 10 * batchSize

// group joins the batches of in into groups, in order, each handed over
// as soon as the destinations take it. The fetch goes on meanwhile, in
// memory bounded by two groups (and the batches ahead).
func group(in <-chan *Batch, rows int) <-chan *Batch {
	out := make(chan *Batch)
	go func() {
		defer close(out)
		var g *Batch
		for in != nil || g != nil {
			if g != nil && in != nil && len(g.Records) < rows {
				select { // the batches waiting join the group first
				case b, ok := <-in:
					if !ok {
						in = nil
					} else {
						g = join(g, b)
					}
					continue
				default:
				}
			}
			recv, send := in, out
			switch {
			case g == nil:
				send = nil
			case len(g.Records) >= rows:
				recv = nil // full: the fetch waits for the writer
			}
			select {
			case b, ok := <-recv:
				if !ok {
					in = nil
					continue
				}
				g = join(g, b)
			case send <- g:
				g = nil
			}
		}
	}()
	return out
}

// join is g with b's records and pages after its own; b when g is nil.
func join(g, b *Batch) *Batch {
	if g == nil {
		return b
	}
	return &Batch{Kind: g.Kind, Records: append(g.Records, b.Records...), Pages: max(g.Pages, b.Pages), Started: g.Started}
}

// stream takes the records of one kind, from one goroutine or several,
// and cuts them into batches at page boundaries.
type stream struct {
	ctx context.Context // checked before each record: Ctrl-C stops mid-page
	k   *Kind
	mu  sync.Mutex
	t   Tracker
	out chan *Batch
	cur []Record
	// refused is the records of the pages in cur that the SDK dropped
	// whole, with their bytes as sent: they go to the rejects table.
	refused []edapp.DroppedRecord
	base    int // pages complete before this run's first (a resumed walk)
	seen    int // pages this run has started (single-list kinds)

	started            time.Time
	future             int       // records dated after started
	latestFuture       time.Time // the latest of them
	localStart         time.Time
	totalSet           bool
	records, dropped   int
	requests, attempts int
	parents            int
}

func newStream(ctx context.Context, k *Kind, p Plan, t Tracker, now func() time.Time) *stream {
	return &stream{ctx: ctx, k: k, t: t, out: make(chan *Batch, batchesAhead), base: max(p.Page-1, 0), localStart: now().UTC()}
}

// flush sends the records gathered so far as a batch covering pages
// complete pages. Called with mu held.
func (s *stream) flush(pages int) {
	if len(s.cur) == 0 && len(s.refused) == 0 && pages == 0 {
		return
	}
	if s.k.PerParent {
		pages = 0
	}
	s.out <- &Batch{Kind: s.k, Records: s.cur, Refused: s.refused, Pages: pages, Started: s.startTime()}
	s.cur, s.refused = nil, nil
}

// finish sends the last batch and closes the stream. complete says the
// fetch reached the end: the current page is then complete too.
func (s *stream) finish(complete bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pages := s.base + max(s.seen-1, 0)
	if complete {
		pages = s.base + s.seen
	}
	s.flush(pages)
	close(s.out)
}

func (s *stream) startTime() time.Time {
	if s.started.IsZero() {
		return s.localStart
	}
	return s.started
}

// parentDone counts n more parents done out of total.
func (s *stream) parentDone(n, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parents += n
	s.t.Parents(s.parents, total)
}

// onPage takes the metadata of a page, once: the first answer's Date is
// the walk's start, the total count of a single list drives the bar, and
// every page's wait for the budget is counted. A source counts a page as
// its answer arrives, before its first item: the page before it is then
// complete.
func (s *stream) onPage(a Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started.IsZero() {
		s.started = a.Date.UTC()
		if a.Date.IsZero() { // the service sent no Date: the local clock
			s.started = s.localStart
		}
	}
	if !s.k.PerParent {
		if s.seen > 0 {
			s.flush(s.base + s.seen)
		}
		s.seen++
		if a.Counted && !s.totalSet {
			s.t.SetTotal(a.Total)
			s.totalSet = true
		}
	}
	s.requests++
	s.attempts += a.Attempts
	s.dropped += a.Dropped
	s.refused = append(s.refused, a.Refused...)
	s.t.Add(0, a.Waited)
}

func (s *stream) emit(v any) error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	r, err := newRecord(v)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.k.DateField != "" {
		// A record dated after the walk's start is exported, but moves no
		// cursor: the cursor is the start (see Batch.Started). The Date
		// header counts whole seconds.
		if d := r.Time(s.k.DateField); d.After(s.startTime().Add(time.Second)) {
			s.future++
			if d.After(s.latestFuture) {
				s.latestFuture = d
			}
		}
	}
	s.cur = append(s.cur, r)
	s.records++
	s.t.Add(1, 0)
	if len(s.cur) >= batchSize && s.k.PerParent {
		s.flush(0)
	}
	return nil
}
