package edapp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/edapp-go/edapp/internal/ids"

	"strings"

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

func TestLessonsAndWebhooksReadEveryPage(t *testing.T) {
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
			assert.LessOrEqual(t, calls, 1+DefaultPageConcurrency)
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
	var l pager.List[User]
	dropped, err := lenient.Decode([]byte(`{"totalCount":"two","items":[{"id":"a","customFields":{"x":1}},{"id":"b","userName":"bee","roles":[1,"app-user"]}]}`), &l)
	require.NoError(t, err)
	assert.Equal(t, []string{"items[0].customFields.x", "items[1].roles[0]", "totalCount"}, dropped)
	assert.Equal(t, -1, l.Total())
	assert.Equal(t, []User{
		{ID: "a", CustomFields: map[string]string{}},
		{ID: "b", Username: "bee", Roles: []Role{RoleAppUser}},
	}, l.Items)
}
