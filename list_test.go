package edapp

import (
	"context"
	"fmt"
	"github.com/edapp-go/edapp/internal/ids"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"

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
