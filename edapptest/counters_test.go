package edapptest

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequestCount(t *testing.T) {
	h := newHarness(t, WithBudget(4, time.Hour))
	g := h.mustGroup("G", "", "")
	h.get("/v2/usergroups/"+g+"/users", nil)
	h.get("/V2/UsersGroups/"+g+"/users?page=2", nil) // the other spelling, any case
	h.ok("POST", "/v2/usergroups", map[string]string{"name": "H"}, nil)
	h.FailNextOn("GET /v2/users", 1, http.StatusServiceUnavailable, 0)
	assert.Equal(t, http.StatusServiceUnavailable, h.do("GET", "/v2/users", nil).status)
	assert.Equal(t, http.StatusTooManyRequests, h.do("GET", "/v2/users", nil).status, "over the budget")
	h.raw("GET", "/v2/users", "wrong-token", nil)
	h.do("GET", "/v2/nothing-here", nil)
	h.get("/v1/users", nil)

	for route, want := range map[string]int{
		"GET /v2/usergroups/{id}/users":    2,
		"GET /v2/usersgroups/{}/users":     2,
		"/v2/usergroups/{groupId}/users":   2,
		"POST /v2/usergroups":              1,
		"/v2/usergroups":                   1,
		"GET /v2/users":                    2, // the injected 503 and the 429 count; the 401 does not
		"GET /v1/users":                    1,
		"GET /v2/nothing-here":             0,
		"DELETE /v2/usergroups/{id}/users": 0,
	} {
		assert.Equal(t, want, h.RequestCount(route), route)
	}
	assert.Equal(t, map[string]int{
		"GET /v2/usergroups/{id}/users": 2, "POST /v2/usergroups": 1, "GET /v2/users": 2, "GET /v1/users": 1,
	}, h.RequestCounts())

	h.ResetCounters()
	assert.Empty(t, h.RequestCounts())
	assert.Zero(t, h.RequestCount("GET /v2/users"))
	assert.Zero(t, h.MaxInFlight())
}

// TestMaxInFlight holds requests in an override until all of them have
// arrived, so the high-water mark is known exactly.
func TestMaxInFlight(t *testing.T) {
	h := newHarness(t)
	const n = 5
	var arrived sync.WaitGroup
	arrived.Add(n)
	require.NoError(t, h.Handle("GET /v2/users", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		arrived.Done()
		arrived.Wait()
		w.WriteHeader(http.StatusNoContent)
	})))
	var done sync.WaitGroup
	for range n {
		done.Add(1)
		go func() {
			defer done.Done()
			req, _ := http.NewRequest("GET", h.URL+"/v2/users", nil)
			req.Header.Set("Authorization", "Bearer "+h.Token)
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
			}
		}()
	}
	done.Wait()
	assert.Equal(t, n, h.MaxInFlight())
	assert.Equal(t, n, h.RequestCount("GET /v2/users"), "an override counts as its route")
	h.ResetCounters()
	assert.Zero(t, h.MaxInFlight())
	h.get("/v2/usergroups", nil)
	assert.Equal(t, 1, h.MaxInFlight())
}

// TestRequestCountBeforeTheWait: a request counts on arrival, so a client
// that gives up during the latency wait is counted too.
func TestRequestCountBeforeTheWait(t *testing.T) {
	h := newHarness(t, WithLatency(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, "GET", h.URL+"/v2/users", nil)
		req.Header.Set("Authorization", "Bearer "+h.Token)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	for h.RequestCount("GET /v2/users") == 0 {
		time.Sleep(time.Millisecond)
	}
	assert.Equal(t, 1, h.MaxInFlight())
	cancel()
	<-done
	assert.Equal(t, 1, h.RequestCount("GET /v2/users"))
}
