package pager

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJudge(t *testing.T) {
	const big = math.MaxInt
	for _, c := range []struct {
		name                        string
		page, size, received, total int
		hasTotal                    bool
		next                        int
		contradicted                bool
	}{
		{"full page: read on", 1, 10, 10, 0, false, 2, false},
		{"short page: the last", 3, 10, 4, 0, false, 0, false},
		{"empty page: the last", 3, 10, 0, 0, false, 0, false},
		{"full page, count reached: still read on", 2, 10, 10, 20, true, 3, false},
		{"short page, count agrees", 3, 10, 4, 24, true, 0, false},
		{"short page, count says more: the last all the same", 1, 10, 4, 50, true, 0, true},
		{"count lower than the items so far (stale, or per page)", 2, 10, 10, 10, true, 3, true},
		{"count of 0 beside items", 1, 10, 3, 0, true, 0, true},
		{"negative count", 1, 10, 10, -5, true, 2, true},
		{"empty page after full ones, count agrees", 3, 10, 0, 20, true, 0, false},
		{"empty page, count says more", 3, 10, 0, 21, true, 0, true},
		{"empty page, the count cannot be checked from below", 9, 10, 0, 5, true, 0, false},
		{"count near MaxInt on a full page", 5, 1000, 1000, big, true, 6, false},
		{"count near MaxInt on the last page", 5, 1000, 10, big, true, 0, true},
		{"page near MaxInt: no overflow", big, 1000, 1000, big, true, 0, false},
		{"page and size near MaxInt: no overflow", big / 2, big / 2, big / 2, 7, true, big/2 + 1, true},
		{"page 0 is not a page", 0, 10, 10, 0, false, 0, false},
		{"a service that ignores pageSize: 25 of 1000, more counted", 2, 1000, 25, 60, true, 3, false},
		{"its last page", 3, 1000, 10, 60, true, 0, false},
		{"25 of 1000 and nothing more counted: the last", 1, 1000, 25, 25, true, 0, false},
		{"25 of 1000 without a count: the last", 1, 1000, 25, 0, false, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Judge(c.page, c.size, c.received, c.total, c.hasTotal)
			assert.Equal(t, Verdict{Next: c.next, CountContradicted: c.contradicted}, v)
		})
	}
}

// liveList serves ids newest first from a list that may change while it
// is read: before serving a page it calls change, under its lock.
type liveList struct {
	mu     sync.Mutex
	items  []int
	calls  int
	change func(l *liveList, page int)
	count  func(l *liveList, page int) int // the count it sends; nil: the true one
}

func newLiveList(n int) *liveList {
	l := &liveList{}
	for i := n; i >= 1; i-- {
		l.items = append(l.items, i)
	}
	return l
}

func (l *liveList) insertFront(ids ...int) { l.items = append(slices.Clone(ids), l.items...) }

func (l *liveList) fetch(_ context.Context, page, size int) (*Result[int], error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	if l.change != nil {
		l.change(l, page)
	}
	from := min((page-1)*size, len(l.items))
	out := slices.Clone(l.items[from:min(from+size, len(l.items))])
	total := len(l.items)
	if l.count != nil {
		total = l.count(l, page)
	}
	return result(out, total), nil
}

func walkIDs(l *liveList, size, conc int, warnings *int) Walk[int] {
	return Walk[int]{FirstPage: 1, PageSize: size, Concurrency: conc, Fetch: warnInto(l.fetch, warnings), Key: strconv.Itoa}
}

// warnInto makes fetch's pages count the walk's warnings about the count in *n.
func warnInto(fetch Fetch[int], n *int) Fetch[int] {
	return func(ctx context.Context, page, size int) (*Result[int], error) {
		r, err := fetch(ctx, page, size)
		if r != nil && n != nil {
			r.WarnCountContradicted = func() { *n++ }
		}
		return r, err
	}
}

// assertEveryOnce checks that every id of want arrived, and none twice.
func assertEveryOnce(t *testing.T, want, got []int) {
	t.Helper()
	seen := map[int]int{}
	for _, id := range got {
		seen[id]++
	}
	for id, n := range seen {
		assert.Equal(t, 1, n, "id %d arrived %d times", id, n)
	}
	for _, id := range want {
		assert.Contains(t, seen, id, "id %d was lost", id)
	}
}

func TestAllLosesNothingWhenTheCountLies(t *testing.T) {
	for name, count := range map[string]func(l *liveList, page int) int{
		"stale low":       func(*liveList, int) int { return 100 },
		"per page":        func(l *liveList, page int) int { return min(max(len(l.items)-(page-1)*100, 0), 100) },
		"near MaxInt":     func(*liveList, int) int { return math.MaxInt },
		"near MaxInt - 1": func(*liveList, int) int { return math.MaxInt - 1 },
		"negative":        func(*liveList, int) int { return -2 },
	} {
		for _, conc := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s, concurrency %d", name, conc), func(t *testing.T) {
				l := newLiveList(1050)
				l.count = count
				contradicted := 0
				got, err := collect(t, All(context.Background(), walkIDs(l, 100, conc, &contradicted)))
				require.NoError(t, err)
				assert.Equal(t, newLiveList(1050).items, got, "every item, in order")
				assert.Equal(t, 1, contradicted, "reported once")
			})
		}
	}
}

func TestAllLosesNothingWhenItemsAreInsertedAtTheFront(t *testing.T) {
	for _, conc := range []int{1, 2, 4} {
		t.Run(fmt.Sprint("concurrency ", conc), func(t *testing.T) {
			l := newLiveList(1000)
			want := slices.Clone(l.items)
			next := 1001
			l.change = func(l *liveList, page int) {
				if page%3 == 0 { // a few new items arrive while some pages are read
					l.insertFront(next, next+1, next+2)
					next += 3
				}
			}
			got, err := collect(t, All(context.Background(), walkIDs(l, 50, conc, nil)))
			require.NoError(t, err)
			assertEveryOnce(t, want, got)
		})
	}
}

// TestAllRereadsAPageReadBeforeInsertsThePageBeforeSaw serves page 3
// before page 2, and inserts at the front in between: without a re-read,
// the items that page 2's read pushed into page 3 are on neither.
func TestAllRereadsAPageReadBeforeInsertsThePageBeforeSaw(t *testing.T) {
	l := newLiveList(100)
	want := slices.Clone(l.items)
	page3Served := make(chan struct{})
	var once sync.Once
	fetch := func(ctx context.Context, page, size int) (*Result[int], error) {
		if page == 2 {
			<-page3Served
		}
		r, err := l.fetch(ctx, page, size)
		if page == 3 {
			once.Do(func() { close(page3Served) })
		}
		return r, err
	}
	l.change = func(l *liveList, page int) {
		if page == 2 && l.calls <= 4 {
			l.insertFront(1001, 1002, 1003, 1004)
		}
	}
	w := walkIDs(l, 10, 4, nil)
	w.Fetch = fetch
	got, err := collect(t, All(context.Background(), w))
	require.NoError(t, err)
	assertEveryOnce(t, want, got)
}

func TestAllRereadsAfterDeletionsAhead(t *testing.T) {
	for _, conc := range []int{1, 4} {
		t.Run(fmt.Sprint("concurrency ", conc), func(t *testing.T) {
			l := newLiveList(100)
			deleted := map[int]bool{}
			l.change = func(l *liveList, page int) {
				if page == 4 && len(deleted) == 0 {
					for _, id := range l.items[:3] {
						deleted[id] = true
					}
					l.items = l.items[3:]
				}
			}
			var want []int
			for _, id := range l.items {
				if id <= 97 {
					want = append(want, id) // those that exist for the whole walk
				}
			}
			got, err := collect(t, All(context.Background(), walkIDs(l, 10, conc, nil)))
			require.NoError(t, err)
			assertEveryOnce(t, want, got)
		})
	}
}

func TestAllDropsItemsAlreadyYieldedByKey(t *testing.T) {
	pages := [][]int{{1, 2, 3}, {3, 4, 4}, {5}}
	fetch := func(_ context.Context, page, size int) (*Result[int], error) {
		return result(pages[page-1], -1), nil
	}
	got, err := collect(t, All(context.Background(), Walk[int]{PageSize: 3, Fetch: fetch, Key: strconv.Itoa}))
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 3, 4, 5}, got)

	noKey := func(int) string { return "" }
	got, err = collect(t, All(context.Background(), Walk[int]{PageSize: 3, Fetch: fetch, Key: noKey}))
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 3, 3, 4, 4, 5}, got, "an empty key drops nothing")
}

func TestAllGivesUpRereadingAListThatKeepsShrinking(t *testing.T) {
	l := newLiveList(10_000)
	l.change = func(l *liveList, page int) {
		if page > 1 {
			l.items = l.items[1:] // one item deleted at the front before every page
		}
	}
	got, err := collect(t, All(context.Background(), walkIDs(l, 10, 1, nil)))
	require.NoError(t, err)
	assert.NotEmpty(t, got)
	pages := 10_000 / 10
	assert.LessOrEqual(t, l.calls, pages*(1+2*maxRereads), "each boundary re-read a bounded number of times")
}

// churn is a change to a liveList before it serves its at-th request.
type churn struct {
	at, amount int
	kind       byte // 0: insert at the front, 1: delete at the front, 2: insert at the back
}

// churnOf reads up to 4 changes from ops, 3 bytes each, of at most two
// pages' worth of items.
func churnOf(ops []byte, size int) []churn {
	var out []churn
	for i := 0; i+2 < len(ops) && len(out) < 4; i += 3 {
		out = append(out, churn{at: 1 + int(ops[i])%16, amount: 1 + int(ops[i+1])%(2*size), kind: ops[i+2] % 3})
	}
	return out
}

// apply makes the changes due before the current request; it returns the
// ids deleted.
func (l *liveList) apply(changes []churn, next *int, deleted map[int]bool) {
	for _, c := range changes {
		if c.at != l.calls {
			continue
		}
		for range c.amount {
			switch c.kind {
			case 0:
				l.insertFront(*next)
				*next++
			case 1:
				if len(l.items) > 0 {
					deleted[l.items[0]] = true
					l.items = l.items[1:]
				}
			case 2:
				l.items = append(l.items, *next)
				*next++
			}
		}
	}
}

// cancelOut reports whether changes delete and insert, which may leave
// the count as it was.
func cancelOut(changes []churn) bool {
	var deletes, inserts bool
	for _, c := range changes {
		deletes = deletes || c.kind == 1
		inserts = inserts || c.kind != 1
	}
	return deletes && inserts
}

// countOf is the count a liveList sends: the true one (mode 0), a fixed
// value (1), the items on the page (2), or the true one off by value (3).
func countOf(mode byte, value int64, pageSize int) func(l *liveList, page int) int {
	switch mode % 4 {
	case 1:
		return func(*liveList, int) int { return int(value) }
	case 2:
		return func(l *liveList, page int) int { return max(min(len(l.items)-(page-1)*pageSize, pageSize), 0) }
	case 3:
		return func(l *liveList, _ int) int { return len(l.items) + int(value%1000) }
	}
	return nil
}

// FuzzAll walks a list whose size, page size, page concurrency and count
// are the fuzzer's, and which changes while it is read. Whatever happens,
// the walk ends, yields no id twice, and when the count is true or the
// list does not change, yields every item that existed for the whole walk.
func FuzzAll(f *testing.F) {
	f.Add(uint16(100), uint8(10), uint8(4), uint8(0), int64(0), []byte{})
	f.Add(uint16(1050), uint8(100), uint8(4), uint8(1), int64(100), []byte{})
	f.Add(uint16(1050), uint8(100), uint8(1), uint8(1), int64(math.MaxInt64), []byte{})
	f.Add(uint16(300), uint8(50), uint8(4), uint8(0), int64(0), []byte{2, 5, 0})
	f.Add(uint16(300), uint8(10), uint8(4), uint8(0), int64(0), []byte{3, 3, 1, 6, 12, 0})
	f.Add(uint16(25), uint8(10), uint8(2), uint8(2), int64(0), []byte{1, 1, 2})
	f.Add(uint16(60), uint8(200), uint8(3), uint8(3), int64(-7), []byte{4, 0, 0})
	// Found by fuzzing: exactly a page inserted at the front makes the next
	// page's items those of the page before; its count differs, so it is no
	// repeat.
	f.Add(uint16(367), uint8('2'), uint8(4), uint8(0), int64(0), []byte("\x0210"))
	// Found by fuzzing: an insert at the front, pages read out of order,
	// then deletions at the front during the re-read: the re-read's first
	// page must be checked against the page before it, read earlier.
	f.Add(uint16(300), uint8(3), uint8(4), uint8(0), int64(0), []byte("991700"))
	// Found by fuzzing: a page inserted at the front under a fixed count.
	f.Add(uint16(300), uint8('2'), uint8(4), uint8('M'), int64(0), []byte("110"))
	// Found by fuzzing: two deletions at the front, the second during a
	// re-read; held to the page before it, a re-read page went back further
	// than needed and spent the re-reads the second deletion needed.
	f.Add(uint16(300), uint8('\n'), uint8(1), uint8('\\'), int64(93), []byte("C01701"))
	// Found by fuzzing: one item deleted at the front as another is added
	// at the back, with pages of one item: the next page is the same answer
	// as the one before, and is skipped rather than an error.
	f.Add(uint16(300), uint8(0), uint8('-'), uint8(0), int64(0), []byte("7027010"))
	f.Fuzz(func(t *testing.T, n uint16, size, conc, mode uint8, value int64, ops []byte) {
		pageSize := max(int(size), 1)
		l := newLiveList(int(n) % 3000)
		original := slices.Clone(l.items)
		changes := churnOf(ops, pageSize)
		next, deleted := 1_000_000, map[int]bool{}
		l.change = func(l *liveList, page int) { l.apply(changes, &next, deleted) }
		l.count = countOf(mode, value, pageSize)
		limit := 100_000
		fetch := func(ctx context.Context, page, size int) (*Result[int], error) {
			l.mu.Lock()
			calls := l.calls
			l.mu.Unlock()
			if calls > limit {
				return nil, fmt.Errorf("still reading after %d requests", limit)
			}
			return l.fetch(ctx, page, size)
		}
		w := Walk[int]{PageSize: pageSize, Concurrency: 1 + int(conc)%8, Fetch: fetch, Key: strconv.Itoa}
		got, err := collect(t, All(context.Background(), w))
		lying := mode%4 != 0
		if errors.Is(err, ErrRepeatedPage) && lying && len(changes) > 0 {
			// Exactly a page inserted at the front under a fixed count is
			// the same answer twice: failing loudly is right.
			err = nil
		}
		require.NoError(t, err)

		seen := map[int]bool{}
		for _, id := range got {
			require.False(t, seen[id], "id %d yielded twice", id)
			seen[id] = true
		}
		pages := (len(original)+len(changes)*2*pageSize)/pageSize + 2
		require.LessOrEqual(t, l.calls, pages*(1+maxRereads*(Remembered(pageSize)+1))+w.Concurrency, "requests")
		if lying && len(changes) > 0 || len(changes) > maxRereads || cancelOut(changes) {
			return // a shift is seen from the count: a lying count, or deletions and inserts that cancel out, hide it
		}
		for _, id := range original {
			if !deleted[id] {
				require.True(t, seen[id], "id %d lost", id)
			}
		}
	})
}
