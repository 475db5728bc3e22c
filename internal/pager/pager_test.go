package pager

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp/internal/lenient"
)

func TestListDecodesEnvelopeAndBareArray(t *testing.T) {
	var l List[int]
	_, err := lenient.Decode([]byte(`{"totalCount": 7, "items": [1,2,3]}`), &l)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 3}, l.Items)
	assert.Equal(t, 7, total(l.Total()))

	l = List[int]{}
	_, err = lenient.Decode([]byte(" \n[4,5]"), &l)
	require.NoError(t, err)
	assert.Equal(t, []int{4, 5}, l.Items)
	assert.Equal(t, -1, total(l.Total()))

	l = List[int]{}
	_, err = lenient.Decode([]byte(`{"items": []}`), &l)
	require.NoError(t, err)
	assert.Equal(t, -1, total(l.Total()), "an envelope without totalCount has no total")

	l = List[int]{}
	_, err = lenient.Decode([]byte(`{"totalCount": -3, "items": []}`), &l)
	require.NoError(t, err)
	assert.Equal(t, -1, total(l.Total()), "a negative count is none")

	_, err = lenient.Decode([]byte(`"nope"`), &l)
	assert.Error(t, err)
}

// fakePages serves items 1..n in pages, reporting total (or none when
// total is -1).
type fakePages struct {
	n, total, cap int
	mu            sync.Mutex
	calls         int
}

func (f *fakePages) fetch(_ context.Context, page, size int) (*Result[int], error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if f.cap > 0 && size > f.cap {
		size = f.cap
	}
	var out []int
	for i := (page-1)*size + 1; i <= page*size && i <= f.n; i++ {
		out = append(out, i)
	}
	return result(out, f.total), nil
}

var seed = maphash.MakeSeed()

// result builds a page whose body hash is that of its count and items, as
// the service's answer holds both.
func result(items []int, total int) *Result[int] {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(strconv.Itoa(total) + ":")
	for _, v := range items {
		h.WriteString(strconv.Itoa(v) + ",")
	}
	return &Result[int]{Items: items, Received: len(items), Total: total, HasTotal: total != -1, BodyHash: h.Sum64()}
}

// total turns List.Total's answer into the count or -1, for comparing.
func total(n int, ok bool) int {
	if !ok {
		return -1
	}
	return n
}

func collect(t *testing.T, seq func(func(int, error) bool)) ([]int, error) {
	t.Helper()
	var got []int
	for v, err := range seq {
		if err != nil {
			return got, err
		}
		got = append(got, v)
	}
	return got, nil
}

func seqOf(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func TestAllStopsOnEveryCondition(t *testing.T) {
	ctx := context.Background()
	for _, conc := range []int{1, 4} {
		t.Run(fmt.Sprint("concurrency ", conc), func(t *testing.T) {
			calls := func(t *testing.T, f *fakePages, want int) {
				if conc == 1 { // in parallel, pages past the end may be asked for too
					assert.Equal(t, want, f.calls)
				}
			}
			t.Run("total reached", func(t *testing.T) {
				f := &fakePages{n: 25, total: 25}
				got, err := collect(t, All(ctx, Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: conc, Fetch: f.fetch}))
				require.NoError(t, err)
				assert.Equal(t, seqOf(25), got)
				assert.Equal(t, 3, f.calls)
			})
			t.Run("total reached exactly on a full page: the count never ends the walk", func(t *testing.T) {
				f := &fakePages{n: 20, total: 20}
				_, err := collect(t, All(ctx, Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: conc, Fetch: f.fetch}))
				require.NoError(t, err)
				assert.Equal(t, 3, f.calls, "the third page, empty, ends it")
			})
			t.Run("short page without a total", func(t *testing.T) {
				f := &fakePages{n: 25, total: -1}
				got, _ := collect(t, All(ctx, Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: conc, Fetch: f.fetch}))
				assert.Equal(t, seqOf(25), got)
				assert.Equal(t, 3, f.calls)
			})
			t.Run("empty page without a total", func(t *testing.T) {
				f := &fakePages{n: 20, total: -1}
				got, _ := collect(t, All(ctx, Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: conc, Fetch: f.fetch}))
				assert.Equal(t, seqOf(20), got)
				assert.Equal(t, 3, f.calls, "the third page is empty")
			})
			t.Run("empty page before the total", func(t *testing.T) {
				f := &fakePages{n: 5, total: 50}
				got, _ := collect(t, All(ctx, Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: conc, Fetch: f.fetch}))
				assert.Equal(t, seqOf(5), got)
				calls(t, f, 1)
			})
			t.Run("a service that serves smaller pages than asked: short, so the end, and the count says so", func(t *testing.T) {
				f := &fakePages{n: 45, total: 45, cap: 10}
				contradicted := 0
				got, _ := collect(t, All(ctx, Walk[int]{FirstPage: 1, PageSize: 1000, Concurrency: conc, Fetch: warnInto(f.fetch, &contradicted)}))
				assert.Equal(t, seqOf(10), got)
				assert.Equal(t, 1, contradicted)
			})
			t.Run("total of 0 next to items is unknown", func(t *testing.T) {
				f := &fakePages{n: 15, total: 0}
				got, _ := collect(t, All(ctx, Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: conc, Fetch: f.fetch}))
				assert.Equal(t, seqOf(15), got)
			})
			t.Run("starting page", func(t *testing.T) {
				f := &fakePages{n: 25, total: 25}
				got, _ := collect(t, All(ctx, Walk[int]{FirstPage: 2, PageSize: 10, Concurrency: conc, Fetch: f.fetch}))
				assert.Equal(t, seqOf(25)[10:], got)
				assert.Equal(t, 2, f.calls)
			})
			t.Run("a count that grows during the walk is followed", func(t *testing.T) {
				var mu sync.Mutex
				asked := 0
				fetch := func(_ context.Context, page, size int) (*Result[int], error) {
					mu.Lock()
					defer mu.Unlock()
					asked++
					total := 20
					if asked > 1 {
						total = 35 // more arrived after the first page
					}
					var out []int
					for i := (page-1)*size + 1; i <= page*size && i <= 35; i++ {
						out = append(out, i)
					}
					return result(out, total), nil
				}
				got, err := collect(t, All(ctx, Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: conc, Fetch: fetch}))
				require.NoError(t, err)
				assert.Equal(t, seqOf(35), got)
			})
		})
	}
}

func TestAllNeverLoops(t *testing.T) {
	// A server that ignores the page parameter and always answers the same
	// full page.
	for _, conc := range []int{1, 4} {
		t.Run("counted: an error", func(t *testing.T) {
			same := func(_ context.Context, page, size int) (*Result[int], error) {
				return result(seqOf(size), 1_000_000_000), nil
			}
			got, err := collect(t, All(context.Background(), Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: conc, Fetch: same}))
			assert.ErrorIs(t, err, ErrRepeatedPage)
			assert.Len(t, got, 10)
		})
		t.Run("a bare array: just ends", func(t *testing.T) {
			same := func(_ context.Context, page, size int) (*Result[int], error) {
				return result(seqOf(size), -1), nil
			}
			got, err := collect(t, All(context.Background(), Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: conc, Fetch: same}))
			require.NoError(t, err)
			assert.Len(t, got, 10)
		})
		t.Run("a count of 0 beside full pages: an error", func(t *testing.T) {
			same := func(_ context.Context, page, size int) (*Result[int], error) {
				return result(seqOf(size), 0), nil
			}
			_, err := collect(t, All(context.Background(), Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: conc, Fetch: same}))
			assert.ErrorIs(t, err, ErrRepeatedPage)
		})
		t.Run("a negative count: contradicted, and every item still arrives", func(t *testing.T) {
			f := &fakePages{n: 25, total: -5}
			contradicted := 0
			got, err := collect(t, All(context.Background(), Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: conc, Fetch: warnInto(f.fetch, &contradicted)}))
			require.NoError(t, err)
			assert.Equal(t, seqOf(25), got)
			assert.Equal(t, 1, contradicted)
		})
	}
}

func TestAllYieldsErrorOnceAndStops(t *testing.T) {
	boom := errors.New("boom")
	var mu sync.Mutex
	calls := 0
	fetch := func(_ context.Context, page, size int) (*Result[int], error) {
		mu.Lock()
		calls++
		mu.Unlock()
		if page == 2 {
			return nil, boom
		}
		return result(seqOf(size), 100), nil
	}
	var errs int
	n := 0
	for _, err := range All(context.Background(), Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: 1, Fetch: fetch}) {
		if err != nil {
			errs++
			assert.ErrorIs(t, err, boom)
			continue // a consumer that keeps ranging still sees one error
		}
		n++
	}
	assert.Equal(t, 1, errs)
	assert.Equal(t, 10, n)
	assert.Equal(t, 2, calls)
}

func TestAllChecksContextBetweenPages(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	fetch := func(_ context.Context, page, size int) (*Result[int], error) {
		calls++
		return result(seqOf(size), -1), nil
	}
	var lastErr error
	n := 0
	for v, err := range All(ctx, Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: 1, Fetch: fetch}) {
		if err != nil {
			lastErr = err
			break
		}
		n++
		if v == 10 {
			cancel()
		}
	}
	assert.ErrorIs(t, lastErr, context.Canceled)
	assert.Equal(t, 10, n)
	assert.Equal(t, 1, calls)
}

func TestAllStopsWhenConsumerStops(t *testing.T) {
	f := &fakePages{n: 100, total: 100}
	for v := range All(context.Background(), Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: 1, Fetch: f.fetch}) {
		if v == 3 {
			break
		}
	}
	assert.Equal(t, 1, f.calls)
}

// pagedServer serves n items, counted, with a random delay per page, and
// tracks how many pages are held: fetched or in flight and not yet
// consumed.
type pagedServer struct {
	n          int
	mu         sync.Mutex
	started    []int
	held, peak int
	inFlight   int
}

func (s *pagedServer) fetch(ctx context.Context, page, size int) (*Result[int], error) {
	s.mu.Lock()
	s.started = append(s.started, page)
	s.held++
	s.inFlight++
	s.peak = max(s.peak, s.held)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	select {
	case <-time.After(time.Duration(rand.IntN(3)) * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var out []int
	for i := (page-1)*size + 1; i <= page*size && i <= s.n; i++ {
		out = append(out, i)
	}
	r := result(out, s.n)
	r.BeforeYield = func() {
		s.mu.Lock()
		s.held--
		s.mu.Unlock()
	}
	return r, nil
}

func TestAllInParallelKeepsOrderAndBoundsMemory(t *testing.T) {
	s := &pagedServer{n: 5000}
	got, err := collect(t, All(context.Background(), Walk[int]{FirstPage: 1, PageSize: 50, Concurrency: 4, Fetch: s.fetch}))
	require.NoError(t, err)
	assert.Equal(t, seqOf(5000), got, "in order, no duplicates, no gaps")
	assert.Len(t, s.started, 101, "the 101st page, empty, ends the walk")
	assert.LessOrEqual(t, s.peak, 4+1, "pages held: the one being yielded and those in flight")
}

func TestAllInParallelStopsAtOnceOnBreak(t *testing.T) {
	base := runtime.NumGoroutine()
	s := &pagedServer{n: 100_000}
	n := 0
	for range All(context.Background(), Walk[int]{FirstPage: 1, PageSize: 10, Concurrency: 4, Fetch: s.fetch}) {
		if n++; n == 25 {
			break
		}
	}
	s.mu.Lock()
	started, inFlight := len(s.started), s.inFlight
	s.mu.Unlock()
	assert.LessOrEqual(t, started, 3+4, "pages past the break: at most those in flight")
	assert.Zero(t, inFlight, "pages in flight are cancelled and waited for")
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), base, "no goroutine leaks")
}
