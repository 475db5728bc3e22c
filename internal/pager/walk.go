package pager

import (
	"context"
	"fmt"
	"iter"
	"math"
	"sync"
)

// Result is one fetched page.
type Result[T any] struct {
	Items []T
	// Received is how many items the answer held, those dropped whole
	// because they did not decode included.
	Received int
	// Total is the count as the service sent it, negative included;
	// meaningful when HasTotal.
	Total    int
	HasTotal bool
	// BodyHash identifies the answer's body: a page whose hash is that of
	// the page before it is the same page again.
	BodyHash uint64
	// BeforeYield, if set, runs on the loop's goroutine before the page's
	// items (or its error) are yielded, even when it has none.
	BeforeYield func()
	// WarnCountContradicted, if set, runs on the loop's goroutine when this
	// is the walk's first page whose items contradict its count: once per
	// walk, however many pages do.
	WarnCountContradicted func()
}

// Fetch returns one page. On error the Result may still carry BeforeYield.
type Fetch[T any] func(ctx context.Context, page, pageSize int) (*Result[T], error)

// Walk says what All reads.
type Walk[T any] struct {
	FirstPage   int // 1-based; 0 reads from page 1
	PageSize    int
	Concurrency int // pages in flight at most, once a count allows prefetching
	Fetch       Fetch[T]
	// Key identifies an item: an item whose key was yielded within the
	// remembered pages (see Remembered) is dropped. A nil Key, or an empty key,
	// drops nothing.
	Key func(T) string
}

// Remembered is how many pages back the walk remembers the keys it yielded
// and the counts it read, and so how far back it can re-read after a shift:
// the last 4 pages, and at least the last 4000 items.
func Remembered(pageSize int) int {
	return max(4, pagesFor(4000, pageSize))
}

// maxRereads is how many times the walk goes back to re-read pages before
// it must get past the furthest page it has read, so that a list that keeps
// changing cannot hold the walk forever.
const maxRereads = 2

// All walks the pages from w.FirstPage on and yields every item, in order.
// Each page is judged by Judge, the rule Page.NextPage follows too, so the
// walk ends on an empty or a short page, never because of the count. On
// top of that rule, what needs the walk's history lives here:
//   - a page that repeats the one before it is skipped; a second in a row
//     is ErrRepeatedPage when counted, and ends an uncounted walk (an
//     unpaged array);
//   - a count that fell since the page before means items moved towards the
//     front between the two reads, so some crossed the boundary unseen: the
//     pages from where they were are read again, one at a time, and items
//     already yielded are dropped by Key;
//   - once a page contradicts its count, the count is no longer believed:
//     no prefetching, no shift detection, and the page's
//     WarnCountContradicted runs.
//
// While the count is believed, up to w.Concurrency pages are in flight at
// once and at most that many are held. An error (a fetch's, or ctx's
// between pages) is yielded once and ends the walk; when the consumer
// stops, pages in flight are cancelled and waited for.
func All[T any](ctx context.Context, w Walk[T]) iter.Seq2[T, error] {
	w.FirstPage = max(w.FirstPage, 1)
	w.PageSize = max(w.PageSize, 1)
	w.Concurrency = max(w.Concurrency, 1)
	return func(yield func(T, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		wk := &walker[T]{
			Walk: w, ctx: ctx, yield: yield, next: w.FirstPage, countBelieved: true, rereadsLeft: maxRereads,
			history: make([]pageRecord, Remembered(w.PageSize)), seen: make(map[string]int),
		}
		defer func() {
			cancel()
			wk.wg.Wait()
		}()
		wk.run()
	}
}

// slot is one page launched: in flight until done is closed.
type slot[T any] struct {
	page   int
	res    *Result[T]
	err    error
	done   chan struct{}
	cancel context.CancelFunc
}

// walker is the state of one walk, owned by the loop's goroutine.
type walker[T any] struct {
	Walk[T]
	ctx   context.Context
	yield func(T, error) bool
	wg    sync.WaitGroup

	queue    []*slot[T] // launched pages, in page order
	next     int        // the page to launch next
	lastPage int        // the last page by a believed count; 0: unknown

	prev     *Result[T] // the page accepted last; nil after a re-read starts
	prevPage int
	furthest int // the furthest page accepted

	sameAnswers int // pages in a row that repeated the one before

	countBelieved bool
	warned        bool // a WarnCountContradicted ran

	rereadsLeft int // before the walk gets past furthest
	calmThrough int // pages up to this one are read one at a time
	rereadFrom  int // the first page of the last re-read
	rereadTotal int // the count that started it: what that page is held to

	history []pageRecord   // the pages accepted, by page % len(history)
	seen    map[string]int // the keys yielded in those pages, and the page of each
}

// pageRecord is what the walk remembers of a page it accepted.
type pageRecord struct {
	page     int // 0: none
	total    int
	hasTotal bool
	keys     []string // those yielded in it
}

// run takes the pages in order until the walk is over.
func (w *walker[T]) run() {
	for {
		if err := w.fill(); err != nil {
			w.fail(nil, err)
			return
		}
		s := w.queue[0]
		w.queue = w.queue[1:]
		<-s.done
		s.cancel()
		if s.err != nil {
			w.fail(s.res, s.err)
			return
		}
		if !w.step(s.page, s.res) {
			return
		}
	}
}

// fill launches the next page when none is in flight, and more while a
// believed count says they exist, up to Concurrency.
func (w *walker[T]) fill() error {
	for len(w.queue) == 0 || (w.prefetching() && len(w.queue) < w.Concurrency && w.next <= w.lastPage) {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		w.launch(w.next)
		if w.next == math.MaxInt {
			w.lastPage = 0 // Judge ends the walk there
		} else {
			w.next++
		}
	}
	return nil
}

// prefetching reports whether pages may be read ahead: a page has been
// accepted, its count is believed, and no re-read is under way.
func (w *walker[T]) prefetching() bool {
	return w.Concurrency > 1 && w.prev != nil && w.countBelieved && w.prevPage >= w.calmThrough
}

// launch starts fetching page.
func (w *walker[T]) launch(page int) {
	ctx, cancel := context.WithCancel(w.ctx)
	s := &slot[T]{page: page, done: make(chan struct{}), cancel: cancel}
	w.queue = append(w.queue, s)
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer close(s.done)
		s.res, s.err = w.Fetch(ctx, page, w.PageSize)
		if s.res == nil && s.err == nil {
			s.res = &Result[T]{}
		}
	}()
}

// step takes one page, the next in order; false: the walk is over.
func (w *walker[T]) step(page int, r *Result[T]) bool {
	v := Judge(page, w.PageSize, max(r.Received, len(r.Items)), r.Total, r.HasTotal)
	if w.repeats(r) {
		return w.repeated(page, r, v)
	}
	w.sameAnswers = 0
	if !v.CountContradicted {
		if from := w.shiftedBack(page, r); from > 0 {
			w.reread(from, page, r.Total)
			return true
		}
	}
	w.followCount(r, v)
	if !w.emit(page, r) {
		return false
	}
	w.prev, w.prevPage = r, page
	if page > w.furthest {
		w.furthest, w.rereadsLeft = page, maxRereads
	}
	return v.Next != 0
}

// repeated handles a page that is the page before it again; false: the
// walk is over. Once may be a list that shifted by exactly a page between
// the two reads: the items were yielded already, and the walk reads on.
// Twice in a row is a service that ignores the page number: an error when
// it sent a count, the end of an unpaged array when it did not.
func (w *walker[T]) repeated(page int, r *Result[T], v Verdict) bool {
	w.sameAnswers++
	if w.sameAnswers == 1 {
		return v.Next != 0
	}
	if r.HasTotal {
		w.fail(r, fmt.Errorf("page %d: %w", page, ErrRepeatedPage))
	}
	return false
}

// repeats reports whether r is the page before it again.
func (w *walker[T]) repeats(r *Result[T]) bool {
	return w.prev != nil && r.BodyHash == w.prev.BodyHash && max(r.Received, len(r.Items)) > 0
}

// shiftedBack returns the page to read again from when items may have
// crossed the boundary before page unseen, or 0. The count fell since the
// page before was read: items moved towards the front between the two reads
// (deletions ahead of them, or, with pages in flight at once, inserts that
// the page before saw and this one did not). The items that crossed are now
// just before this page's first item, or in this page.
func (w *walker[T]) shiftedBack(page int, r *Result[T]) int {
	before, ok := w.countBefore(page)
	if !ok || !w.countBelieved || !r.HasTotal || r.Total >= before || w.rereadsLeft == 0 {
		return 0
	}
	moved := itemsThrough(page, w.PageSize, 0) - (before - r.Total)
	from := pagesFor(max(moved, 0)+1, w.PageSize)
	return min(max(from, w.FirstPage, w.furthest-len(w.history)+2), page-1)
}

// countBefore is the count page is held to: that of the page before it,
// or, for the first page of a re-read, the count that started the re-read
// (the page before it was read before the change the re-read is about).
func (w *walker[T]) countBefore(page int) (int, bool) {
	if w.prev == nil && page == w.rereadFrom {
		return w.rereadTotal, true
	}
	rec := w.record(page - 1)
	if rec == nil || !rec.hasTotal {
		return 0, false
	}
	return rec.total, true
}

// reread abandons the pages in flight and reads again, one page at a time,
// from page from through boundary, holding page from to total.
func (w *walker[T]) reread(from, boundary, total int) {
	w.rereadsLeft--
	w.rereadFrom, w.rereadTotal = from, total
	for _, s := range w.queue {
		s.cancel()
	}
	w.queue = nil
	w.next, w.calmThrough = from, max(w.calmThrough, boundary)
	w.prev = nil
}

// record is what the walk remembers of page, or nil.
func (w *walker[T]) record(page int) *pageRecord {
	if page < 1 {
		return nil
	}
	rec := &w.history[page%len(w.history)]
	if rec.page != page {
		return nil
	}
	return rec
}

// followCount extends the prefetch range by a believed count, and stops
// believing it once a page contradicts it.
func (w *walker[T]) followCount(r *Result[T], v Verdict) {
	if v.CountContradicted {
		w.countBelieved, w.lastPage = false, 0
		if !w.warned && r.WarnCountContradicted != nil {
			w.warned = true
			r.WarnCountContradicted()
		}
		return
	}
	if w.countBelieved && r.HasTotal {
		w.lastPage = max(w.lastPage, pagesFor(r.Total, w.PageSize))
	}
}

// emit yields a page's items but those already yielded, and remembers the
// page; false: stop.
func (w *walker[T]) emit(page int, r *Result[T]) bool {
	if r.BeforeYield != nil {
		r.BeforeYield()
	}
	rec := w.remember(page, r)
	for _, it := range r.Items {
		if w.Key != nil {
			if k := w.Key(it); k != "" {
				_, again := w.seen[k]
				w.seen[k] = page // remembered from its latest page
				rec.keys = append(rec.keys, k)
				if again {
					continue
				}
			}
		}
		if !w.yield(it, nil) {
			return false
		}
	}
	return true
}

// remember records page's count in its slot, forgetting the page that held
// the slot before and its keys; a page read again keeps its slot and keys.
func (w *walker[T]) remember(page int, r *Result[T]) *pageRecord {
	rec := &w.history[page%len(w.history)]
	if rec.page != page {
		for _, k := range rec.keys {
			if w.seen[k] == rec.page {
				delete(w.seen, k)
			}
		}
		*rec = pageRecord{page: page}
	}
	rec.total, rec.hasTotal = r.Total, r.HasTotal
	return rec
}

// fail yields err, once.
func (w *walker[T]) fail(r *Result[T], err error) {
	if r != nil && r.BeforeYield != nil {
		r.BeforeYield()
	}
	var zero T
	w.yield(zero, err)
}
