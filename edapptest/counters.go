package edapptest

import (
	"strings"
	"sync/atomic"
)

// counters counts requests by route and the requests in flight.
type counters struct {
	byRoute     []atomic.Int64 // indexed like routes
	inFlight    atomic.Int64
	maxInFlight atomic.Int64
}

func newCounters() *counters { return &counters{byRoute: make([]atomic.Int64, len(routes))} }

func (c *counters) begin() {
	n := c.inFlight.Add(1)
	for {
		m := c.maxInFlight.Load()
		if n <= m || c.maxInFlight.CompareAndSwap(m, n) {
			return
		}
	}
}

func (c *counters) end() { c.inFlight.Add(-1) }

// RequestCount reports how many API requests with a valid token the fake
// received for a route since it started or since ResetCounters, counted on
// arrival whatever the answer (429, injected failures and 413 too).
func (s *Server) RequestCount(route string) int {
	method, path, hasMethod := strings.Cut(strings.TrimSpace(route), " ")
	if !hasMethod {
		method, path = "", method
	}
	path = routeTemplate(path)
	n := 0
	for i, rt := range routes {
		if rt.template == path && (method == "" || strings.EqualFold(rt.method, method)) {
			n += int(s.counters.byRoute[i].Load())
		}
	}
	return n
}

// RequestCounts returns the non-zero request counts by route, keyed
// "GET /v2/usergroups/{id}/users" (see RequestCount).
func (s *Server) RequestCounts() map[string]int {
	out := map[string]int{}
	for i, rt := range routes {
		if n := s.counters.byRoute[i].Load(); n > 0 {
			out[rt.method+" "+rt.template] = int(n)
		}
	}
	return out
}

// MaxInFlight reports the largest number of requests the fake was
// handling at once (every request, the latency wait included) since it
// started or since ResetCounters.
func (s *Server) MaxInFlight() int { return int(s.counters.maxInFlight.Load()) }

// ResetCounters sets the route counts to zero and MaxInFlight to the
// requests in flight now.
func (s *Server) ResetCounters() {
	for i := range s.counters.byRoute {
		s.counters.byRoute[i].Store(0)
	}
	s.counters.maxInFlight.Store(s.counters.inFlight.Load())
}

// routeTemplate writes a path as the counters name routes: lower case,
// a leading slash, "{id}" for every parameter and the usergroups spelling.
func routeTemplate(path string) string {
	segs := strings.Split(strings.Trim(strings.ToLower(strings.TrimSpace(path)), "/"), "/")
	for i, seg := range segs {
		switch {
		case seg == "" || strings.HasPrefix(seg, "{"):
			segs[i] = "{id}"
		case seg == "usersgroups" || seg == groupsPathSegment:
			segs[i] = "usergroups"
		}
	}
	return "/" + strings.Join(segs, "/")
}
