package safetyculture

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture/sctest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// feedServer answers GET /feed/groups with one row and the next_page
// next(n) makes of the request's number (1-based) and query; after 50
// requests next_page is null, so a walk that never ends is seen as one
// that read them all.
func feedServer(t *testing.T, extra string, next func(n int, q url.Values) string) (*wire, *atomic.Int32) {
	t.Helper()
	w := newWire(t)
	var n atomic.Int32
	w.mux.HandleFunc("GET /feed/groups", func(rw http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1))
		np := "null"
		if i < 50 {
			np = fmt.Sprintf("%q", next(i, r.URL.Query()))
		}
		fmt.Fprintf(rw, `{"metadata":{"next_page":%s%s},"data":[{"id":"g%d"}]}`, np, extra, i)
	})
	return w, &n
}

func TestWalkFeedEndsACyclingNextPage(t *testing.T) {
	t.Parallel()
	// Two pages alternate, with a parameter that changes on every answer.
	w, n := feedServer(t, "", func(i int, q url.Values) string {
		other := map[string]string{"": "B", "A": "B", "B": "A"}[q.Get("cursor")]
		return fmt.Sprintf("/feed/groups?cursor=%s&limit=1&_t=%d", other, i)
	})
	rows, err := collect(t, w.client(t).Feeds.AllGroups(ctx))
	require.ErrorIs(t, err, ErrRepeatedCursor)
	assert.ErrorContains(t, err, "GET /feed/groups", "the error names the feed")
	assert.Len(t, rows, 3)
	assert.Equal(t, int32(3), n.Load())
}

func TestWalkFeedReadsAPageOnceWhateverItsSpelling(t *testing.T) {
	t.Parallel()
	spellings := []string{"/feed/groups?cursor=A&limit=1", "/feed/groups?limit=1&cursor=%41", "/feed//groups/?cursor=A&limit=1&limit=1",
		"/feed/groups?cursor=A&limit=%31", "/feed/./groups?cursor=A&limit=1&x=1"}
	w, n := feedServer(t, "", func(i int, _ url.Values) string { return spellings[(i-1)%len(spellings)] })
	_, err := collect(t, w.client(t).Feeds.AllGroups(ctx))
	require.ErrorIs(t, err, ErrRepeatedCursor)
	assert.Equal(t, int32(2), n.Load(), "the page behind cursor A is read once")
}

func TestWalkFeedEndsPastRemainingRecords(t *testing.T) {
	t.Parallel()
	// Every page is new, and every page says two rows remain.
	w, n := feedServer(t, `,"remaining_records":2`, func(i int, _ url.Values) string { return fmt.Sprintf("/feed/groups?cursor=c%d", i) })
	rows, err := collect(t, w.client(t).Feeds.AllGroups(ctx))
	require.ErrorIs(t, err, ErrFeedTooLong)
	assert.ErrorContains(t, err, "GET /feed/groups")
	assert.Len(t, rows, 8, "the first page past twice the 3 rows the first page announced, and a page")
	assert.Equal(t, int32(8), n.Load())
}

func TestFeedWalkEndsAtTheMostPages(t *testing.T) {
	t.Parallel()
	walk := newFeedWalk(routeFeedGroups)
	var err error
	pages := 0
	for err == nil && pages <= MaxFeedPages {
		pages++
		err = walk.page(1, nil)
	}
	require.ErrorIs(t, err, ErrFeedTooLong)
	assert.Equal(t, MaxFeedPages, pages)
	assert.ErrorContains(t, err, "GET /feed/groups")
}

func TestCursorKeyNormalises(t *testing.T) {
	t.Parallel()
	a := cursorKey("/feed/groups", "cursor=A&limit=1&_t=1")
	assert.Equal(t, a, cursorKey("/feed/groups", "limit=1&cursor=%41&_t=2"))
	assert.NotEqual(t, a, cursorKey("/feed/groups", "cursor=B&limit=1"))
	// Without a known cursor parameter, every parameter counts.
	assert.NotEqual(t, cursorKey("/feed/groups", "pos=1"), cursorKey("/feed/groups", "pos=2"))
}

// A next_page that echoes the token never shows it in an error.
func TestFeedsNextPageErrorsHideTheToken(t *testing.T) {
	t.Parallel()
	for _, next := range []string{
		"https://evil.example.test/feed/groups?key=" + testToken,
		"/feed/groups?cursor=A&key=" + url.QueryEscape("Bearer "+testToken),
		"/feed/groups?cursor=A&access_token=" + testToken,
	} {
		w, _ := feedServer(t, "", func(int, url.Values) string { return next })
		_, err := collect(t, w.client(t).Feeds.AllGroups(ctx))
		require.Error(t, err, next)
		assert.True(t, errors.Is(err, ErrForeignNextPage) || errors.Is(err, ErrRepeatedCursor), "%v", err)
		assert.NotContains(t, err.Error(), testToken)
		assert.NotContains(t, err.Error(), url.QueryEscape(testToken))
	}
}

func TestFeedsRefuseANextPageLeavingTheBasePath(t *testing.T) {
	t.Parallel()
	for _, next := range []string{"/sc/%2e%2e/admin/feed/groups?c=1", "/sc/%2E%2E%2Fadmin?c=1", "/sc/feed/.%2e/.%2E/x", "%2e%2e/x",
		"/sc/feed/%2e/groups", "/sc/..%5cadmin", "/sc/feed/%252e%252e/x"} {
		w := newWire(t)
		var n atomic.Int32
		w.mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
			n.Add(1)
			fmt.Fprintf(rw, `{"metadata":{"next_page":%q},"data":[{"id":"g1"}]}`, next)
		})
		c := w.client(t, edapp.WithBaseURL(w.srv.URL+"/sc"))
		groups, err := collect(t, c.Feeds.AllGroups(ctx))
		if strings.Contains(next, "%25") {
			// Decoded once, as a server does, it is a segment named "%2e%2e".
			require.Error(t, err, next)
			continue
		}
		require.ErrorIs(t, err, ErrForeignNextPage, next)
		assert.Len(t, groups, 1)
		assert.Equal(t, int32(1), n.Load(), "nothing was sent to %s", next)
	}
}

// A feed that stops answering ends the walk once the attempts are spent.
func TestFeedsEndAStalledFeed(t *testing.T) {
	t.Parallel()
	fake := sctest.New(t)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	fake.Handle("GET /feed/groups", http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	c := clientOf(t, fake, edapp.WithAttemptTimeout(100*time.Millisecond))
	start := time.Now()
	_, err := collect(t, c.Feeds.AllGroups(testCtx(t)))
	require.Error(t, err)
	assert.ErrorContains(t, err, "GET /feed/groups")
	assert.ErrorContains(t, err, "no complete answer within 100ms")
	assert.Less(t, time.Since(start), 20*time.Second)
	assert.Equal(t, 1+fastRetry.MaxRetries, fake.RequestCount("GET /feed/groups"))
}

func TestWalkFeedThroughAListMethod(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	var n atomic.Int32
	w.mux.HandleFunc("GET /feed/users", func(rw http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		if i == 1 && r.URL.Query().Get("include_inactive") != "true" {
			t.Errorf("first page without the filter: %s", r.URL.RawQuery)
		}
		fmt.Fprintf(rw, `{"metadata":{"next_page":"/feed/users?cursor=%s&_t=%d"},"data":[{"id":"u%d"}]}`, map[bool]string{true: "A", false: "B"}[i%2 == 1], i, i)
	})
	c := w.client(t)
	rows, err := collect(t, WalkFeed(ctx, c.Feeds.ListUsers, &FeedOptions{IncludeInactive: true}))
	require.ErrorIs(t, err, ErrRepeatedCursor)
	assert.ErrorContains(t, err, "GET /feed/users")
	assert.Len(t, rows, 3)
	_, err = collect(t, WalkFeed(ctx, func(context.Context, *FeedOptions, ...edapp.RequestOption) (*FeedPage[User], error) {
		return &FeedPage[User]{NextPage: "/feed/users?c=1"}, nil
	}, nil))
	assert.ErrorIs(t, err, edapp.ErrInvalidInput, "a page the client did not make cannot be followed")
}
