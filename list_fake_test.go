package edapp_test

// Parallel exports end to end: the All iterators against the fake, with
// pages answered in any order.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
)

// shuffledFake serves the fake behind a random delay per request, so pages
// fetched at once come back in any order, and records the pages of
// /v2/analytics/attempts asked for and how many were in flight at once.
type shuffledFake struct {
	srv      *edapptest.Server
	ts       *httptest.Server
	mu       sync.Mutex
	pages    []int
	inFlight int
	maxIn    int
}

func newShuffledFake(t *testing.T, delay time.Duration) *shuffledFake {
	f := &shuffledFake{srv: edapptest.New(t)}
	t.Cleanup(f.srv.Close)
	h := f.srv.Handler()
	f.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempts := strings.EqualFold(r.URL.Path, "/v2/analytics/attempts")
		if attempts {
			page, _ := strconv.Atoi(r.URL.Query().Get("page"))
			f.mu.Lock()
			f.pages = append(f.pages, page)
			f.inFlight++
			f.maxIn = max(f.maxIn, f.inFlight)
			f.mu.Unlock()
			defer func() {
				f.mu.Lock()
				f.inFlight--
				f.mu.Unlock()
			}()
		}
		d := delay/2 + rand.N(delay/2+1)
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(f.ts.Close)
	return f
}

func (f *shuffledFake) client(t *testing.T) *edapp.Client {
	c, err := edapp.NewClient(f.srv.Token, edapp.WithBaseURL(f.ts.URL)) // the default limiter
	require.NoError(t, err)
	return c
}

func (f *shuffledFake) asked() (pages []int, maxInFlight int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.pages), f.maxIn
}

func TestParallelExportIsWholeAndInOrder(t *testing.T) {
	t.Parallel()
	const attempts, pageSize = 3000, 100
	f := newShuffledFake(t, 20*time.Millisecond)
	require.NoError(t, fakedata.SeedAccount(f.srv, fakedata.AccountSpec{Users: 30, Attempts: attempts}))
	c := f.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	export := func(opts ...edapp.RequestOption) []string {
		var ids []string
		for a, err := range c.Analytics.AllAttempts(ctx, &edapp.AttemptListOptions{ListOptions: edapp.ListOptions{PageSize: pageSize}}, opts...) {
			require.NoError(t, err)
			ids = append(ids, a.ID)
		}
		return ids
	}
	want := wantAttemptIDs(attempts)
	for _, n := range []int{0, 2, 4, 7} { // 0: the default
		t.Run("concurrency="+strconv.Itoa(n), func(t *testing.T) {
			f.mu.Lock()
			f.pages, f.maxIn = nil, 0
			f.mu.Unlock()
			var opts []edapp.RequestOption
			if n > 0 {
				opts = append(opts, edapp.WithPageConcurrency(n))
			}
			got := export(opts...)
			require.Len(t, got, attempts, "no gaps")
			assert.Equal(t, want, got, "in order, no duplicates, no gaps")
			pages, maxIn := f.asked()
			limit := n
			if n == 0 {
				limit = edapp.DefaultPageConcurrency
			}
			slices.Sort(pages)
			wantPages := make([]int, attempts/pageSize+1) // the last, empty, ends the walk
			for i := range wantPages {
				wantPages[i] = i + 1
			}
			assert.Equal(t, wantPages, pages, "each page asked for once")
			assert.Greater(t, maxIn, 1, "pages were fetched at once")
			assert.LessOrEqual(t, maxIn, limit, "at most the page concurrency in flight")
		})
	}
	t.Run("sequential", func(t *testing.T) {
		f.mu.Lock()
		f.pages, f.maxIn = nil, 0
		f.mu.Unlock()
		assert.Equal(t, want, export(edapp.WithPageConcurrency(1)))
		_, maxIn := f.asked()
		assert.Equal(t, 1, maxIn, "one page at a time")
	})
}

// pagerGoroutines returns the stacks of the goroutines in the SDK's paging
// or request code.
func pagerGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if (strings.Contains(g, "github.com/edapp-go/edapp/internal/") || strings.Contains(g, "github.com/edapp-go/edapp.")) &&
			!strings.Contains(g, "created by testing.(*T).Run") { // a test's own goroutine, running or waiting for its turn
			out = append(out, g)
		}
	}
	return out
}

func TestParallelExportEarlyBreak(t *testing.T) {
	const attempts, pageSize = 3000, 100
	f := newShuffledFake(t, 100*time.Millisecond)
	require.NoError(t, fakedata.SeedAccount(f.srv, fakedata.AccountSpec{Users: 30, Attempts: attempts}))
	c := f.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	for _, stopAfter := range []int{1, 50, 250, 1001} {
		t.Run("after="+strconv.Itoa(stopAfter), func(t *testing.T) {
			f.mu.Lock()
			f.pages = nil
			f.mu.Unlock()
			n := 0
			for a, err := range c.Analytics.AllAttempts(ctx, &edapp.AttemptListOptions{ListOptions: edapp.ListOptions{PageSize: pageSize}}) {
				require.NoError(t, err)
				n++
				require.Equal(t, "att_"+strconv.Itoa(n), a.ID)
				if n == stopAfter {
					break
				}
			}
			// The iterator has waited for its fetches; their goroutines
			// may still be on their way out, as goleak allows for too.
			left := pagerGoroutines()
			for end := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(end); left = pagerGoroutines() {
				time.Sleep(10 * time.Millisecond)
			}
			assert.Empty(t, left, "no goroutine outlives the loop")

			// Pages asked for: the one being read when the loop stopped,
			// those before it, and at most the pages in flight with it.
			current := (stopAfter + pageSize - 1) / pageSize
			most := current + edapp.DefaultPageConcurrency - 1
			if current == 1 {
				most = 1 // the first page is fetched alone
			}
			time.Sleep(50 * time.Millisecond) // let requests cut off on their way land, if they do
			pages, _ := f.asked()
			require.NotEmpty(t, pages)
			assert.LessOrEqual(t, slices.Max(pages), most, "pages asked for: %v", pages)
			assert.Len(t, pages, len(slices.Compact(slices.Sorted(slices.Values(pages)))), "each page asked for once")
		})
	}
}

// pagesAsked lists the pages of /v2/users in the fake's request log, and
// clears it.
func pagesAsked(srv *edapptest.Server) []string {
	var pages []string
	for _, r := range srv.Requests() {
		if r.Path == "/v2/users" {
			q, _ := url.ParseQuery(r.RawQuery)
			pages = append(pages, q.Get("page"))
		}
	}
	srv.ResetRequests()
	return pages
}

func TestPageNextPageAgreesWithAllOnTheFake(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, users := range []int{7, 6, 0} { // a short last page; a full one, then an empty one; none
		t.Run(fmt.Sprint(users, " users, 3 a page"), func(t *testing.T) {
			srv := edapptest.New(t)
			t.Cleanup(srv.Close)
			for i := range users {
				_, err := srv.AddUser(edapptest.UserSpec{Username: fmt.Sprint("user", i), Email: fmt.Sprintf("user%d@example.com", i)})
				require.NoError(t, err)
			}
			c := srv.Client()
			srv.ResetRequests()

			var hand []string
			opts := &edapp.UserListOptions{ListOptions: edapp.ListOptions{Page: 1, PageSize: 3}}
			for {
				p, err := c.Users.List(ctx, opts)
				require.NoError(t, err)
				for _, u := range p.Items {
					hand = append(hand, u.ID)
				}
				if p.NextPage == 0 {
					break
				}
				opts.Page = p.NextPage
			}
			handPages := pagesAsked(srv)

			var walked []string
			for u, err := range c.Users.All(ctx, &edapp.UserListOptions{ListOptions: edapp.ListOptions{PageSize: 3}}, edapp.WithPageConcurrency(1)) {
				require.NoError(t, err)
				walked = append(walked, u.ID)
			}
			assert.Len(t, hand, users)
			assert.Equal(t, hand, walked, "the same items")
			assert.Equal(t, handPages, pagesAsked(srv), "the same pages")

			var parallel []string
			for u, err := range c.Users.All(ctx, &edapp.UserListOptions{ListOptions: edapp.ListOptions{PageSize: 3}}) {
				require.NoError(t, err)
				parallel = append(parallel, u.ID)
			}
			assert.Equal(t, hand, parallel, "the same items, pages in parallel")
			assert.Subset(t, pagesAsked(srv), handPages, "pages past the last may be asked for in parallel, none is missed")
		})
	}
}

// Paging by hand: ask for a page, and follow NextPage until it is 0. The
// AllX iterators follow the same rule; they also drop an item repeated
// across pages and notice a page answered twice, which needs the walk's
// history.
func ExamplePage() {
	srv, err := edapptest.NewServer()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	for _, name := range []string{"ana", "ben", "chloe", "dev", "emi"} {
		if _, err := srv.AddUser(edapptest.UserSpec{Username: name, Email: name + "@example.com"}); err != nil {
			panic(err)
		}
	}
	client := srv.Client()

	opts := &edapp.UserListOptions{ListOptions: edapp.ListOptions{Page: 1, PageSize: 2}}
	for {
		page, err := client.Users.List(context.Background(), opts)
		if err != nil {
			panic(err)
		}
		var names []string
		for _, u := range page.Items {
			names = append(names, u.Username)
		}
		total, _ := page.Total()
		fmt.Printf("page %d of %d users: %s\n", opts.Page, total, strings.Join(names, ", "))
		if page.NextPage == 0 {
			break
		}
		opts.Page = page.NextPage
	}
	// Output:
	// page 1 of 5 users: ana, ben
	// page 2 of 5 users: chloe, dev
	// page 3 of 5 users: emi
}
