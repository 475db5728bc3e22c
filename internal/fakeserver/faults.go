package fakeserver

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// fault is a pending injected failure; an empty template covers all.
type fault struct {
	Method, Template string
	N, Status        int
	RetryAfter       time.Duration
}

func (f fault) covers(method, template string) bool {
	if f.Template == "" {
		return true
	}
	return template == f.Template && (f.Method == "" || f.Method == method)
}

// FailNext makes the next n requests fail with status.
func (c *Core) FailNext(n int, status int, retryAfter time.Duration) {
	c.setFault(fault{N: n, Status: status, RetryAfter: retryAfter})
}

// FailNextOn is FailNext for one route ("GET /path/{id}", or a path).
func (c *Core) FailNextOn(route string, n int, status int, retryAfter time.Duration) {
	method, path, hasMethod := strings.Cut(strings.TrimSpace(route), " ")
	if !hasMethod {
		method, path = "", method
	}
	c.setFault(fault{Method: strings.ToUpper(method), Template: c.template(path),
		N: n, Status: status, RetryAfter: retryAfter})
}

func (c *Core) setFault(f fault) {
	if f.Status < 100 || f.Status > 599 {
		f.Status = http.StatusInternalServerError
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults = slices.DeleteFunc(c.faults, func(o fault) bool { return o.Method == f.Method && o.Template == f.Template })
	switch {
	case f.N <= 0:
	case f.Template == "":
		c.faults = append(c.faults, f) // scoped ones first
	default:
		c.faults = append([]fault{f}, c.faults...)
	}
}

// takeFault spends one pending failure that covers a request to the route
// template ("" for a request no route serves).
func (c *Core) takeFault(method, template string) (fault, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.faults {
		f := &c.faults[i]
		if !f.covers(method, template) {
			continue
		}
		out := *f
		if f.N--; f.N <= 0 {
			c.faults = slices.Delete(c.faults, i, i+1)
		}
		return out, true
	}
	return fault{}, false
}

// RetryAfter writes d as whole seconds, rounded up, at least 1.
func RetryAfter(d time.Duration) string {
	secs := max(int64((d+time.Second-1)/time.Second), 1)
	return strconv.FormatInt(secs, 10)
}

// Handle overrides the answer for the requests pattern (an http.ServeMux
// pattern) matches; a nil handler removes the override.
func (c *Core) Handle(pattern string, handler http.Handler, invalid error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	next := maps.Clone(c.handlers)
	if handler == nil {
		delete(next, pattern)
	} else {
		next[pattern] = handler
	}
	mux, err := overrideMux(next, invalid)
	if err != nil {
		return err
	}
	c.handlers = next
	c.overrides.Store(mux)
	return nil
}

// overrideMux registers the overrides on a ServeMux, which panics on a
// bad pattern; that becomes an error.
func overrideMux(handlers map[string]http.Handler, invalid error) (mux *http.ServeMux, err error) {
	defer func() {
		if v := recover(); v != nil {
			mux, err = nil, fmt.Errorf("%w: Handle: %v", invalid, v)
		}
	}()
	mux = http.NewServeMux()
	for p, h := range handlers {
		mux.Handle(p, h)
	}
	return mux, nil
}
