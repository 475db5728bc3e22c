package edapptest

import (
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
)

// New starts a fake for a test, as [NewServer] does, and closes it when the
// test ends. A bad option value fails the test at once, with an error
// wrapping [edapp.ErrInvalidInput]. The test also fails when a handler of
// the fake panicked: the client saw a 500, which a retry could have hidden.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := newServer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	s.listen()
	t.Cleanup(func() {
		s.Close() // waits for the requests in flight
		if msgs := s.recoveredPanics(); len(msgs) > 0 {
			t.Errorf("edapptest: %d request(s) panicked in the fake and were answered 500: %s",
				len(msgs), strings.Join(msgs, "; "))
		}
	})
	return s
}

func (s *Server) recoveredPanics() []string {
	s.meta.Lock()
	defer s.meta.Unlock()
	return append([]string(nil), s.panicMsgs...)
}

// Handle overrides the fake's answer for the requests pattern matches, as
// slacktest's Customize.Handle does. pattern is an http.ServeMux pattern,
// such as "GET /v2/users/{id}" or "/v2/webhooks", matched as ServeMux
// matches it (with its letter case; r.PathValue works in handler). An
// override sees only authenticated API requests, after the latency, the
// budget and FailNext, and they are counted by RequestCount as the route
// they would have reached (a path the fake does not serve is not
// counted); everything else (the store, the other routes) is left alone. Handling the same pattern again replaces its handler; a
// nil handler removes the override. A pattern ServeMux refuses, or one
// that conflicts with another override, is an error and changes nothing.
func (s *Server) Handle(pattern string, handler http.Handler) error {
	s.meta.Lock()
	defer s.meta.Unlock()
	next := maps.Clone(s.handlers)
	if next == nil {
		next = map[string]http.Handler{}
	}
	if handler == nil {
		delete(next, pattern)
	} else {
		next[pattern] = handler
	}
	mux, err := newOverrideMux(next)
	if err != nil {
		return err
	}
	s.handlers = next
	if len(next) == 0 {
		mux = nil
	}
	s.overrides.Store(mux)
	return nil
}

// newOverrideMux registers the overrides on a ServeMux, which panics on a
// bad pattern; that becomes an error.
func newOverrideMux(handlers map[string]http.Handler) (mux *http.ServeMux, err error) {
	defer func() {
		if v := recover(); v != nil {
			mux, err = nil, fmt.Errorf("%w: Handle: %v", ErrInvalid, v)
		}
	}()
	mux = http.NewServeMux()
	for p, h := range handlers {
		mux.Handle(p, h)
	}
	return mux, nil
}

// override returns the mux that overrides r, or nil.
func (s *Server) override(r *http.Request) http.Handler {
	mux := s.overrides.Load()
	if mux == nil {
		return nil
	}
	if _, pattern := mux.Handler(r); pattern == "" {
		return nil
	}
	return mux
}
