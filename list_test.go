package edapp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/edapp-go/edapp/internal/ids"

	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/edapp-go/edapp/internal/pager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type thingOptions struct {
	ListOptions
	Kind string `url:"kind,omitempty"`
}

func TestAllCopiesOptionsAndPages(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var queries []string
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		size, _ := strconv.Atoi(r.URL.Query().Get("pageSize"))
		fmt.Fprint(w, `{"totalCount":5,"items":[`)
		for i := (page-1)*size + 1; i <= page*size && i <= 5; i++ {
			if i > (page-1)*size+1 {
				io.WriteString(w, ",")
			}
			fmt.Fprintf(w, "%d", i)
		}
		io.WriteString(w, "]}")
	})
	list := func(ctx context.Context, o *thingOptions, ro ...RequestOption) (*Page[int], error) {
		return listPage[int](ctx, c, ids.Fill("/v2/things"), o, ro...)
	}
	opts := &thingOptions{ListOptions: ListOptions{PageSize: 2}, Kind: "k"}
	seq := all(context.Background(), opts, list, nil)

	var got []int
	for v, err := range seq {
		require.NoError(t, err)
		got = append(got, v)
	}
	assert.Equal(t, []int{1, 2, 3, 4, 5}, got)
	slices.Sort(queries) // counted pages are fetched in parallel
	wantQueries := []string{"kind=k&page=1&pageSize=2", "kind=k&page=2&pageSize=2", "kind=k&page=3&pageSize=2"}
	assert.Equal(t, wantQueries, queries, "three pages, none past the last")
	assert.Equal(t, thingOptions{ListOptions: ListOptions{PageSize: 2}, Kind: "k"}, *opts, "caller's options untouched")

	// Ranging again starts over; nil options ask for the largest pages.
	queries = nil
	n := 0
	for _, err := range seq {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 5, n)
	slices.Sort(queries)
	assert.Equal(t, wantQueries, queries, "the second range asks the same pages")
	queries = nil
	for range all(context.Background(), (*thingOptions)(nil), list, nil) {
	}
	assert.Equal(t, []string{"page=1&pageSize=1000"}, queries)
}

// pageServer serves /v2/users from pageOf(page, pageSize), as the body of
// the answer, and records the pages asked for.
type pageServer struct {
	mu     sync.Mutex
	asked  []int
	pageOf func(page, size int) string
}

func (s *pageServer) handler(w http.ResponseWriter, r *http.Request) {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	size, _ := strconv.Atoi(r.URL.Query().Get("pageSize"))
	page = max(page, 1) // as the service does
	s.mu.Lock()
	s.asked = append(s.asked, page)
	s.mu.Unlock()
	io.WriteString(w, s.pageOf(page, size))
}

func (s *pageServer) takeAsked() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.asked
	s.asked = nil
	return out
}

// usersPage is a page of users u<from> to u<to>, with a count when total
// is not nil.
func usersPage(from, to int, total *int) string {
	var items []string
	for i := from; i <= to; i++ {
		items = append(items, fmt.Sprintf(`{"id":"u%d"}`, i))
	}
	if total == nil {
		return "[" + strings.Join(items, ",") + "]"
	}
	return fmt.Sprintf(`{"totalCount":%d,"items":[%s]}`, *total, strings.Join(items, ","))
}

// pagesOfUsers serves n users, size a page, with the count that count
// returns for a page (nil: none).
func pagesOfUsers(n int, count func(page int) *int) func(page, size int) string {
	return func(page, size int) string {
		from := (page-1)*size + 1
		return usersPage(from, min(page*size, n), count(page))
	}
}

func intp(n int) *int { return &n }

// handPaging follows Page.NextPage from page 1, at most limit pages, and
// returns the ids in order.
func handPaging(t *testing.T, c *Client, size, limit int) []string {
	t.Helper()
	var ids []string
	opts := &UserListOptions{ListOptions: ListOptions{PageSize: size}}
	for n := 0; n < limit; n++ {
		p, err := c.Users.List(context.Background(), opts)
		require.NoError(t, err)
		for _, u := range p.Items {
			ids = append(ids, u.ID)
		}
		if p.NextPage == 0 {
			break
		}
		opts.Page = p.NextPage
	}
	return ids
}

// walkIDs ranges over Users.All and returns the ids, and the error that
// ended it.
func walkIDs(c *Client, size int, ropts ...RequestOption) ([]string, error) {
	var ids []string
	for u, err := range c.Users.All(context.Background(), &UserListOptions{ListOptions: ListOptions{PageSize: size}}, ropts...) {
		if err != nil {
			return ids, err
		}
		ids = append(ids, u.ID)
	}
	return ids, nil
}

func TestPageNextPageAgreesWithAll(t *testing.T) {
	t.Parallel()
	for name, pageOf := range map[string]func(page, size int) string{
		"short last page":                 pagesOfUsers(25, func(int) *int { return intp(25) }),
		"full last page, then empty":      pagesOfUsers(30, func(int) *int { return intp(30) }),
		"no count, short last page":       pagesOfUsers(25, func(int) *int { return nil }),
		"a stale low count":               pagesOfUsers(25, func(int) *int { return intp(3) }),
		"a count near MaxInt64":           pagesOfUsers(25, func(int) *int { return intp(math.MaxInt64) }),
		"a count per page":                pagesOfUsers(25, func(page int) *int { return intp(min(10, 25-(page-1)*10)) }),
		"a negative count":                pagesOfUsers(25, func(int) *int { return intp(-1) }),
		"a service that ignores pageSize": func(page, _ int) string { return pagesOfUsers(60, func(int) *int { return intp(60) })(page, 25) },
	} {
		t.Run(name, func(t *testing.T) {
			s := &pageServer{pageOf: pageOf}
			c := coreServer(t, s.handler)
			hand := handPaging(t, c, 10, 100)
			handAsked := s.takeAsked()
			walked, err := walkIDs(c, 10, WithPageConcurrency(1))
			require.NoError(t, err)
			assert.Equal(t, hand, walked, "the same items")
			assert.Equal(t, handAsked, s.takeAsked(), "the same pages")
		})
	}
}

func TestPageNextPageOnARepeatedPageNeedsTheWalksHistory(t *testing.T) {
	t.Parallel()
	for name, total := range map[string]*int{"counted": intp(1000), "uncounted": nil} {
		t.Run(name, func(t *testing.T) {
			s := &pageServer{pageOf: func(int, int) string { return usersPage(1, 10, total) }} // ignores page
			c := coreServer(t, s.handler)
			hand := handPaging(t, c, 10, 3)
			assert.Equal(t, []int{1, 2, 3}, s.takeAsked(), "a page alone cannot tell it is a repeat")
			assert.Len(t, hand, 30)

			walked, err := walkIDs(c, 10, WithPageConcurrency(1))
			if total != nil {
				assert.ErrorIs(t, err, ErrRepeatedPage)
			} else {
				assert.NoError(t, err, "an unpaged array ends the walk")
			}
			assert.Equal(t, hand[:10], walked)
			assert.Equal(t, []int{1, 2, 3}, s.takeAsked(), "the walk skips one repeat (a list that shifted by a page), and stops at the second")
		})
	}
}

func TestAllReadsOnPastAWrongCount(t *testing.T) {
	t.Parallel()
	const users = 1050
	for name, count := range map[string]func(page int) *int{
		"stale low":    func(int) *int { return intp(100) },
		"per page":     func(page int) *int { return intp(min(100, users-(page-1)*100)) },
		"MaxInt64":     func(int) *int { return intp(math.MaxInt64) },
		"MaxInt64 - 1": func(int) *int { return intp(math.MaxInt64 - 1) },
		"half":         func(int) *int { return intp(500) },
	} {
		t.Run(name, func(t *testing.T) {
			var logs bytes.Buffer
			s := &pageServer{pageOf: pagesOfUsers(users, count)}
			c := coreServer(t, s.handler, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			var resp Response
			got, err := walkIDs(c, 100, WithResponseInto(&resp))
			require.NoError(t, err)
			want := make([]string, users)
			for i := range want {
				want[i] = "u" + strconv.Itoa(i+1)
			}
			assert.Equal(t, want, got, "every item, in order")
			assert.Equal(t, 1, strings.Count(logs.String(), "contradict"), "one warning per walk: %s", logs.String())
			assert.True(t, resp.TotalContradicted(), "the walk's Response says so")

			p, err := c.Users.List(context.Background(), &UserListOptions{ListOptions: ListOptions{Page: 11, PageSize: 100}})
			require.NoError(t, err)
			assert.True(t, p.Response.TotalContradicted(), "and so does the last page's, paged by hand")
		})
	}
}

// TestAllLosesNoUserInsertedAtTheFront serves users newest first and
// answers page 3 before page 2, with users inserted at the front in
// between: the items that page 2's read pushed into page 3's range are on
// neither page unless the walk notices the count fell and reads again.
func TestAllLosesNoUserInsertedAtTheFront(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	ids := make([]string, 0, 300)
	for i := 300; i >= 1; i-- {
		ids = append(ids, "u"+strconv.Itoa(i))
	}
	want := slices.Clone(ids)
	page3 := make(chan struct{})
	var once, inserted sync.Once
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		size, _ := strconv.Atoi(r.URL.Query().Get("pageSize"))
		if page == 2 {
			inserted.Do(func() {
				<-page3
				mu.Lock()
				ids = append([]string{"new1", "new2", "new3", "new4", "new5"}, ids...)
				mu.Unlock()
			})
		}
		mu.Lock()
		from := min((page-1)*size, len(ids))
		items := ids[from:min(from+size, len(ids))]
		fmt.Fprintf(w, `{"totalCount":%d,"items":[{"id":"%s"}]}`, len(ids), strings.Join(items, `"},{"id":"`))
		mu.Unlock()
		if page == 3 {
			once.Do(func() { close(page3) })
		}
	})
	got, err := walkIDs(c, 50, WithPageConcurrency(4))
	require.NoError(t, err)
	seen := map[string]int{}
	for _, id := range got {
		seen[id]++
	}
	for _, id := range want {
		assert.Equal(t, 1, seen[id], "user %s arrived %d times", id, seen[id])
	}
}

func TestLessonsAndWebhooksReadEveryPage(t *testing.T) {
	t.Parallel()
	page := func(w http.ResponseWriter, r *http.Request, item string) {
		p := r.URL.Query().Get("page")
		var items []string
		for i := range 25 {
			items = append(items, fmt.Sprintf(item, p+"-"+fmt.Sprint(i)))
		}
		if p == "3" {
			items = items[:10]
		}
		fmt.Fprintf(w, `{"totalCount":60,"items":[%s]}`, strings.Join(items, ","))
	}
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/lessons") {
			page(w, r, `{"id":"l%s"}`)
			return
		}
		page(w, r, `{"id":"w%s","eventName":"CourseCompletedEvent"}`)
	})
	lessons, err := c.Catalog.Lessons(context.Background(), "c1")
	require.NoError(t, err)
	assert.Len(t, lessons, 60)
	hooks, err := c.Webhooks.List(context.Background())
	require.NoError(t, err)
	assert.Len(t, hooks, 60)
}

func TestIteratorsStopOnAServerThatLies(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"a huge count beside the same page": `{"totalCount":1000000000,"items":[{"id":"a"},{"id":"b"}]}`,
		"a count of 0 beside the same page": `{"totalCount":0,"items":[{"id":"a"},{"id":"b"}]}`,
		"a negative count":                  `{"totalCount":-3,"items":[{"id":"a"},{"id":"b"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			calls := 0
			var mu sync.Mutex
			c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				calls++
				mu.Unlock()
				io.WriteString(w, body)
			})
			n, err := firstErr(c.Users.All(context.Background(), &UserListOptions{ListOptions: ListOptions{PageSize: 2}}))
			require.Error(t, err)
			assert.LessOrEqual(t, n, 2)
			mu.Lock()
			assert.LessOrEqual(t, calls, 2+DefaultPageConcurrency, "the first two pages, the repeat that ends it, and those in flight")
			mu.Unlock()
		})
	}
	t.Run("an unpaged array that repeats just ends", func(t *testing.T) {
		c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `[{"id":"a"},{"id":"b"}]`)
		})
		n, err := firstErr(c.Users.All(context.Background(), &UserListOptions{ListOptions: ListOptions{PageSize: 2}}))
		assert.NoError(t, err)
		assert.Equal(t, 2, n)
	})
	t.Run("the repeated page error is documented", func(t *testing.T) {
		c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"totalCount":9,"items":[{"id":"a"},{"id":"b"}]}`)
		})
		_, err := firstErr(c.Users.All(context.Background(), &UserListOptions{ListOptions: ListOptions{PageSize: 2}}))
		assert.ErrorIs(t, err, ErrRepeatedPage)
		assert.ErrorIs(t, err, pager.ErrRepeatedPage)
	})
}

func TestAnItemDroppedWholeDoesNotEndTheWalk(t *testing.T) {
	t.Parallel()
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("page") {
		case "1":
			io.WriteString(w, `[{"id":"a"}, 5]`) // 5 is no user: dropped whole
		case "2":
			io.WriteString(w, `[{"id":"b"}, {"id":"c"}]`)
		default:
			io.WriteString(w, `[]`)
		}
	})
	var ids []string
	var r Response
	for u, err := range c.Users.All(context.Background(), &UserListOptions{ListOptions: ListOptions{PageSize: 2}}, WithResponseInto(&r)) {
		require.NoError(t, err)
		ids = append(ids, u.ID)
		if u.ID == "a" {
			assert.Equal(t, []string{"[1]"}, r.Dropped, "the dropped item is reported")
		}
	}
	assert.Equal(t, []string{"a", "b", "c"}, ids, "page 1 counted two items, so page 2 was read")
}

func TestListDecodeDroppedPaths(t *testing.T) {
	t.Parallel()
	var l pager.List[User]
	dropped, err := lenient.Decode([]byte(`{"totalCount":"two","items":[{"id":"a","customFields":{"x":true}},{"id":"b","userName":"bee","roles":[true,"app-user"]}]}`), &l)
	require.NoError(t, err)
	assert.Equal(t, []string{"items[0].customFields.x", "items[1].roles[0]", "totalCount"}, dropped)
	assert.Equal(t, -1, totalOf(&l))
	assert.Equal(t, []User{
		{ID: "a", CustomFields: map[string]string{}},
		{ID: "b", Username: "bee", Roles: []Role{RoleAppUser}},
	}, l.Items)
}
