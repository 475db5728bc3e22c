package pager

import (
	"context"
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
