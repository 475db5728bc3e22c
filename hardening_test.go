package edapp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp/internal/pager"
)

// endlessBody never ends, and counts what was read of it.
type endlessBody struct {
	mu   sync.Mutex
	read int
}

func (b *endlessBody) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	b.mu.Lock()
	b.read += len(p)
	b.mu.Unlock()
	return len(p), nil
}
func (b *endlessBody) Close() error { return nil }

func TestEndlessErrorBodyIsReadWithinItsBound(t *testing.T) {
	for status, sentinel := range map[int]error{
		http.StatusNotFound: ErrNotFound, http.StatusBadRequest: ErrBadRequest,
		http.StatusUnauthorized: ErrUnauthorized, http.StatusInternalServerError: ErrServer,
	} {
		body := &endlessBody{}
		hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: status, Header: http.Header{}, Body: body, ContentLength: -1, Request: r}, nil
		})}
		c, err := NewClient("t", WithHTTPClient(hc), WithRateLimit(rate.Inf, 0), WithRetry(RetryPolicy{}))
		require.NoError(t, err)
		_, err = c.Users.Get(context.Background(), "a")
		var ae *APIError
		require.ErrorAs(t, err, &ae, "status %d", status)
		assert.ErrorIs(t, err, sentinel)
		assert.LessOrEqual(t, body.read, 64<<10+1, "bytes read of a %d body", status)
	}
}

func TestSuccessBodyBound(t *testing.T) {
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"`+strings.Repeat("a", 2000)+`"}`)
	}, WithMaxResponseBytes(1000))
	_, err := c.Users.Get(context.Background(), "a")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than 1000 bytes")

	_, err = NewClient("t", WithMaxResponseBytes(0))
	assert.ErrorIs(t, err, ErrInvalidInput)
}

func TestZeroMaxWaitMeansTheDefaultCap(t *testing.T) {
	p, err := RetryPolicy{MaxRetries: 1}.normalize()
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, p.MaxWait)
	p, err = RetryPolicy{MaxRetries: 1, MinWait: time.Minute}.normalize()
	require.NoError(t, err)
	assert.Equal(t, time.Minute, p.MaxWait, "never below MinWait")
	assert.Equal(t, 30*time.Second, DefaultRetryPolicy().MaxWait)

	// A day-long Retry-After pauses the client for one budget window; a
	// call whose deadline ends sooner fails at once with the 429.
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "86400")
		w.WriteHeader(http.StatusTooManyRequests)
	}, WithRetry(RetryPolicy{MaxRetries: 1}))
	var r Response
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = c.Users.Get(ctx, "a", WithResponseInto(&r))
	assert.ErrorIs(t, err, ErrRateLimited, "it was held by the service's rate limit")
	assert.NoError(t, ctx.Err(), "it did not wait for its deadline")
	assert.Equal(t, 1, r.Attempts)
	d := c.t.PausedFor()
	assert.True(t, d > DefaultBudgetWindow-time.Minute && d <= DefaultBudgetWindow, "paused for one window: %v", d)
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
