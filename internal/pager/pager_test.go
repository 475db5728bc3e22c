package pager

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp/internal/jsonx"
)

func TestListDecodesEnvelopeAndBareArray(t *testing.T) {
	var l List[int]
	_, err := jsonx.Decode([]byte(`{"totalCount": 7, "items": [1,2,3]}`), &l)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 3}, l.Items)
	assert.Equal(t, 7, l.Total())

	l = List[int]{}
	_, err = jsonx.Decode([]byte(" \n[4,5]"), &l)
	require.NoError(t, err)
	assert.Equal(t, []int{4, 5}, l.Items)
	assert.Equal(t, -1, l.Total())

	l = List[int]{}
	_, err = jsonx.Decode([]byte(`{"items": []}`), &l)
	require.NoError(t, err)
	assert.Equal(t, -1, l.Total(), "an envelope without totalCount has no total")

	_, err = jsonx.Decode([]byte(`"nope"`), &l)
	assert.Error(t, err)
}

// fakePages serves items 1..n in pages, reporting total (or -1).
type fakePages struct {
	n, total, cap int
	calls         int
}

func (f *fakePages) fetch(_ context.Context, page, size int) ([]int, int, error) {
	f.calls++
	if f.cap > 0 && size > f.cap {
		size = f.cap
	}
	var out []int
	for i := (page-1)*size + 1; i <= page*size && i <= f.n; i++ {
		out = append(out, i)
	}
	return out, f.total, nil
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
	t.Run("total reached", func(t *testing.T) {
		f := &fakePages{n: 25, total: 25}
		got, err := collect(t, All(ctx, 1, 10, f.fetch))
		require.NoError(t, err)
		assert.Equal(t, seqOf(25), got)
		assert.Equal(t, 3, f.calls)
	})
	t.Run("total reached exactly on a full page: no extra request", func(t *testing.T) {
		f := &fakePages{n: 20, total: 20}
		_, err := collect(t, All(ctx, 1, 10, f.fetch))
		require.NoError(t, err)
		assert.Equal(t, 2, f.calls)
	})
	t.Run("short page without a total", func(t *testing.T) {
		f := &fakePages{n: 25, total: -1}
		got, _ := collect(t, All(ctx, 1, 10, f.fetch))
		assert.Equal(t, seqOf(25), got)
		assert.Equal(t, 3, f.calls)
	})
	t.Run("empty page without a total", func(t *testing.T) {
		f := &fakePages{n: 20, total: -1}
		got, _ := collect(t, All(ctx, 1, 10, f.fetch))
		assert.Equal(t, seqOf(20), got)
		assert.Equal(t, 3, f.calls, "the third page is empty")
	})
	t.Run("empty page before the total", func(t *testing.T) {
		f := &fakePages{n: 5, total: 50}
		got, _ := collect(t, All(ctx, 1, 10, f.fetch))
		assert.Equal(t, seqOf(5), got)
		assert.Equal(t, 2, f.calls)
	})
	t.Run("server caps the page size below ours: still read to the end", func(t *testing.T) {
		f := &fakePages{n: 45, total: 45, cap: 10}
		got, _ := collect(t, All(ctx, 1, 1000, f.fetch))
		assert.Equal(t, seqOf(45), got)
	})
	t.Run("total of 0 next to items is unknown", func(t *testing.T) {
		f := &fakePages{n: 15, total: 0}
		got, _ := collect(t, All(ctx, 1, 10, f.fetch))
		assert.Equal(t, seqOf(15), got)
	})
	t.Run("starting page", func(t *testing.T) {
		f := &fakePages{n: 25, total: 25}
		got, _ := collect(t, All(ctx, 2, 10, f.fetch))
		assert.Equal(t, seqOf(25)[10:], got)
		assert.Equal(t, 2, f.calls)
	})
}

func TestAllNeverLoops(t *testing.T) {
	// A server that ignores the page parameter and always answers a full
	// first page, with or without a total.
	calls := 0
	same := func(_ context.Context, page, size int) ([]int, int, error) {
		calls++
		return seqOf(size), 30, nil
	}
	got, err := collect(t, All(context.Background(), 1, 10, same))
	require.NoError(t, err)
	assert.Len(t, got, 30)
	assert.Equal(t, 3, calls)
}

func TestAllYieldsErrorOnceAndStops(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	fetch := func(_ context.Context, page, size int) ([]int, int, error) {
		calls++
		if page == 2 {
			return nil, 0, boom
		}
		return seqOf(size), 100, nil
	}
	var errs int
	n := 0
	for _, err := range All(context.Background(), 1, 10, fetch) {
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
	fetch := func(_ context.Context, page, size int) ([]int, int, error) {
		calls++
		return seqOf(size), 1000, nil
	}
	var lastErr error
	n := 0
	for v, err := range All(ctx, 1, 10, fetch) {
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
	for v := range All(context.Background(), 1, 10, f.fetch) {
		if v == 3 {
			break
		}
	}
	assert.Equal(t, 1, f.calls)
}
